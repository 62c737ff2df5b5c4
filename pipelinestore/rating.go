package pipelinestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// Rating returns a user's rating of a candidate, or nil. The caller holds
// the candidate's row lock, which serializes the ratings of that candidate.
func (t *tx) Rating(ctx context.Context, candidateID, userID int64) (*pipeline.Rating, error) {
	var r ratingRow
	err := t.run.get(ctx, t.q.Rating, args(candidateID, userID), &r)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, formatError(err, "Rating")
	}
	rating := r.toRating()
	return &rating, nil
}

// SaveRating stores a user's rating of a candidate, replacing theirs.
func (t *tx) SaveRating(ctx context.Context, r pipeline.Rating) error {
	err := t.run.deferred(ctx, t.q.SaveRating, r.CandidateID, r.UserID, string(r.Value), ts(r.UpdatedAt))
	return formatError(err, "Rating")
}
