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

// TestStore_MessageFailsWithItsJob: a message and its River job commit
// together or not at all, also when River's insert waits in the batch
// with the message (prepared statements). PostgreSQL refuses the job here,
// then accepts it: the first send leaves nothing behind, not even its
// key's record, and the same key then sends the message once, with one job.
func TestStore_MessageFailsWithItsJob(t *testing.T) {
	textAndPrepared(t, func(t *testing.T, opts ...pipelinestore.Option) {
		db := storetest.OpenPostgres(t, opts...)
		mailer, err := mail.New("log:", mail.WithLogger(slog.New(slog.DiscardHandler)))
		require.NoError(t, err)
		f := storetest.Seeded(t, db, pipeline.WithMail(&netmail.Address{Name: "Acme Hiring", Address: "jobs@acme.example"}, mailer))
		olivia := f.As(t, "olivia")
		job, ada := f.Job("backend"), f.Res.Candidates["ada"]
		pool := db.Pools()["postgres"]
		bg := context.Background()
		_, err = pool.ExecContext(bg, `ALTER TABLE river_job ADD CONSTRAINT no_messages CHECK (kind <> 'pipeline_message')`)
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
