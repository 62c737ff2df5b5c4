package pipelinestore

import (
	"context"
	"encoding/json"

	"github.com/uptrace/bun"

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

// Activity returns activity entries in commit order (by id), all of them or
// those of one team.
func (db *DB) Activity(ctx context.Context, teamID *int64) ([]pipeline.Activity, error) {
	team := bun.SafeQuery("")
	if teamID != nil {
		team = bun.SafeQuery("WHERE team_id = ?", *teamID)
	}
	var rows []activityRow
	if err := db.r.bun.NewRaw(`SELECT * FROM activity ? ORDER BY id`, team).Scan(ctx, &rows); err != nil {
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
