package pipelinehttp

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// ratingItem is a user's rating of a candidate.
type ratingItem struct {
	CandidateID int64                `json:"candidate_id"`
	Rating      pipeline.RatingValue `json:"rating"`
	UserID      int64                `json:"user_id"`
	UpdatedAt   string               `json:"updated_at"`
}

func newRatingItem(r pipeline.Rating) ratingItem {
	return ratingItem{
		CandidateID: r.CandidateID,
		Rating:      r.Value,
		UserID:      r.UserID,
		UpdatedAt:   timestamp(r.UpdatedAt),
	}
}

// rateCandidate serves POST /jobs/{job}/candidates/{candidate}/rating.
func (a *api) rateCandidate(c *gin.Context) {
	ref := candidateRef(c)
	var in pipeline.NewRating
	idem, ok := a.bind(c, pipeline.OpRateCandidate, ref, func() error { return in.Validate() },
		stringField("rating", &in.Value))
	if !ok {
		return
	}
	in.Idempotency = idem
	res, err := a.svc.RateCandidate(c.Request.Context(), ref.Job, ref.Candidate, in)
	answer(c, res, err, func(r pipeline.Rating) (int, any) {
		return http.StatusOK, data[ratingItem]{Data: newRatingItem(r)}
	})
}
