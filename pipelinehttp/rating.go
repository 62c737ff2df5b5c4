package pipelinehttp

import (
	"net/http"

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

// ratingSchema is a rating's: one of the verdicts.
var ratingSchema = enumSchema(string(pipeline.GoodFit), string(pipeline.Maybe), string(pipeline.NotAFit))

// ratingOperations are the operations on ratings of candidates, in the order of the
// document.
var ratingOperations = []operation{
	newOperation(opSpec[pipeline.NewRating, data[ratingItem]]{
		op: pipeline.OpRateCandidate, status: http.StatusOK,
		tool: &toolInfo{title: "Rate a candidate", idempotent: true,
			description: "Sets the token's user's rating of a candidate, replacing an earlier one, and returns it (POST .../candidates/{candidate}/rating)."},
		params: []param[pipeline.NewRating]{
			jobID[pipeline.NewRating](), candidateID[pipeline.NewRating](),
			textField("rating", true, described(ratingSchema, "The verdict."), func(in *pipeline.NewRating) *pipeline.RatingValue { return &in.Value }),
		},
		call: onCandidate((*pipeline.Service).RateCandidate, newRatingItem),
	}),
}
