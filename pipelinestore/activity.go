package pipelinestore

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// An entry is inserted with the webhooks of its team that select its
// action, whose messages the transaction then enqueues: on PostgreSQL in
// one statement sent with the transaction's last batch, on SQLite (which
// takes no INSERT in a WITH) in two.
var (
	qInsertActivityPG = (`WITH a AS (INSERT INTO activity
	(team_id, job_id, user_id, token_id, ip, action, subject_type, subject_id, changes, created_at, reason, approved_by)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id, team_id, action)
SELECT a.id, w.id AS webhook_id FROM a
LEFT JOIN webhooks AS w ON w.team_id = a.team_id
	AND (w.events = '' OR strpos(',' || w.events || ',', ',' || a.action || ',') > 0)`)
	qInsertActivity = preparedSQLite(`INSERT INTO activity
(team_id, job_id, user_id, token_id, ip, action, subject_type, subject_id, changes, created_at, reason, approved_by)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`)
	qSelectingWebhooks = preparedSQLite(`SELECT id FROM webhooks
WHERE team_id = $1 AND (events = '' OR instr(',' || events || ',', ',' || $2 || ',') > 0)`)
)

// InsertActivity appends an activity entry and enqueues its messages.
func (t *tx) InsertActivity(ctx context.Context, a pipeline.Activity) error {
	changes := string(a.Changes)
	if changes == "" {
		changes = "{}"
	}
	// NULL for a write made without a token, for an entry of no job, and
	// for the server's own entry, which has no user.
	var user, token, job any
	if a.UserID != 0 {
		user = a.UserID
	}
	if a.TokenID != 0 {
		token = a.TokenID
	}
	if a.JobID != 0 {
		job = a.JobID
	}
	var approvedBy *string
	if a.ApprovedBy != nil {
		b, err := json.Marshal(a.ApprovedBy)
		if err != nil {
			return err
		}
		text := string(b)
		approvedBy = &text
	}
	values := args(a.TeamID, job, user, token, a.IP, a.Action, a.SubjectType, a.SubjectID, changes, ts(a.CreatedAt), a.Reason, approvedBy)
	if t.pg {
		// Its messages are enqueued before the commit (tx.enqueuePending).
		return formatError(t.run.deferredReturning(ctx, qInsertActivityPG, t.scanMessages, values...), "Activity")
	}
	var id int64
	if err := t.run.get(ctx, qInsertActivity, values, &id); err != nil {
		return formatError(err, "Activity")
	}
	var webhooks []int64
	if err := t.run.all(ctx, qSelectingWebhooks, args(a.TeamID, a.Action), &webhooks); err != nil {
		return formatError(err, "Activity")
	}
	for _, w := range webhooks {
		t.pending = append(t.pending, pipeline.WebhookMessage{WebhookID: w, ActivityID: id})
	}
	return formatError(t.enqueuePending(ctx), "Activity")
}

// scanMessages reads the rows of qInsertActivityPG into the messages to
// enqueue.
func (t *tx) scanMessages(ctx context.Context, rows *sql.Rows) error {
	var out []struct {
		ID        int64  `bun:"id"`
		WebhookID *int64 `bun:"webhook_id"`
	}
	if err := t.run.p.bun.ScanRows(ctx, rows, &out); err != nil {
		return err
	}
	for _, r := range out {
		if r.WebhookID != nil {
			t.pending = append(t.pending, pipeline.WebhookMessage{WebhookID: *r.WebhookID, ActivityID: r.ID})
		}
	}
	return nil
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
		out[i] = r.toActivity()
	}
	return out, nil
}
