package pipelinehttp

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// received is one request a receiver got.
type received struct {
	header http.Header
	body   []byte
}

// receiver is a real HTTP server that records what it is sent and answers
// with the statuses of answers in turn, then 204.
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	got     []received
	answers []int
}

func newReceiver(t *testing.T, answers ...int) *receiver {
	rc := &receiver{answers: answers}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		assert.NoError(t, err)
		rc.mu.Lock()
		rc.got = append(rc.got, received{header: r.Header.Clone(), body: body})
		status := http.StatusNoContent
		if len(rc.answers) > 0 {
			status, rc.answers = rc.answers[0], rc.answers[1:]
		}
		rc.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// wait returns the requests once there are n, failing after a deadline.
func (rc *receiver) wait(t *testing.T, n int) []received {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		rc.mu.Lock()
		got := append([]received(nil), rc.got...)
		rc.mu.Unlock()
		if len(got) >= n {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the receiver got %d requests, want %d", len(rc.got), n)
	return nil
}

// count is how many requests the receiver got.
func (rc *receiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.got)
}

// fastRetries is the contract's schedule, shortened for the tests.
var fastRetries = []time.Duration{
	20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond,
	20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond,
}

// deliver runs deliveries on e's database until the test ends, with the
// sender's switch on private addresses.
func (e *env) deliver(t *testing.T, allowPrivate bool) {
	t.Helper()
	e.deliverWorkers(t, allowPrivate, 2)
}

// deliverInOrder is deliver with one worker: the queue sends one message
// at a time, in the order the messages came due.
func (e *env) deliverInOrder(t *testing.T, allowPrivate bool) {
	t.Helper()
	e.deliverWorkers(t, allowPrivate, 1)
}

// deliverWorkers is deliver with workers workers.
func (e *env) deliverWorkers(t *testing.T, allowPrivate bool, workers int) {
	t.Helper()
	sender := NewWebhookSender(WebhookSenderConfig{AllowPrivate: allowPrivate, UserAgent: "pipelined/test"})
	d := pipeline.NewDispatcher(e.DB, sender, pipeline.WithSecretKey(testSecretKey), pipeline.WithRetrySchedule(fastRetries))
	run, err := e.DB.StartDeliveries(context.Background(), d, pipelinestore.DeliveryConfig{Workers: workers, PollInterval: 20 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, run.Stop(context.Background())) })
}

// verifySignature checks a delivery as a receiver would, from the
// definition in Standard Webhooks 1.0 alone: the HMAC-SHA256, keyed with
// the base64-decoded secret after "whsec_", of "id.timestamp.body", in
// base64 after "v1," among the space-separated signatures, and a timestamp
// near now.
func verifySignature(secret string, h http.Header, body []byte) error {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return err
	}
	id, ts := h.Get("Webhook-Id"), h.Get("Webhook-Timestamp")
	sent, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sent, 0)).Abs() > 5*time.Minute {
		return errors.New("webhook-timestamp is not near now")
	}
	mac := hmac.New(sha256.New, key)
	_, _ = io.WriteString(mac, id+"."+ts+"."+string(body))
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(h.Get("Webhook-Signature")) {
		version, value, _ := strings.Cut(sig, ",")
		got, err := base64.StdEncoding.DecodeString(value)
		if version == "v1" && err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errors.New("no signature matches")
}

// deliveries lists a webhook's delivery attempts as olivia, newest first.
func deliveries(t *testing.T, e *env, id int64) []map[string]any {
	t.Helper()
	r := e.do(t, "GET", "/api/v1/webhooks/"+itoa(id)+"/deliveries", e.token("olivia"), nil)
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
	return r.Items(t)
}

// waitDeliveries polls a webhook's deliveries until there are n.
func waitDeliveries(t *testing.T, e *env, id int64, n int) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := deliveries(t, e, id)
		if len(got) >= n || time.Now().After(deadline) {
			require.Len(t, got, n)
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDeliveries(t *testing.T) {
	each(t, "signed, with the entry as in the feed", func(t *testing.T, e *env) {
		rc := newReceiver(t)
		h := createWebhook(t, e, "olivia", map[string]any{"url": rc.URL + "/hook", "events": []string{"candidate.stage_changed"}})
		// In order, a message of an entry the webhook does not select,
		// written before the move, would come first.
		e.deliverInOrder(t, true)
		moveAda(t, e, "adam", "Screening")
		got := rc.wait(t, 1)[0]

		require.NoError(t, verifySignature(h.secret, got.header, got.body))
		assert.Error(t, verifySignature("whsec_"+base64.StdEncoding.EncodeToString(make([]byte, 32)), got.header, got.body),
			"another secret does not verify")
		assert.Equal(t, "application/json", got.header.Get("Content-Type"))
		assert.Equal(t, "pipelined/test", got.header.Get("User-Agent"))
		awaitFeed(t, e.h, e.token("olivia"), 2)
		var msg struct {
			Type      string         `json:"type"`
			Timestamp string         `json:"timestamp"`
			Data      map[string]any `json:"data"`
		}
		require.NoError(t, json.Unmarshal(got.body, &msg))
		feed := e.do(t, "GET", "/api/v1/activity?action=candidate.stage_changed", e.token("olivia"), nil).Items(t)
		require.Len(t, feed, 1)
		assert.Equal(t, feed[0], msg.Data, "the entry as in the feed")
		assert.Equal(t, "candidate.stage_changed", msg.Type, "the webhook selects stage changes only")
		assert.Equal(t, feed[0]["created_at"], msg.Timestamp)
		assert.Equal(t, "msg_"+itoa(num(t, feed[0]["id"]))+"_"+itoa(h.id), got.header.Get("Webhook-Id"))

		d := waitDeliveries(t, e, h.id, 1)[0]
		assert.Equal(t, sorted("id", "event_id", "action", "attempt", "status_code", "error", "duration_ms", "attempted_at",
			"next_attempt_at"), keys(d))
		assert.Equal(t, feed[0]["id"], d["event_id"])
		assert.Equal(t, 1.0, d["attempt"])
		assert.Equal(t, 204.0, d["status_code"])
		assert.Nil(t, d["error"])
		assert.Nil(t, d["next_attempt_at"])
	})
	each(t, "a 503 is retried with the same webhook-id", func(t *testing.T, e *env) {
		rc := newReceiver(t, http.StatusServiceUnavailable, http.StatusFound)
		h := createWebhook(t, e, "olivia", map[string]any{"url": rc.URL, "events": []string{"candidate.stage_changed"}})
		e.deliver(t, true)
		moveAda(t, e, "olivia", "Screening")
		got := rc.wait(t, 3)
		id := got[0].header.Get("Webhook-Id")
		for _, g := range got {
			assert.Equal(t, id, g.header.Get("Webhook-Id"))
			assert.NoError(t, verifySignature(h.secret, g.header, g.body))
			assert.Equal(t, string(got[0].body), string(g.body))
		}
		d := waitDeliveries(t, e, h.id, 3)
		assert.Equal(t, []any{3.0, 2.0, 1.0}, []any{d[0]["attempt"], d[1]["attempt"], d[2]["attempt"]}, "newest first")
		assert.Equal(t, []any{204.0, 302.0, 503.0}, []any{d[0]["status_code"], d[1]["status_code"], d[2]["status_code"]},
			"a redirect is not followed")
		assert.Equal(t, "The receiver answered 503.", d[2]["error"])
		assert.NotNil(t, d[2]["next_attempt_at"])
		assert.Nil(t, d[0]["next_attempt_at"])
	})
}

// TestDeliveries_Failures: what becomes of messages that are not taken.
func TestDeliveries_Failures(t *testing.T) {
	each(t, "the last attempt fails the message", func(t *testing.T, e *env) {
		rc := newReceiver(t, 500, 500, 500, 500, 500, 500, 500, 500, 500)
		h := createWebhook(t, e, "olivia", map[string]any{"url": rc.URL, "events": []string{"candidate.stage_changed"}})
		e.deliver(t, true)
		moveAda(t, e, "olivia", "Screening")
		d := waitDeliveries(t, e, h.id, 8)
		assert.Equal(t, 8.0, d[0]["attempt"])
		assert.Nil(t, d[0]["next_attempt_at"])
		assert.Contains(t, d[0]["error"], "failed")
		assert.Equal(t, 8, rc.count(), "the last attempt ended the message")
	})
	each(t, "410 Gone deletes the webhook", func(t *testing.T, e *env) {
		rc := newReceiver(t, http.StatusGone)
		h := createWebhook(t, e, "olivia", map[string]any{"url": rc.URL, "events": []string{"candidate.stage_changed"}})
		e.deliver(t, true)
		moveAda(t, e, "olivia", "Screening")
		rc.wait(t, 1)
		deadline := time.Now().Add(20 * time.Second)
		for {
			r := e.do(t, "GET", "/api/v1/webhooks/"+itoa(h.id), e.token("olivia"), nil)
			if r.Code == http.StatusNotFound {
				break
			}
			require.True(t, time.Now().Before(deadline), "the webhook is still there")
			time.Sleep(20 * time.Millisecond)
		}
		last := e.Activity(t)[len(e.Activity(t))-1]
		assert.Equal(t, pipeline.ActionWebhookDeleted, last.Action)
		assert.Equal(t, e.User("olivia"), last.UserID, "in its creator's name")
		assert.Zero(t, last.TokenID)
		assert.Contains(t, string(last.Changes), "410 Gone")
	})
	each(t, "a rolled-back write sends nothing", func(t *testing.T, e *env) {
		rc := newReceiver(t)
		createWebhook(t, e, "olivia", map[string]any{"url": rc.URL, "events": []string{"candidate.stage_changed"}})
		e.deliverInOrder(t, true)
		// The entry and its message are written, then the write fails.
		boom := errors.New("boom")
		err := e.DB.Write(context.Background(), func(tx pipeline.Tx) error {
			err := tx.Activity().Insert(context.Background(), pipeline.Activity{
				TeamID: e.Res.Teams["acme"], JobID: e.Job("backend"), UserID: e.User("olivia"),
				Action: pipeline.ActionCandidateStageChanged, SubjectType: pipeline.SubjectCandidate,
				SubjectID: e.Res.Candidates["ada"], Changes: []byte(`{"rolled":"back"}`), CreatedAt: time.Now(),
			})
			return errors.Join(err, boom)
		})
		require.ErrorIs(t, err, boom)
		// A later write is delivered: in order, the rolled-back entry's
		// message would come first.
		moveAda(t, e, "olivia", "Screening")
		got := rc.wait(t, 1)
		assert.NotContains(t, string(got[0].body), "rolled")
		assert.Contains(t, string(got[0].body), "candidate.stage_changed")
	})
	each(t, "a private address is refused when connecting", func(t *testing.T, e *env) {
		rc := newReceiver(t)
		// Created while private addresses are allowed; the sender forbids them.
		h := createWebhook(t, e, "olivia", map[string]any{"url": strings.Replace(rc.URL, "127.0.0.1", "localhost", 1), "events": []string{"candidate.stage_changed"}})
		e.deliver(t, false)
		moveAda(t, e, "olivia", "Screening")
		// Its retry, a second later, may be made before the list is read.
		deadline := time.Now().Add(20 * time.Second)
		got := deliveries(t, e, h.id)
		for len(got) == 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			got = deliveries(t, e, h.id)
		}
		require.NotEmpty(t, got)
		d := got[len(got)-1] // newest first: the first attempt
		assert.EqualValues(t, 1, d["attempt"])
		assert.Nil(t, d["status_code"])
		assert.Contains(t, d["error"], "refused to connect")
		assert.Zero(t, rc.count(), "nothing reached the receiver")
	})
}
