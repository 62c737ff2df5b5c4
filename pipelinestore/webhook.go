package pipelinestore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// webhookRow is a webhook with its creator's name.
type webhookRow struct {
	ID          int64     `bun:"id"`
	TeamID      int64     `bun:"team_id"`
	URL         string    `bun:"url"`
	Events      string    `bun:"events"` // comma-separated; "" every action
	Description string    `bun:"description"`
	Secret      []byte    `bun:"secret"`
	CreatedBy   int64     `bun:"created_by"`
	CreatorName string    `bun:"creator_name"`
	CreatedAt   time.Time `bun:"created_at"`

	Total int `bun:"total,scanonly"`
}

func (r webhookRow) windowTotal() int { return r.Total }

func (r webhookRow) toWebhook() pipeline.Webhook {
	w := pipeline.Webhook{
		ID: r.ID, TeamID: r.TeamID, URL: r.URL, Events: []string{}, Description: r.Description,
		CreatedAt: r.CreatedAt.UTC(), CreatedBy: pipeline.User{ID: r.CreatedBy, Name: r.CreatorName},
		SealedSecret: r.Secret,
	}
	if r.Events != "" {
		w.Events = strings.Split(r.Events, ",")
	}
	return w
}

// webhookStore is the DB's WebhookStore.
type webhookStore struct{ *DB }

// Webhooks reads webhooks and records their deliveries.
func (db *DB) Webhooks() pipeline.WebhookStore { return webhookStore{db} }

// webhookTx is a transaction's WebhookTx.
type webhookTx struct{ *tx }

// Webhooks writes webhooks.
func (t *tx) Webhooks() pipeline.WebhookTx { return webhookTx{t} }

// Insert stores a webhook and returns it with its id.
func (t webhookTx) Insert(ctx context.Context, w pipeline.Webhook) (pipeline.Webhook, error) {
	w.CreatedAt = ts(w.CreatedAt)
	err := t.run.get(ctx, t.q.InsertWebhook, args(w.TeamID, w.URL, strings.Join(w.Events, ","), w.Description,
		w.SealedSecret, w.CreatedBy.ID, w.CreatedAt), &w.ID)
	return w, formatError(err, "Webhook")
}

// Lock returns a webhook of a team, locked.
func (t webhookTx) Lock(ctx context.Context, p pipeline.WebhookParams) (pipeline.Webhook, error) {
	var r webhookRow
	if err := t.run.get(ctx, t.q.WebhookLocked, args(p.ID, p.TeamID), &r); err != nil {
		return pipeline.Webhook{}, formatError(err, "Webhook")
	}
	return r.toWebhook(), nil
}

// Delete deletes a webhook and, by cascade, its deliveries.
func (t webhookTx) Delete(ctx context.Context, p pipeline.DeleteWebhookParams) error {
	return formatError(t.run.deferred(ctx, t.q.DeleteWebhook, p.ID), "Webhook")
}

// Get returns a webhook of a team.
func (db webhookStore) Get(ctx context.Context, p pipeline.WebhookParams) (pipeline.Webhook, error) {
	var r webhookRow
	if err := db.read().get(ctx, db.q.Webhook, args(p.ID, p.TeamID), &r); err != nil {
		return pipeline.Webhook{}, formatError(err, "Webhook")
	}
	return r.toWebhook(), nil
}

// List returns a page of a team's webhooks, newest first, with a window
// count; only a page past the last costs a second query.
func (db webhookStore) List(ctx context.Context, p pipeline.ListWebhooksParams) (pipeline.List[pipeline.Webhook], error) {
	teamID, page := p.TeamID, p.Page
	var rows []webhookRow
	if err := db.read().all(ctx, db.q.WebhooksPage, args(teamID, pipeline.Offset(page)), &rows); err != nil {
		return pipeline.List[pipeline.Webhook]{}, formatError(err, "Webhook")
	}
	list := pageOf(page, rows, webhookRow.toWebhook)
	if len(rows) == 0 && page > 1 {
		if err := db.read().get(ctx, db.q.WebhooksCount, args(teamID), &list.Total); err != nil {
			return pipeline.List[pipeline.Webhook]{}, formatError(err, "Webhook")
		}
	}
	return list, nil
}

// Role returns the role of a user on a team, "" for none.
func (db memberStore) Role(ctx context.Context, p pipeline.MemberParams) (pipeline.Role, error) {
	var role string
	err := db.read().get(ctx, db.q.MemberRole, args(p.UserID, p.TeamID), &role)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return pipeline.Role(role), formatError(err, "Membership")
}

// ignoreNoRows is formatError that takes no rows for no error.
func ignoreNoRows(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	return formatError(err, what)
}
