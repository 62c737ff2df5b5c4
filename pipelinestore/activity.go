package pipelinestore

import (
	"context"
	"encoding/json"

	"github.com/uptrace/bun"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// InsertActivity appends an activity entry.
func (t *tx) InsertActivity(ctx context.Context, a pipeline.Activity) error {
	changes := string(a.Changes)
	if changes == "" {
		changes = "{}"
	}
	r := activityRow{
		TeamID:      a.TeamID,
		UserID:      a.UserID,
		TokenID:     a.TokenID,
		IP:          a.IP,
		Action:      a.Action,
		SubjectType: a.SubjectType,
		SubjectID:   a.SubjectID,
		Changes:     changes,
		CreatedAt:   ts(a.CreatedAt),
	}
	_, err := t.idb.NewInsert().Model(&r).Returning("NULL").Exec(ctx)
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
	if err := db.r.NewRaw(`SELECT * FROM activity ? ORDER BY id`, team).Scan(ctx, &rows); err != nil {
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
