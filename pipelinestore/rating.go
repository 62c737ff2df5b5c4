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
	err := t.idb.NewRaw(`SELECT candidate_id, user_id, value, updated_at FROM ratings
WHERE candidate_id = ? AND user_id = ?`, candidateID, userID).Scan(ctx, &r)
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
	row := ratingRow{CandidateID: r.CandidateID, UserID: r.UserID, Value: string(r.Value), UpdatedAt: ts(r.UpdatedAt)}
	_, err := t.idb.NewInsert().Model(&row).
		On("CONFLICT (candidate_id, user_id) DO UPDATE").
		Set("value = EXCLUDED.value").
		Set("updated_at = EXCLUDED.updated_at").
		Exec(ctx)
	return formatError(err, "Rating")
}
