package pipelinehttp

import (
	"context"
	"log/slog"
	"net/http"
	netmail "net/mail"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/ical"
	"github.com/pipeline-dev/pipeline/pipeline/mail"
	"github.com/pipeline-dev/pipeline/pipeline/mail/mailtest"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

var testMailFrom = &netmail.Address{Name: "Acme Hiring", Address: "jobs@acme.example"}

// withMail serves e with a Service that sends email, invitations to
// interviews included, through the SMTP server s, and runs the queue that
// sends it until the test ends.
func (e *env) withMail(t *testing.T, s *mailtest.Server) {
	t.Helper()
	e.withMailWorkers(t, s, 2)
}

// withMailInOrder is withMail with one worker: the queue sends one mail at
// a time, in the order the mails came due.
func (e *env) withMailInOrder(t *testing.T, s *mailtest.Server) {
	t.Helper()
	e.withMailWorkers(t, s, 1)
}

// withMailWorkers is withMail with workers workers.
func (e *env) withMailWorkers(t *testing.T, s *mailtest.Server, workers int) {
	t.Helper()
	m, err := mail.New(s.URL(), mail.WithTLSConfig(s.ClientTLS()), mail.WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	mailOpts := []pipeline.Option{pipeline.WithMail(testMailFrom, m), pipeline.WithInvitations(ical.Render),
		pipeline.WithMailRetrySchedule([]time.Duration{20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond})}
	svc := pipeline.NewService(e.DB, append([]pipeline.Option{pipeline.WithClock(e.clock), pipeline.WithSecretKey(testSecretKey),
		pipeline.WithLimiter(pipeline.NewMemoryLimiter(100000))}, mailOpts...)...)
	e.h = New(svc, Config{BaseURL: testBaseURL,
		Logger: slog.New(slog.NewTextHandler(e.logs, nil))})
	p, err := pipeline.NewPostman(e.DB, mailOpts...)
	require.NoError(t, err)
	run, err := e.DB.StartDeliveries(context.Background(), pipeline.NewDispatcher(e.DB, nil, pipeline.WithSecretKey(testSecretKey)),
		pipelinestore.DeliveryConfig{Workers: workers, PollInterval: 20 * time.Millisecond, Postman: p})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, run.Stop(context.Background())) })
}

func messagesPath(e *env) string {
	return candidatePath(e.Job("backend"), e.Res.Candidates["ada"]) + "/messages"
}

// waitStatus reads a message until its status is not queued.
func waitStatus(t *testing.T, e *env, path string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := e.do(t, "GET", path, e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		if d := r.Data(t); d["status"] != "queued" || time.Now().After(deadline) {
			return d
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestMessages_HTTP(t *testing.T) {
	each(t, "sent: 202 with the message and its Location, then sent", func(t *testing.T, e *env) {
		s := mailtest.Start(t, mailtest.Options{})
		e.withMail(t, s)
		r := e.do(t, "POST", messagesPath(e), e.token("olivia"), map[string]any{"subject": "Your interview", "body": "Hello Ada."})
		require.Equal(t, http.StatusAccepted, r.Code, "%s", r.Body)
		d := r.Data(t)
		id := num(t, d["id"])
		assert.Equal(t, messagesPath(e)+"/"+itoa(id), r.Header.Get("Location"))
		assert.ElementsMatch(t, []string{"id", "object", "job_id", "candidate_id", "to", "subject", "body", "status", "send_at",
			"sent_at", "attempts", "last_error", "author", "created_at"}, keys(d))
		assert.Equal(t, "message", d["object"])
		assert.Equal(t, "queued", d["status"])
		assert.Equal(t, "ada@example.test", d["to"])
		assert.Nil(t, d["sent_at"])
		assert.Nil(t, d["last_error"])
		assert.Equal(t, map[string]any{"id": float64(e.User("olivia")), "name": "Olivia Owner"}, d["author"])

		s.WaitReceived(t, 1, 30*time.Second)
		sent := waitStatus(t, e, messagesPath(e)+"/"+itoa(id))
		assert.Equal(t, "sent", sent["status"])
		assert.NotNil(t, sent["sent_at"])
		assert.Equal(t, float64(1), sent["attempts"])

		list := e.do(t, "GET", messagesPath(e), e.token("olivia_candidates_read"), nil)
		require.Equal(t, http.StatusOK, list.Code, "%s", list.Body)
		assert.Equal(t, []int64{id}, list.IDs(t))

		cancel := e.do(t, "POST", messagesPath(e)+"/"+itoa(id)+"/cancel", e.token("olivia"), nil)
		requireError(t, cancel, http.StatusForbidden, "forbidden")
	})
	each(t, "held: 202 with the proposal, which its object tells from a message", func(t *testing.T, e *env) {
		s := mailtest.Start(t, mailtest.Options{})
		e.withMail(t, s)
		_, held, err := e.Op.IssueToken(context.Background(), pipeline.TokenRequest{UserEmail: "mia@acme.test", Name: "agent",
			Scopes: []pipeline.Scope{pipeline.ScopeMessagesSend}, Approval: []pipeline.Op{pipeline.OpSendMessage}})
		require.NoError(t, err)
		// do checks each answer against the document, whose discriminator
		// picks the branch by object.
		r := e.do(t, "POST", messagesPath(e), held, map[string]any{"subject": "Your interview", "body": "Hello Ada."})
		require.Equal(t, http.StatusAccepted, r.Code, "%s", r.Body)
		assert.Equal(t, "proposal", r.Data(t)["object"])
		assert.Equal(t, "pending", r.Data(t)["status"])
		assert.Equal(t, "/api/v1/proposals/"+itoa(num(t, r.Data(t)["id"])), r.Header.Get("Location"))

		sent := e.do(t, "POST", messagesPath(e), e.token("olivia"), map[string]any{"subject": "Your interview", "body": "Hello Ada."})
		require.Equal(t, http.StatusAccepted, sent.Code, "%s", sent.Body)
		assert.Equal(t, "message", sent.Data(t)["object"])

		listed := e.do(t, "GET", "/api/v1/proposals", e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, listed.Code, "%s", listed.Body)
		require.Len(t, listed.Items(t), 1)
		assert.Equal(t, "proposal", listed.Items(t)[0]["object"])
	})
	each(t, "without mail configured: 403", func(t *testing.T, e *env) {
		r := e.do(t, "POST", messagesPath(e), e.token("olivia"), map[string]any{"subject": "Hi", "body": "Hello."})
		requireError(t, r, http.StatusForbidden, "forbidden")
		assert.Equal(t, "Sending email is not configured.", r.Object(t)["error"].(map[string]any)["message"])
	})
	each(t, "a subject with a line break: 422", func(t *testing.T, e *env) {
		s := mailtest.Start(t, mailtest.Options{})
		e.withMail(t, s)
		for _, subject := range []string{"Hi\r\nBcc: eve@example.test", "Hi\nthere", "Hi\rthere"} {
			r := e.do(t, "POST", messagesPath(e), e.token("olivia"), map[string]any{"subject": subject, "body": "Hello."})
			requireValidation(t, r, "subject")
		}
		assert.Empty(t, e.Activity(t))
	})
	each(t, "a message of a job out of reach: 404", func(t *testing.T, e *env) {
		s := mailtest.Start(t, mailtest.Options{})
		e.withMail(t, s)
		r := e.do(t, "POST", messagesPath(e), e.token("olivia"), map[string]any{"subject": "Hi", "body": "Hello.", "send_at": e.clock.Now().Add(time.Hour).Format(time.RFC3339)})
		require.Equal(t, http.StatusAccepted, r.Code, "%s", r.Body)
		path := messagesPath(e) + "/" + itoa(num(t, r.Data(t)["id"]))
		requireError(t, e.do(t, "GET", path, e.token("gary"), nil), http.StatusNotFound, "not_found")
		requireError(t, e.do(t, "POST", path+"/cancel", e.token("gary"), nil), http.StatusNotFound, "not_found")
		requireError(t, e.do(t, "GET", candidatePath(e.Job("backend"), e.Res.Candidates["grace"])+"/messages/"+itoa(num(t, r.Data(t)["id"])),
			e.token("olivia"), nil), http.StatusNotFound, "not_found")
		requireError(t, e.do(t, "POST", candidatePath(e.Job("ops"), e.Res.Candidates["ola"])+"/messages", e.token("olivia"),
			map[string]any{"subject": "Hi", "body": "Hello."}), http.StatusNotFound, "not_found")

		cancelled := e.do(t, "POST", path+"/cancel", e.token("olivia_messages"), nil)
		require.Equal(t, http.StatusOK, cancelled.Code, "%s", cancelled.Body)
		assert.Equal(t, "cancelled", cancelled.Data(t)["status"])
	})
	each(t, "a keyed retry replays and sends nothing twice", func(t *testing.T, e *env) {
		s := mailtest.Start(t, mailtest.Options{})
		e.withMailInOrder(t, s)
		body := map[string]any{"subject": "Once", "body": "Hello."}
		first := e.do(t, "POST", messagesPath(e), e.token("olivia"), body, IdempotencyKeyHeader, "send-once")
		require.Equal(t, http.StatusAccepted, first.Code, "%s", first.Body)
		again := e.do(t, "POST", messagesPath(e), e.token("olivia"), body, IdempotencyKeyHeader, "send-once")
		require.Equal(t, http.StatusAccepted, again.Code, "%s", again.Body)
		assert.Equal(t, "true", again.Header.Get(ReplayHeader))
		assert.Equal(t, first.JSON, again.JSON)
		assert.Equal(t, first.Header.Get("Location"), again.Header.Get("Location"))
		// In order, a second mail of the replay would come before the
		// marker's.
		marker := e.do(t, "POST", messagesPath(e), e.token("olivia"), map[string]any{"subject": "Marker", "body": "Marker."})
		require.Equal(t, http.StatusAccepted, marker.Code, "%s", marker.Body)
		got := s.WaitReceived(t, 2, 30*time.Second)
		assert.Equal(t, "<message-"+itoa(num(t, first.Data(t)["id"]))+"@acme.example>", got[0].Message(t).Header.Get("Message-ID"))
		assert.Equal(t, "<message-"+itoa(num(t, marker.Data(t)["id"]))+"@acme.example>", got[1].Message(t).Header.Get("Message-ID"),
			"the marker's mail is the next")
	})
}

func TestMessages_MCP(t *testing.T) {
	each(t, "the tools give the API's bodies", func(t *testing.T, e *env) {
		s := mailtest.Start(t, mailtest.Options{})
		e.withMail(t, s)
		cs := e.mcpSession(t, "olivia")
		backend, ada := e.Job("backend"), e.Res.Candidates["ada"]
		later := e.clock.Now().Add(time.Hour).Format(time.RFC3339)
		sent := content(t, callTool(t, cs, "send_message", map[string]any{"job_id": backend, "candidate_id": ada,
			"subject": "Hi", "body": "Hello.", "send_at": later, "idempotency_key": "mcp-send"}))
		api := e.do(t, "POST", messagesPath(e), e.token("olivia"), map[string]any{"subject": "Hi", "body": "Hello.", "send_at": later},
			IdempotencyKeyHeader, "mcp-send")
		require.Equal(t, http.StatusAccepted, api.Code, "%s", api.Body)
		assert.Equal(t, "true", api.Header.Get(ReplayHeader))
		assert.Equal(t, api.JSON, sent)
		id := num(t, sent.(map[string]any)["data"].(map[string]any)["id"])

		args := map[string]any{"job_id": backend, "candidate_id": ada, "message_id": id}
		assert.Equal(t, e.do(t, "GET", messagesPath(e)+"/"+itoa(id), e.token("olivia"), nil).JSON, content(t, callTool(t, cs, "get_message", args)))
		assert.Equal(t, e.do(t, "GET", messagesPath(e), e.token("olivia"), nil).JSON,
			content(t, callTool(t, cs, "list_messages", map[string]any{"job_id": backend, "candidate_id": ada})))
		cancelled := content(t, callTool(t, cs, "cancel_message", args))
		assert.Equal(t, "cancelled", cancelled.(map[string]any)["data"].(map[string]any)["status"])
		assert.Equal(t, e.do(t, "POST", messagesPath(e)+"/"+itoa(id)+"/cancel", e.token("olivia"), nil).JSON, cancelled)
		assert.Empty(t, s.Received())
	})
}
