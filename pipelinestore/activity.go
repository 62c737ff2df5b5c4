package pipelinestore

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// activityStore is the DB's ActivityStore.
type activityStore struct{ *DB }

// Activity reads the activity log and its feed.
func (db *DB) Activity() pipeline.ActivityStore { return activityStore{db} }

// activityTx is a transaction's ActivityTx.
type activityTx struct{ *tx }

// Activity writes the activity log.
func (t *tx) Activity() pipeline.ActivityTx { return activityTx{t} }

// Insert appends an activity entry and enqueues its messages.
func (t activityTx) Insert(ctx context.Context, a pipeline.Activity) error {
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
		return formatError(t.run.deferredReturning(ctx, t.q.InsertActivity, t.scanMessages, values...), "Activity")
	}
	var id int64
	if err := t.run.get(ctx, t.q.InsertActivity, values, &id); err != nil {
		return formatError(err, "Activity")
	}
	var webhooks []int64
	if err := t.run.all(ctx, t.q.SelectingWebhooks, args(a.TeamID, a.Action), &webhooks); err != nil {
		return formatError(err, "Activity")
	}
	for _, w := range webhooks {
		t.pending = append(t.pending, pipeline.WebhookMessage{WebhookID: w, ActivityID: id})
	}
	return formatError(t.enqueuePending(ctx), "Activity")
}

// scanMessages reads the rows of InsertActivity (PostgreSQL) into the messages to
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

// List returns the activity entries f selects in commit order (by id).
func (db activityStore) List(ctx context.Context, f pipeline.ActivityFilter) ([]pipeline.Activity, error) {
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
	return records(rows, activityRow.toActivity), nil
}

// AboutCandidates returns the entries about the candidates, with their
// actors, by id.
func (db activityStore) AboutCandidates(ctx context.Context, p pipeline.CandidateActivityParams) ([]pipeline.FeedEntry, error) {
	var rows []activityRow
	if err := db.read().all(ctx, db.q.CandidateActivity, args(jsonIDs(p.CandidateIDs)), &rows); err != nil {
		return nil, formatError(err, "Activity")
	}
	return records(rows, activityRow.toFeedEntry), nil
}

// AboutCandidate returns the entries about a candidate and about its
// interviews.
func (t activityTx) AboutCandidate(ctx context.Context, p pipeline.CandidateEntriesParams) ([]pipeline.Activity, error) {
	var rows []activityRow
	if err := t.run.all(ctx, t.q.CandidateEntries, args(p.CandidateID), &rows); err != nil {
		return nil, formatError(err, "Activity")
	}
	return records(rows, activityRow.toActivity), nil
}

// SetChanges replaces the changes of an entry.
func (t activityTx) SetChanges(ctx context.Context, p pipeline.ActivityChangesParams) error {
	return formatError(t.run.deferred(ctx, t.q.SetActivityChanges, string(p.Changes), p.ID), "Activity")
}
