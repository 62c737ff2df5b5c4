package pipeline_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/mail/mailtest"
)

// outcomes are the feed's entries of the actions as user reads them.
func outcomes(t *testing.T, w world, user string, actions ...string) []pipeline.FeedEntry {
	t.Helper()
	page, err := w.Svc.ListActivity(w.As(t, user), pipeline.FeedFilter{Actions: actions, Limit: 100})
	require.NoError(t, err)
	return page.Entries
}

// waitOutcome reads the feed as olivia until it holds an entry of action.
func waitOutcome(t *testing.T, w world, action string) pipeline.FeedEntry {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if got := outcomes(t, w, "olivia", action); len(got) > 0 || time.Now().After(deadline) {
			require.Len(t, got, 1, "one %s entry", action)
			return got[0]
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestMessages_OutcomeLogged(t *testing.T) {
	eachWorld(t, "a sent message is logged by the server, in the feed and for webhooks", func(t *testing.T, w world) {
		hook := newHook(t, w, "olivia", "https://hooks.example.test/x", pipeline.ActionCandidateMessageSent)
		assert.Equal(t, []string{pipeline.ActionCandidateMessageSent}, hook.Events)
		s := mailtest.Start(t, mailtest.Options{})
		sendQueue(t, w.DB, s)
		m, err := sendAda(t, w, pipeline.NewMessage{Subject: "Hi", Body: "Hello."})
		require.NoError(t, err)
		e := waitOutcome(t, w, pipeline.ActionCandidateMessageSent)
		assert.Equal(t, pipeline.SubjectCandidate, e.SubjectType)
		assert.Equal(t, w.Res.Candidates["ada"], e.SubjectID)
		assert.Equal(t, w.Job("backend"), e.JobID)
		assert.Equal(t, map[string]any{"message_id": float64(m.ID)}, changesOf(t, e.Activity))
		assert.Zero(t, e.Actor.ID, "no user")
		assert.Empty(t, e.Actor.Name)
		assert.Zero(t, e.TokenID, "no token")
		assert.Empty(t, e.IP, "no address")
		assert.Len(t, outcomes(t, w, "mia", pipeline.ActionCandidateMessageSent), 1, "mia is assigned to the job")
		assert.Empty(t, outcomes(t, w, "nina", pipeline.ActionCandidateMessageSent), "nina does not reach the job")
		assert.Empty(t, outcomes(t, w, "gary", pipeline.ActionCandidateMessageSent), "gary is on another team")
		assert.Empty(t, outcomes(t, w, "olivia", pipeline.ActionCandidateMessageFailed))
		log := w.Activity(t)
		assert.Equal(t, pipeline.ActionCandidateMessageSent, log[len(log)-1].Action)
		assert.Zero(t, log[len(log)-1].UserID)
	})
	eachWorld(t, "a failed message is logged with its error", func(t *testing.T, w world) {
		s := mailtest.Start(t, mailtest.Options{})
		s.Script(mailtest.Permanent)
		sendQueue(t, w.DB, s)
		m, err := sendAda(t, w, pipeline.NewMessage{Subject: "Hi", Body: "Hello."})
		require.NoError(t, err)
		e := waitOutcome(t, w, pipeline.ActionCandidateMessageFailed)
		failed := waitMessage(t, w, m.ID)
		assert.Equal(t, map[string]any{"message_id": float64(m.ID), "error": failed.LastError}, changesOf(t, e.Activity))
		assert.Contains(t, failed.LastError, "550")
		assert.Zero(t, e.Actor.ID)
		assert.Empty(t, outcomes(t, w, "olivia", pipeline.ActionCandidateMessageSent))
	})
}
