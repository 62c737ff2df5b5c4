package pipeline_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// sendAda sends a message from olivia to ada on backend.
func sendAda(t *testing.T, w world, in pipeline.NewMessage) (pipeline.Message, error) {
	t.Helper()
	res, err := w.Svc.SendMessage(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], in)
	return res.Value, err
}

func TestService_SendMessage(t *testing.T) {
	eachClockedWorld(t, "queued to the candidate's email, Reply-To the author, logged", func(t *testing.T, w world, clock *time.Time) {
		m, err := sendAda(t, w, pipeline.NewMessage{Subject: "  Your interview  ", Body: "Hello Ada."})
		require.NoError(t, err)
		ada, err := w.Svc.GetCandidate(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"])
		require.NoError(t, err)
		assert.Equal(t, ada.Email, m.To)
		assert.Equal(t, "Your interview", m.Subject, "trimmed")
		assert.Equal(t, pipeline.MessageQueued, m.Status)
		assert.Equal(t, *clock, m.SendAt, "now when absent")
		assert.Nil(t, m.SentAt)
		assert.Zero(t, m.Attempts)
		assert.Empty(t, m.LastError)
		assert.Equal(t, w.User("olivia"), m.Author.ID)
		got, err := w.Svc.GetMessage(w.As(t, "olivia"), w.Job("backend"), ada.ID, m.ID)
		require.NoError(t, err)
		assert.Equal(t, m, got, "read back as written")
		entries := w.Activity(t)
		require.Len(t, entries, 1)
		assert.Equal(t, pipeline.ActionCandidateMessaged, entries[0].Action)
		assert.Equal(t, pipeline.SubjectCandidate, entries[0].SubjectType)
		assert.Equal(t, ada.ID, entries[0].SubjectID)
		assert.Equal(t, map[string]any{"message_id": float64(m.ID)}, changesOf(t, entries[0]))
	})
	eachClockedWorld(t, "send_at", func(t *testing.T, w world, clock *time.Time) {
		later := clock.Add(48 * time.Hour)
		m, err := sendAda(t, w, pipeline.NewMessage{Subject: "Later", Body: "Hi.", SendAt: later.In(time.FixedZone("CET", 3600)).Format(time.RFC3339)})
		require.NoError(t, err)
		assert.Equal(t, later, m.SendAt, "any offset, kept in UTC")
		for _, bad := range []string{
			clock.Add(-time.Hour).Format(time.RFC3339),
			clock.Add(pipeline.MaxSendAhead + time.Hour).Format(time.RFC3339),
			"2026-01-05T10:00:00", "tomorrow",
		} {
			_, err := sendAda(t, w, pipeline.NewMessage{Subject: "Bad", Body: "Hi.", SendAt: bad})
			require.ErrorIs(t, err, pipeline.ErrValidation, bad)
			assert.Equal(t, []string{"send_at"}, fieldNames(err), bad)
		}
	})
	eachWorld(t, "invalid input", func(t *testing.T, w world) {
		for _, tc := range []struct {
			in    pipeline.NewMessage
			field string
		}{
			{pipeline.NewMessage{Subject: "", Body: "x"}, "subject"},
			{pipeline.NewMessage{Subject: "  ", Body: "x"}, "subject"},
			{pipeline.NewMessage{Subject: "Hi\r\nBcc: eve@example.test", Body: "x"}, "subject"},
			{pipeline.NewMessage{Subject: "Hi\nthere", Body: "x"}, "subject"},
			{pipeline.NewMessage{Subject: strings.Repeat("é", pipeline.MaxSubjectLength+1), Body: "x"}, "subject"},
			{pipeline.NewMessage{Subject: "Hi", Body: ""}, "body"},
			{pipeline.NewMessage{Subject: "Hi", Body: strings.Repeat("a", pipeline.MaxMessageBodyLength+1)}, "body"},
			{pipeline.NewMessage{Subject: "Hi", Body: "bad \x00 byte"}, "body"},
		} {
			_, err := sendAda(t, w, tc.in)
			require.ErrorIs(t, err, pipeline.ErrValidation, tc.in.Subject)
			assert.Equal(t, []string{tc.field}, fieldNames(err), tc.in.Subject)
		}
		_, err := sendAda(t, w, pipeline.NewMessage{Subject: strings.Repeat("é", pipeline.MaxSubjectLength), Body: strings.Repeat("a", pipeline.MaxMessageBodyLength)})
		assert.NoError(t, err, "at the limits")
	})
	eachWorld(t, "without mail configured: forbidden, after the input", func(t *testing.T, w world) {
		svc := pipeline.NewService(w.DB)
		ctx := w.As(t, "olivia")
		_, err := svc.SendMessage(ctx, w.Job("backend"), w.Res.Candidates["ada"], pipeline.NewMessage{Subject: "", Body: "x"})
		require.ErrorIs(t, err, pipeline.ErrValidation)
		_, err = svc.SendMessage(ctx, w.Job("backend"), w.Res.Candidates["ada"], pipeline.NewMessage{Subject: "Hi", Body: "x"})
		require.ErrorIs(t, err, pipeline.ErrForbidden)
		assert.Equal(t, "Sending email is not configured.", err.(*pipeline.Error).Message)
		_, err = svc.SendMessage(ctx, w.Job("backend"), w.Res.Candidates["ken"], pipeline.NewMessage{Subject: "Hi", Body: "x"})
		assert.ErrorIs(t, err, pipeline.ErrNotFound, "the record first")
		assert.Empty(t, w.Activity(t))
	})
	eachWorld(t, "a keyed retry replays and queues nothing more", func(t *testing.T, w world) {
		in := func() pipeline.NewMessage {
			return pipeline.NewMessage{Subject: "Once", Body: "Hi.", Idempotency: &pipeline.Idempotency{Key: "k1"}}
		}
		first, err := w.Svc.SendMessage(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], in())
		require.NoError(t, err)
		again, err := w.Svc.SendMessage(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], in())
		require.NoError(t, err)
		assert.True(t, again.Replayed)
		assert.Equal(t, first.Value, again.Value)
		list, err := w.Svc.ListMessages(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], pipeline.MessageFilter{})
		require.NoError(t, err)
		assert.Equal(t, 1, list.Total)
		assert.Len(t, w.Activity(t), 1)
	})
}

func TestService_ListMessages(t *testing.T) {
	eachWorld(t, "newest first, paginated, per candidate", func(t *testing.T, w world) {
		var ids []int64
		for range pipeline.PageSize + 1 {
			m, err := sendAda(t, w, pipeline.NewMessage{Subject: "Hi", Body: "x"})
			require.NoError(t, err)
			ids = append([]int64{m.ID}, ids...)
		}
		ctx := w.As(t, "olivia")
		page, err := w.Svc.ListMessages(ctx, w.Job("backend"), w.Res.Candidates["ada"], pipeline.MessageFilter{Page: 1})
		require.NoError(t, err)
		assert.Equal(t, pipeline.PageSize+1, page.Total)
		require.Len(t, page.Items, pipeline.PageSize)
		for i, m := range page.Items {
			assert.Equal(t, ids[i], m.ID)
		}
		page, err = w.Svc.ListMessages(ctx, w.Job("backend"), w.Res.Candidates["ada"], pipeline.MessageFilter{Page: 3})
		require.NoError(t, err)
		assert.Empty(t, page.Items)
		assert.Equal(t, pipeline.PageSize+1, page.Total, "past the last page")
		other, err := w.Svc.ListMessages(ctx, w.Job("backend"), w.Res.Candidates["grace"], pipeline.MessageFilter{})
		require.NoError(t, err)
		assert.Zero(t, other.Total, "another candidate's")
	})
}

func TestService_MessageVisibility(t *testing.T) {
	eachWorld(t, "a message out of reach is not found", func(t *testing.T, w world) {
		m, err := sendAda(t, w, pipeline.NewMessage{Subject: "Hi", Body: "x"})
		require.NoError(t, err)
		backend, ada, grace := w.Job("backend"), w.Res.Candidates["ada"], w.Res.Candidates["grace"]
		for _, tc := range []struct {
			name, user string
			job, cand  int64
		}{
			{"another team's owner", "gary", backend, ada},
			{"a member not on the job", "nina", backend, ada},
			{"another candidate", "olivia", backend, grace},
			{"another job", "olivia", w.Job("frontend"), ada},
		} {
			ctx := actAs(t, w, tc.user, pipeline.AllScopes...)
			_, err := w.Svc.GetMessage(ctx, tc.job, tc.cand, m.ID)
			assert.ErrorIs(t, err, pipeline.ErrNotFound, tc.name)
			_, err = w.Svc.CancelMessage(ctx, tc.job, tc.cand, m.ID, pipeline.MessageCancellation{})
			assert.ErrorIs(t, err, pipeline.ErrNotFound, tc.name)
		}
		got, err := w.Svc.GetMessage(w.As(t, "mia"), backend, ada, m.ID)
		require.NoError(t, err, "a member assigned to the job")
		assert.Equal(t, pipeline.MessageQueued, got.Status)
	})
}

func TestService_CancelMessage(t *testing.T) {
	eachWorld(t, "queued: cancelled and logged; again: unchanged", func(t *testing.T, w world) {
		m, err := sendAda(t, w, pipeline.NewMessage{Subject: "Hi", Body: "x"})
		require.NoError(t, err)
		ctx := w.As(t, "olivia")
		res, err := w.Svc.CancelMessage(ctx, w.Job("backend"), m.CandidateID, m.ID, pipeline.MessageCancellation{})
		require.NoError(t, err)
		assert.Equal(t, pipeline.MessageCancelled, res.Value.Status)
		again, err := w.Svc.CancelMessage(ctx, w.Job("backend"), m.CandidateID, m.ID, pipeline.MessageCancellation{})
		require.NoError(t, err)
		assert.Equal(t, res.Value, again.Value)
		assert.Equal(t, []string{pipeline.ActionCandidateMessaged, pipeline.ActionCandidateMessageCancelled}, actionsOf(w.Activity(t)))
		assert.Equal(t, map[string]any{"message_id": float64(m.ID)}, changesOf(t, w.Activity(t)[1]))

		// A cancelled message is never sent, even if its job runs.
		p, err := pipeline.NewPostman(w.DB, pipeline.WithMail(testFrom, logMailer))
		require.NoError(t, err)
		require.NoError(t, p.Deliver(context.Background(), m.ID, 1))
		got, err := w.Svc.GetMessage(ctx, w.Job("backend"), m.CandidateID, m.ID)
		require.NoError(t, err)
		assert.Equal(t, pipeline.MessageCancelled, got.Status)
		assert.Zero(t, got.Attempts)
	})
	eachWorld(t, "sent: forbidden", func(t *testing.T, w world) {
		m, err := sendAda(t, w, pipeline.NewMessage{Subject: "Hi", Body: "x"})
		require.NoError(t, err)
		p, err := pipeline.NewPostman(w.DB, pipeline.WithMail(testFrom, logMailer))
		require.NoError(t, err)
		require.NoError(t, p.Deliver(context.Background(), m.ID, 1))
		ctx := w.As(t, "olivia")
		got, err := w.Svc.GetMessage(ctx, w.Job("backend"), m.CandidateID, m.ID)
		require.NoError(t, err)
		assert.Equal(t, pipeline.MessageSent, got.Status)
		assert.Equal(t, 1, got.Attempts)
		require.NotNil(t, got.SentAt)
		_, err = w.Svc.CancelMessage(ctx, w.Job("backend"), m.CandidateID, m.ID, pipeline.MessageCancellation{})
		require.ErrorIs(t, err, pipeline.ErrForbidden)
		assert.Equal(t, "The message has already been sent.", err.(*pipeline.Error).Message)
		assert.Equal(t, []string{pipeline.ActionCandidateMessaged, pipeline.ActionCandidateMessageSent}, actionsOf(w.Activity(t)),
			"the refused cancel logs nothing")
	})
}

func TestPostman_Mail(t *testing.T) {
	p, err := pipeline.NewPostman(nil, pipeline.WithMail(testFrom, logMailer))
	require.NoError(t, err)
	m := p.Mail(pipeline.Message{ID: 12, To: "ada@example.test", ReplyTo: "olivia@acme.example",
		Author: pipeline.User{Name: "Olivia"}, Subject: "Hi", Body: "Hello."})
	assert.Equal(t, "<message-12@acme.example>", m.MessageID)
	assert.Equal(t, testFrom, m.From)
	assert.Equal(t, "ada@example.test", m.To.Address)
	assert.Equal(t, "olivia@acme.example", m.ReplyTo.Address)
	assert.Equal(t, "Olivia", m.ReplyTo.Name)
	_, err = pipeline.NewPostman(nil)
	assert.Error(t, err, "a postman needs mail")
}

// messageProbes call the operations of this file's resource for the tables of
// operations (see probe).
var messageProbes = []operation{
	{pipeline.OpSendMessage, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.SendMessage(ctx, p.ref.Job, p.ref.Candidate, pipeline.NewMessage{Subject: pick(p, "Probe", "Two\nlines"), Body: "Hello.", Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
	{pipeline.OpListMessages, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.ListMessages(ctx, p.ref.Job, p.ref.Candidate, pipeline.MessageFilter{Page: pick(p, 1, -1)})
		return err
	}},
	{pipeline.OpGetMessage, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.GetMessage(ctx, p.ref.Job, p.ref.Candidate, p.ref.Message)
		return err
	}},
	{pipeline.OpCancelMessage, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.CancelMessage(ctx, p.ref.Job, p.ref.Candidate, p.ref.Message, pipeline.MessageCancellation{Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
	{pipeline.OpRetryMessage, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		id := p.ref.Message
		if p.failed != 0 {
			id = p.failed
		}
		_, err := svc.RetryMessage(ctx, p.ref.Job, p.ref.Candidate, id, pipeline.MessageRetry{Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
}
