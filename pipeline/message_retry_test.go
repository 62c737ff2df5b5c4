package pipeline_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/mail/mailtest"
)

func TestMessages_PermanentFailures(t *testing.T) {
	eachWorld(t, "refused credentials fail the message at once", func(t *testing.T, w world) {
		s := mailtest.Start(t, mailtest.Options{User: "relay", Password: "relay-secret"})
		// The queue speaks to s with a password it refuses.
		sendQueueURL(t, w.DB, s, strings.Replace(s.URL(), "relay-secret", "wrong-secret", 1))
		m, err := sendAda(t, w, pipeline.NewMessage{Subject: "Hi", Body: "Hello."})
		require.NoError(t, err)
		failed := waitMessage(t, w, m.ID)
		assert.Equal(t, pipeline.MessageFailed, failed.Status)
		assert.Equal(t, 1, failed.Attempts, "not retried for hours")
		assert.NotContains(t, failed.LastError, "wrong-secret")
	})
}

func TestService_RetryMessage(t *testing.T) {
	eachWorld(t, "a failed message is queued again and sent with the same Message-ID", func(t *testing.T, w world) {
		s := mailtest.Start(t, mailtest.Options{})
		s.Script(mailtest.Permanent)
		sendQueue(t, w.DB, s)
		ctx, job, ada := w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"]
		m, err := sendAda(t, w, pipeline.NewMessage{Subject: "Hi", Body: "Hello."})
		require.NoError(t, err)
		require.Equal(t, pipeline.MessageFailed, waitMessage(t, w, m.ID).Status)

		res, err := w.Svc.RetryMessage(ctx, job, ada, m.ID, pipeline.MessageRetry{})
		require.NoError(t, err)
		assert.Equal(t, pipeline.MessageQueued, res.Value.Status)
		assert.Equal(t, 0, res.Value.Attempts)
		sent := waitMessage(t, w, m.ID)
		assert.Equal(t, pipeline.MessageSent, sent.Status)
		assert.Equal(t, 1, sent.Attempts)
		got := s.WaitReceived(t, 2, 30*time.Second)
		assert.Equal(t, mailtest.Permanent, got[0].Reply)
		assert.Equal(t, mailtest.Accept, got[1].Reply)
		assert.Equal(t, got[0].Message(t).Header.Get("Message-ID"), got[1].Message(t).Header.Get("Message-ID"))

		// On PostgreSQL the feed holds an entry back while a transaction
		// that began before it (the queue's) is open: wait for it.
		retried := waitOutcome(t, w, pipeline.ActionCandidateMessageRetried)
		assert.Equal(t, map[string]any{"message_id": float64(m.ID)}, changesOf(t, retried.Activity))
		assert.Equal(t, w.User("olivia"), retried.Actor.ID)
		waitOutcome(t, w, pipeline.ActionCandidateMessageSent)

		_, err = w.Svc.RetryMessage(ctx, job, ada, m.ID, pipeline.MessageRetry{})
		assert.ErrorIs(t, err, pipeline.ErrForbidden, "a sent message is not retried")
	})
	eachWorld(t, "only a failed message", func(t *testing.T, w world) {
		ctx, job, ada := w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"]
		m, err := sendAda(t, w, pipeline.NewMessage{Subject: "Hi", Body: "Hello.", SendAt: time.Now().Add(time.Hour).Format(time.RFC3339)})
		require.NoError(t, err)
		_, err = w.Svc.RetryMessage(ctx, job, ada, m.ID, pipeline.MessageRetry{})
		assert.ErrorIs(t, err, pipeline.ErrForbidden, "a queued message")
		_, err = w.Svc.RetryMessage(w.As(t, "gary"), job, ada, m.ID, pipeline.MessageRetry{})
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
		assert.Empty(t, outcomes(t, w, "olivia", pipeline.ActionCandidateMessageRetried))
	})
}
