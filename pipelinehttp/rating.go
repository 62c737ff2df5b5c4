package pipelinehttp

import (
	"context"
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
	raw, err := readBody(c)
	if err != nil {
		fail(c, err)
		return
	}
	var in pipeline.NewRating
	in.Malformed = decodeBody(raw, stringField("rating", &in.Value, nil))
	jobID, id := pathID(c, "job"), pathID(c, "candidate")
	write(c, raw, renderRating, nil, func(ctx context.Context) (pipeline.Rating, error) {
		return a.svc.RateCandidate(ctx, jobID, id, in)
	})
}

func renderRating(r pipeline.Rating) (int, any) {
	return http.StatusOK, data[ratingItem]{Data: newRatingItem(r)}
}
