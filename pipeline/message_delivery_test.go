package pipeline_test

import (
	"context"
	"errors"
	"io"
	"mime"
	"mime/quotedprintable"
	netmail "net/mail"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/mail"
	"github.com/pipeline-dev/pipeline/pipeline/mail/mailtest"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// fastMailRetries is the contract's schedule of five retries, shortened.
var fastMailRetries = []time.Duration{
	50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond,
}

// sendQueue runs db's queue until the test ends, its messages sent to the
// SMTP server s on the fast schedule.
func sendQueue(t *testing.T, db *pipelinestore.DB, s *mailtest.Server, opts ...mail.Option) {
	t.Helper()
	sendQueueURL(t, db, s, s.URL(), opts...)
}

// sendQueueURL is sendQueue speaking to s through the SMTP URL u.
func sendQueueURL(t *testing.T, db *pipelinestore.DB, s *mailtest.Server, u string, opts ...mail.Option) {
	t.Helper()
	runMailQueue(t, db, s, u, 2, opts...)
}

// sendQueueInOrder is sendQueue with one worker: the queue sends one mail
// at a time, in the order the mails came due.
func sendQueueInOrder(t *testing.T, db *pipelinestore.DB, s *mailtest.Server) {
	t.Helper()
	runMailQueue(t, db, s, s.URL(), 1)
}

// runMailQueue runs db's queue with workers workers until the test ends,
// its messages sent to s through the SMTP URL u on the fast schedule.
func runMailQueue(t *testing.T, db *pipelinestore.DB, s *mailtest.Server, u string, workers int, opts ...mail.Option) {
	t.Helper()
	m, err := mail.New(u, append([]mail.Option{mail.WithTLSConfig(s.ClientTLS())}, opts...)...)
	require.NoError(t, err)
	p, err := pipeline.NewPostman(db, pipeline.WithMail(testFrom, m), pipeline.WithMailRetrySchedule(fastMailRetries))
	require.NoError(t, err)
	run, err := db.StartDeliveries(context.Background(), pipeline.NewDispatcher(db, nil, hookOptions()...),
		pipelinestore.DeliveryConfig{Workers: workers, PollInterval: 20 * time.Millisecond, Postman: p})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, run.Stop(context.Background())) })
}

// mailsBeforeMarker sends grace a marker message due at due (now when
// zero), waits until s receives it, and returns the Message-IDs of the
// mails s received before it. On a queue run by sendQueueInOrder every
// mail due before the marker is sent before it, so a mail not among these
// was never queued.
func mailsBeforeMarker(t *testing.T, w world, s *mailtest.Server, due time.Time) []string {
	t.Helper()
	in := pipeline.NewMessage{Subject: "Marker", Body: "Marker."}
	if !due.IsZero() {
		in.SendAt = due.Format(time.RFC3339)
	}
	res, err := w.Svc.SendMessage(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["grace"], in)
	require.NoError(t, err)
	marker := messageID(res.Value.ID)
	var ids []string
	for n := 1; ; n++ {
		id := s.WaitReceived(t, n, 30*time.Second)[n-1].Message(t).Header.Get("Message-ID")
		if id == marker {
			return ids
		}
		ids = append(ids, id)
	}
}

// messageID is the Message-ID of the mail of message id.
func messageID(id int64) string {
	return "<message-" + strconv.FormatInt(id, 10) + "@acme.example>"
}

// waitMessage reads a message of ada on backend until its status is not
// queued, and returns it.
func waitMessage(t *testing.T, w world, id int64) pipeline.Message {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		m, err := w.Svc.GetMessage(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], id)
		require.NoError(t, err)
		if m.Status != pipeline.MessageQueued || time.Now().After(deadline) {
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestMessages_Delivery(t *testing.T) {
	eachWorld(t, "the mail arrives well formed", func(t *testing.T, w world) {
		s := mailtest.Start(t, mailtest.Options{User: "relay", Password: "relay-secret"})
		sendQueue(t, w.DB, s)
		subject := "Entretien à Zürich — ✓"
		m, err := sendAda(t, w, pipeline.NewMessage{Subject: subject, Body: "Chère Ada,\nà lundi !\n"})
		require.NoError(t, err)
		got := s.WaitReceived(t, 1, 30*time.Second)
		assert.Equal(t, "jobs@acme.example", got[0].From)
		assert.Equal(t, []string{"ada@example.test"}, got[0].To)
		msg := got[0].Message(t)
		dec := new(mime.WordDecoder)
		decoded, err := dec.DecodeHeader(msg.Header.Get("Subject"))
		require.NoError(t, err)
		assert.Equal(t, subject, decoded)
		parser := netmail.AddressParser{WordDecoder: dec}
		from, err := parser.Parse(msg.Header.Get("From"))
		require.NoError(t, err)
		assert.Equal(t, *testFrom, *from)
		to, err := parser.Parse(msg.Header.Get("To"))
		require.NoError(t, err)
		assert.Equal(t, "ada@example.test", to.Address)
		replyTo, err := parser.Parse(msg.Header.Get("Reply-To"))
		require.NoError(t, err)
		olivia, err := w.DB.Users().Get(context.Background(), pipeline.UserParams{ID: w.User("olivia")})
		require.NoError(t, err)
		assert.Equal(t, olivia.User.Email, replyTo.Address, "Reply-To is the author's email")
		assert.Equal(t, "<message-"+strconv.FormatInt(m.ID, 10)+"@acme.example>", msg.Header.Get("Message-ID"))
		_, err = msg.Header.Date()
		require.NoError(t, err)
		mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
		require.NoError(t, err)
		assert.Equal(t, "text/plain", mt)
		assert.True(t, strings.EqualFold("utf-8", params["charset"]))
		assert.Equal(t, "quoted-printable", msg.Header.Get("Content-Transfer-Encoding"))
		body, err := io.ReadAll(quotedprintable.NewReader(msg.Body))
		require.NoError(t, err)
		assert.Equal(t, "Chère Ada,\r\nà lundi !\r\n", string(body))

		sent := waitMessage(t, w, m.ID)
		assert.Equal(t, pipeline.MessageSent, sent.Status)
		assert.Equal(t, 1, sent.Attempts)
		assert.NotNil(t, sent.SentAt)
		assert.Empty(t, sent.LastError)
	})
	eachWorld(t, "451 is retried with the same Message-ID", func(t *testing.T, w world) {
		s := mailtest.Start(t, mailtest.Options{})
		s.Script(mailtest.Temporary)
		sendQueue(t, w.DB, s)
		m, err := sendAda(t, w, pipeline.NewMessage{Subject: "Hi", Body: "Hello."})
		require.NoError(t, err)
		got := s.WaitReceived(t, 2, 30*time.Second)
		assert.Equal(t, mailtest.Temporary, got[0].Reply)
		assert.Equal(t, mailtest.Accept, got[1].Reply)
		assert.Equal(t, got[0].Message(t).Header.Get("Message-ID"), got[1].Message(t).Header.Get("Message-ID"))
		sent := waitMessage(t, w, m.ID)
		assert.Equal(t, pipeline.MessageSent, sent.Status)
		assert.Equal(t, 2, sent.Attempts)
		assert.Contains(t, sent.LastError, "451", "the last failed attempt's reply")
	})
	eachWorld(t, "550 fails at once", func(t *testing.T, w world) {
		s := mailtest.Start(t, mailtest.Options{})
		s.Script(mailtest.Permanent)
		sendQueueInOrder(t, w.DB, s)
		m, err := sendAda(t, w, pipeline.NewMessage{Subject: "Hi", Body: "Hello."})
		require.NoError(t, err)
		failed := waitMessage(t, w, m.ID)
		assert.Equal(t, pipeline.MessageFailed, failed.Status)
		assert.Equal(t, 1, failed.Attempts)
		assert.Contains(t, failed.LastError, "550")
		assert.Nil(t, failed.SentAt)
		// A retry would be due within fastMailRetries[0]; the marker is
		// due a second later at the least.
		assert.Len(t, mailsBeforeMarker(t, w, s, time.Now().Add(2*time.Second)), 1, "not retried")
	})
	eachWorld(t, "a server that hangs is cut by the time-out and retried", func(t *testing.T, w world) {
		s := mailtest.Start(t, mailtest.Options{})
		s.Script(mailtest.Hang)
		sendQueue(t, w.DB, s, mail.WithTimeout(time.Second))
		m, err := sendAda(t, w, pipeline.NewMessage{Subject: "Hi", Body: "Hello."})
		require.NoError(t, err)
		s.WaitReceived(t, 2, 30*time.Second)
		sent := waitMessage(t, w, m.ID)
		assert.Equal(t, pipeline.MessageSent, sent.Status)
		assert.Equal(t, 2, sent.Attempts)
		assert.NotEmpty(t, sent.LastError)
	})
	eachWorld(t, "without STARTTLS nothing is sent and the message fails at once", func(t *testing.T, w world) {
		s := mailtest.Start(t, mailtest.Options{NoSTARTTLS: true, User: "relay", Password: "relay-secret"})
		sendQueue(t, w.DB, s)
		m, err := sendAda(t, w, pipeline.NewMessage{Subject: "Hi", Body: "Hello."})
		require.NoError(t, err)
		failed := waitMessage(t, w, m.ID)
		assert.Equal(t, pipeline.MessageFailed, failed.Status)
		assert.Equal(t, 1, failed.Attempts, "no retry can change a refused STARTTLS")
		assert.Contains(t, failed.LastError, "STARTTLS")
		assert.NotContains(t, failed.LastError, "relay-secret")
		assert.Empty(t, s.Received())
	})
}

// TestMessages_ReadByPython sends mails to candidates whose names need
// quoting or encoding, with subjects long and outside ASCII, and reads them
// with Python's email package, as a reader's program would.
func TestMessages_ReadByPython(t *testing.T) {
	eachWorld(t, "the subject and the candidate's name, exactly", func(t *testing.T, w world) {
		s := mailtest.Start(t, mailtest.Options{})
		sendQueue(t, w.DB, s)
		ctx, job, ada := w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"]
		cases := []struct{ name, subject string }{
			{"Ada Lovelace", "Your application for the Senior Backend Engineer position: next steps after the first interview"},
			{`O'Brien, Jane "JJ"`, "Votre candidature — entretien à Zürich, et la suite de la procédure de recrutement"},
			{"Zoë Łukasiewicz, née 山田", "面接のご案内"},
		}
		for i, c := range cases {
			_, err := w.Svc.UpdateCandidate(ctx, job, ada, pipeline.CandidatePatch{Name: new(c.name)})
			require.NoError(t, err)
			_, err = sendAda(t, w, pipeline.NewMessage{Subject: c.subject, Body: "Hello."})
			require.NoError(t, err)
			py := s.WaitReceived(t, i+1, 30*time.Second)[i].Python(t)
			assert.Equal(t, c.subject, py.Subject)
			assert.Equal(t, []mailtest.Address{{Name: c.name, Address: "ada@example.test"}}, py.To, "the candidate's name")
			assert.Equal(t, []mailtest.Address{{Name: "Acme Hiring", Address: "jobs@acme.example"}}, py.From)
			assert.Empty(t, py.Defects)
		}
	})
}

func TestMessages_Scheduling(t *testing.T) {
	eachWorld(t, "send_at in the future waits", func(t *testing.T, w world) {
		s := mailtest.Start(t, mailtest.Options{})
		sendQueue(t, w.DB, s)
		at := time.Now().Add(3 * time.Second).Truncate(time.Second)
		m, err := sendAda(t, w, pipeline.NewMessage{Subject: "Later", Body: "Hello.", SendAt: at.Format(time.RFC3339)})
		require.NoError(t, err)
		got := s.WaitReceived(t, 1, 30*time.Second)
		assert.False(t, got[0].At.Before(at), "not before send_at")
		assert.Equal(t, messageID(m.ID), got[0].Message(t).Header.Get("Message-ID"))
	})
	eachWorld(t, "a cancelled message is never sent", func(t *testing.T, w world) {
		s := mailtest.Start(t, mailtest.Options{})
		m, err := sendAda(t, w, pipeline.NewMessage{Subject: "Hi", Body: "Hello."})
		require.NoError(t, err)
		_, err = w.Svc.CancelMessage(w.As(t, "olivia"), w.Job("backend"), m.CandidateID, m.ID, pipeline.MessageCancellation{})
		require.NoError(t, err)
		later, err := sendAda(t, w, pipeline.NewMessage{Subject: "After", Body: "Hello."})
		require.NoError(t, err)
		// In order, the cancelled message would come before the later one.
		sendQueueInOrder(t, w.DB, s)
		got := s.WaitReceived(t, 1, 30*time.Second)
		assert.Equal(t, messageID(later.ID), got[0].Message(t).Header.Get("Message-ID"), "only the message after")
		assert.Equal(t, pipeline.MessageCancelled, waitMessage(t, w, m.ID).Status)
	})
}

func TestMessages_Transactions(t *testing.T) {
	eachWorld(t, "a write rolled back sends nothing", func(t *testing.T, w world) {
		s := mailtest.Start(t, mailtest.Options{})
		rolledBack := errors.New("rolled back")
		err := w.DB.Write(context.Background(), func(tx pipeline.Tx) error {
			_, err := tx.Messages().Insert(context.Background(), pipeline.Message{
				CandidateID: w.Res.Candidates["ada"], To: "ada@example.test", Subject: "Never", Body: "x",
				Status: pipeline.MessageQueued, SendAt: time.Now(), Author: pipeline.User{ID: w.User("olivia")}, CreatedAt: time.Now(),
			})
			require.NoError(t, err)
			return rolledBack
		})
		require.ErrorIs(t, err, rolledBack)
		after, err := sendAda(t, w, pipeline.NewMessage{Subject: "After", Body: "Hello."})
		require.NoError(t, err)
		// In order, the rolled-back message would come before the later one.
		sendQueueInOrder(t, w.DB, s)
		got := s.WaitReceived(t, 1, 30*time.Second)
		assert.Equal(t, messageID(after.ID), got[0].Message(t).Header.Get("Message-ID"), "only the committed message")
	})
	t.Run("committed before a crash, sent after the restart", func(t *testing.T) {
		t.Parallel()
		dsns := map[string]func(t *testing.T) string{
			"sqlite":   func(t *testing.T) string { return "sqlite:" + t.TempDir() + "/pipeline.db" },
			"postgres": func(t *testing.T) string { return storetest.PostgresSchemaDSN(t) },
		}
		for name, dsn := range dsns {
			t.Run(name, func(t *testing.T) {
				dsn := dsn(t)
				s := mailtest.Start(t, mailtest.Options{})
				// No queue runs on the handle that writes: its process
				// dies after the commit, before sending.
				w := storetest.Seeded(t, openDSN(t, dsn), hookOptions()...)
				m, err := sendAda(t, w, pipeline.NewMessage{Subject: "Hi", Body: "Hello."})
				require.NoError(t, err)
				require.NoError(t, w.DB.Close())
				sendQueue(t, openDSN(t, dsn), s)
				got := s.WaitReceived(t, 1, 30*time.Second)
				assert.Equal(t, "<message-"+strconv.FormatInt(m.ID, 10)+"@acme.example>", got[0].Message(t).Header.Get("Message-ID"))
			})
		}
	})
}

// openDSN opens and migrates the database at dsn, closed when the test
// ends.
func openDSN(t *testing.T, dsn string) *pipelinestore.DB {
	t.Helper()
	db, err := pipelinestore.Open(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	require.NoError(t, db.Migrate(context.Background()))
	return db
}
