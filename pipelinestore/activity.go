package pipelinestore

import (
	"context"
	"encoding/json"

	"github.com/pipeline-dev/pipeline/pipeline"
)

var qInsertActivity = prepared(`INSERT INTO activity
(team_id, user_id, token_id, ip, action, subject_type, subject_id, changes, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`)

// InsertActivity appends an activity entry.
func (t *tx) InsertActivity(ctx context.Context, a pipeline.Activity) error {
	changes := string(a.Changes)
	if changes == "" {
		changes = "{}"
	}
	var token any // NULL for a write made without a token
	if a.TokenID != 0 {
		token = a.TokenID
	}
	err := t.run.deferred(ctx, qInsertActivity,
		a.TeamID, a.UserID, token, a.IP, a.Action, a.SubjectType, a.SubjectID, changes, ts(a.CreatedAt))
	return formatError(err, "Activity")
}

// Activity returns the activity entries f selects in commit order (by id).
func (db *DB) Activity(ctx context.Context, f pipeline.ActivityFilter) ([]pipeline.Activity, error) {
	q := db.r.bun.NewSelect().Model((*activityRow)(nil)).Where("id > ?", f.AfterID).Order("id")
	if f.TeamID != nil {
		q = q.Where("team_id = ?", *f.TeamID)
	}
	if f.Limit > 0 {
		q = q.Limit(int64(f.Limit))
	}
	var rows []activityRow
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, formatError(err, "Activity")
	}
	out := make([]pipeline.Activity, len(rows))
	for i, r := range rows {
		out[i] = pipeline.Activity{
			ID:          r.ID,
			TeamID:      r.TeamID,
			UserID:      r.UserID,
			TokenID:     r.TokenID,
			IP:          r.IP,
			Action:      r.Action,
			SubjectType: r.SubjectType,
			SubjectID:   r.SubjectID,
			Changes:     json.RawMessage(r.Changes),
			CreatedAt:   r.CreatedAt.UTC(),
		}
	}
	return out, nil
}
