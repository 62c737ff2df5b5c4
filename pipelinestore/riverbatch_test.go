package pipelinestore_test

import (
	"context"
	"log/slog"
	netmail "net/mail"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/mail"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// mailingStore is a seeded PostgreSQL store opened with opts, whose
// Service sends mail (to the log) with the options extra.
func mailingStore(t *testing.T, opts []pipelinestore.Option, extra ...pipeline.Option) (*pipelinestore.DB, storetest.Fixture) {
	db := storetest.OpenPostgres(t, opts...)
	mailer, err := mail.New("log:", mail.WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	from := &netmail.Address{Name: "Acme Hiring", Address: "jobs@acme.example"}
	return db, storetest.Seeded(t, db, append([]pipeline.Option{pipeline.WithMail(from, mailer)}, extra...)...)
}

// TestStore_MessageFailsWithItsJob: a message and its River job commit
// together or not at all, also when River's insert waits in the batch
// with the message (prepared statements). PostgreSQL refuses the job here,
// then accepts it: the first send leaves nothing behind, not even its
// key's record, and the same key then sends the message once, with one job.
func TestStore_MessageFailsWithItsJob(t *testing.T) {
	textAndPrepared(t, func(t *testing.T, opts ...pipelinestore.Option) {
		db, f := mailingStore(t, opts)
		olivia := f.As(t, "olivia")
		job, ada := f.Job("backend"), f.Res.Candidates["ada"]
		pool := db.Pools()["postgres"]
		bg := context.Background()
		_, err := pool.ExecContext(bg, `ALTER TABLE river_job ADD CONSTRAINT no_messages CHECK (kind <> 'pipeline_message')`)
		require.NoError(t, err)
		send := func() (pipeline.Result[pipeline.Message], error) {
			return f.Svc.SendMessage(olivia, job, ada, pipeline.NewMessage{Subject: "Hello", Body: "Hi.",
				Idempotency: &pipeline.Idempotency{Key: "hello"}})
		}

		_, err = send()
		require.Error(t, err, "River refused the message's job")
		got, err := f.Svc.ListMessages(olivia, job, ada, pipeline.MessageFilter{})
		require.NoError(t, err)
		assert.Empty(t, got.Items, "no message without its job")
		for _, a := range f.Activity(t) {
			assert.NotEqual(t, pipeline.ActionCandidateMessaged, a.Action, "no activity entry without the message")
		}

		_, err = pool.ExecContext(bg, `ALTER TABLE river_job DROP CONSTRAINT no_messages`)
		require.NoError(t, err)
		sent, err := send()
		require.NoError(t, err)
		assert.False(t, sent.Replayed, "the failed send left no key's record to replay")
		got, err = f.Svc.ListMessages(olivia, job, ada, pipeline.MessageFilter{})
		require.NoError(t, err)
		require.Len(t, got.Items, 1)
		var jobs int
		require.NoError(t, pool.QueryRowContext(bg, `SELECT count(*) FROM river_job WHERE kind = 'pipeline_message' AND args->>'message_id' = $1::text`,
			sent.Value.ID).Scan(&jobs))
		assert.Equal(t, 1, jobs, "the message's one job")
	})
}

// TestStore_MessageQueuesItsWebhookDelivery: a message to a team with a
// webhook commits its own job, which waits in the batch, and the
// delivery of its activity entry, whose job the batch's rows make (the
// events' contract: a delivery is queued in the write's transaction).
func TestStore_MessageQueuesItsWebhookDelivery(t *testing.T) {
	textAndPrepared(t, func(t *testing.T, opts ...pipelinestore.Option) {
		db, f := mailingStore(t, opts, pipeline.WithSecretKey(secretKey))
		olivia := f.As(t, "olivia")
		hook, err := f.Svc.CreateWebhook(olivia, pipeline.NewWebhook{URL: "https://93.184.216.34/hook",
			Events: []string{pipeline.ActionCandidateMessaged}})
		require.NoError(t, err)
		sent, err := f.Svc.SendMessage(olivia, f.Job("backend"), f.Res.Candidates["ada"], pipeline.NewMessage{Subject: "Hello", Body: "Hi."})
		require.NoError(t, err)

		pool, bg := db.Pools()["postgres"], context.Background()
		var messages, deliveries int
		require.NoError(t, pool.QueryRowContext(bg, `SELECT count(*) FROM river_job WHERE kind = 'pipeline_message' AND args->>'message_id' = $1::text`,
			sent.Value.ID).Scan(&messages))
		require.NoError(t, pool.QueryRowContext(bg, `SELECT count(*) FROM river_job WHERE kind = 'pipeline_webhook_delivery' AND args->>'webhook_id' = $1::text`,
			hook.Value.ID).Scan(&deliveries))
		assert.Equal(t, 1, messages, "the message's job")
		assert.Equal(t, 1, deliveries, "the delivery of its activity entry")
	})
}
