package pipelinestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// ratingStore is the DB's RatingStore.
type ratingStore struct{ *DB }

// Ratings reads ratings.
func (db *DB) Ratings() pipeline.RatingStore { return ratingStore{db} }

// ratingTx is a transaction's RatingTx.
type ratingTx struct{ *tx }

// Ratings reads and writes ratings.
func (t *tx) Ratings() pipeline.RatingTx { return ratingTx{t} }

// Get returns a user's rating of a candidate, or nil. The caller holds the
// candidate's row lock, which serializes the ratings of that candidate.
func (t ratingTx) Get(ctx context.Context, p pipeline.RatingParams) (*pipeline.Rating, error) {
	var r ratingRow
	err := t.run.get(ctx, t.q.Rating, args(p.CandidateID, p.UserID), &r)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, formatError(err, "Rating")
	}
	rating := r.toRating()
	return &rating, nil
}

// Save stores a user's rating of a candidate, replacing theirs.
func (t ratingTx) Save(ctx context.Context, r pipeline.Rating) error {
	err := t.run.deferred(ctx, t.q.SaveRating, r.CandidateID, r.UserID, string(r.Value), ts(r.UpdatedAt))
	return formatError(err, "Rating")
}
