package pipelinehttp

import (
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
