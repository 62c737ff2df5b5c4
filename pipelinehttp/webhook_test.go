package pipelinehttp

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// testSecretKey seals the webhook secrets of the tests' Services.
var testSecretKey = func() *pipeline.SecretKey {
	k, err := pipeline.ParseSecretKey("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
	if err != nil {
		panic(err)
	}
	return k
}()

// localWebhooks lets the tests' webhooks reach receivers on this machine.
var localWebhooks = pipeline.WebhookPolicy{AllowHTTP: true, AllowPrivate: true}

var webhookFields = sorted("id", "url", "events", "description", "created_at", "created_by")

// hook is a webhook the test created.
type hook struct {
	id     int64
	secret string
}

// createWebhook creates a webhook as token, which must succeed.
func createWebhook(t *testing.T, e *env, token string, body map[string]any) hook {
	t.Helper()
	r := e.do(t, "POST", "/api/v1/webhooks", e.token(token), body)
	require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
	d := r.Data(t)
	return hook{id: num(t, d["id"]), secret: d["secret"].(string)}
}

var secretRE = regexp.MustCompile(`^whsec_[A-Za-z0-9+/]{43}=$`)

func TestAPI_Webhooks(t *testing.T) {
	each(t, "create, read, list, delete", func(t *testing.T, e *env) {
		body := map[string]any{"url": "https://hooks.example.test/pipeline", "events": []string{"job.updated", "job.created", "job.created"},
			"description": "Board sync"}
		r := e.do(t, "POST", "/api/v1/webhooks", e.token("olivia"), body)
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		created := r.Data(t)
		id := num(t, created["id"])
		assert.Equal(t, "/api/v1/webhooks/"+itoa(id), r.Header.Get("Location"))
		assert.Regexp(t, secretRE, created["secret"])
		assert.Equal(t, []any{"job.created", "job.updated"}, created["events"], "deduplicated, in the order of the actions")
		assert.Equal(t, map[string]any{"id": float64(e.User("olivia")), "name": "Olivia Owner"}, created["created_by"])

		got := e.do(t, "GET", "/api/v1/webhooks/"+itoa(id), e.token("adam"), nil)
		require.Equal(t, http.StatusOK, got.Code, "%s", got.Body)
		assert.Equal(t, webhookFields, keys(got.Data(t)), "never the secret")
		delete(created, "secret")
		assert.Equal(t, created, got.Data(t))

		all := createWebhook(t, e, "adam", map[string]any{"url": "https://hooks.example.test/all"})
		list := e.do(t, "GET", "/api/v1/webhooks", e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, list.Code)
		assert.Equal(t, []int64{all.id, id}, list.IDs(t), "newest first")
		assert.Equal(t, []any{}, list.Items(t)[0]["events"], "none: every action")
		assert.NotContains(t, string(list.Body), "whsec_")

		del := e.do(t, "DELETE", "/api/v1/webhooks/"+itoa(id), e.token("olivia"), nil)
		require.Equal(t, http.StatusNoContent, del.Code)
		assert.Empty(t, del.Body)
		requireError(t, e.do(t, "GET", "/api/v1/webhooks/"+itoa(id), e.token("olivia"), nil), http.StatusNotFound, pipeline.ENotFound)
		requireError(t, e.do(t, "DELETE", "/api/v1/webhooks/"+itoa(id), e.token("olivia"), nil), http.StatusNotFound, pipeline.ENotFound)

		log := e.Activity(t)
		require.Len(t, log, 3)
		assert.Equal(t, []string{"webhook.created", "webhook.created", "webhook.deleted"},
			[]string{log[0].Action, log[1].Action, log[2].Action})
		assert.Zero(t, log[2].JobID)
		assert.JSONEq(t, `{"url":{"before":"https://hooks.example.test/pipeline","after":null},
			"events":{"before":["job.created","job.updated"],"after":null},"description":{"before":"Board sync","after":null}}`,
			string(log[2].Changes))
	})
	each(t, "a retried keyed delete replays", func(t *testing.T, e *env) {
		hook := createWebhook(t, e, "olivia", map[string]any{"url": "https://hooks.example.test/gone"})
		path := "/api/v1/webhooks/" + itoa(hook.id)
		first := e.do(t, "DELETE", path, e.token("olivia"), nil, IdempotencyKeyHeader, "del-1")
		require.Equal(t, http.StatusNoContent, first.Code, "%s", first.Body)
		again := e.do(t, "DELETE", path, e.token("olivia"), nil, IdempotencyKeyHeader, "del-1")
		require.Equal(t, http.StatusNoContent, again.Code, "%s", again.Body)
		assert.Equal(t, "true", again.Header.Get(ReplayHeader))
		assert.Empty(t, again.Body)
		// Another key, or the key of another request, finds nothing to delete.
		requireError(t, e.do(t, "DELETE", path, e.token("olivia"), nil, IdempotencyKeyHeader, "del-2"), http.StatusNotFound, pipeline.ENotFound)
		requireError(t, e.do(t, "DELETE", path, e.token("adam"), nil, IdempotencyKeyHeader, "del-1"), http.StatusNotFound, pipeline.ENotFound)
		log := e.Activity(t)
		require.Len(t, log, 2)
		assert.Equal(t, "webhook.deleted", log[1].Action, "deleted once")
	})
	each(t, "idempotent creation replays the secret", func(t *testing.T, e *env) {
		body := map[string]any{"url": "https://hooks.example.test/once"}
		first := e.do(t, "POST", "/api/v1/webhooks", e.token("olivia"), body, IdempotencyKeyHeader, "hook-1")
		again := e.do(t, "POST", "/api/v1/webhooks", e.token("olivia"), body, IdempotencyKeyHeader, "hook-1")
		require.Equal(t, http.StatusCreated, again.Code, "%s", again.Body)
		assert.Equal(t, "true", again.Header.Get(ReplayHeader))
		assert.Equal(t, string(first.Body), string(again.Body))
		assert.Len(t, e.Activity(t), 1)
	})
}

func TestAPI_Webhooks_Access(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		t.Run("owners and admins only", func(t *testing.T) {
			for _, req := range []struct{ method, path string }{
				{"GET", "/api/v1/webhooks"}, {"POST", "/api/v1/webhooks"}, {"GET", "/api/v1/webhooks/1"},
				{"DELETE", "/api/v1/webhooks/1"}, {"GET", "/api/v1/webhooks/1/deliveries"},
				{"GET", "/api/v1/webhooks?page=x"}, {"GET", "/api/v1/webhooks/999/deliveries?page=0"},
			} {
				var body any
				if req.method == "POST" {
					body = `{"url": 7}` // forbidden comes before the body
				}
				r := e.do(t, req.method, req.path, e.token("mia"), body)
				requireError(t, r, http.StatusForbidden, pipeline.EForbidden)
				r = e.do(t, req.method, req.path, e.token("olivia_jobs_read"), body)
				requireError(t, r, http.StatusForbidden, pipeline.EInsufficientScope)
				assert.Equal(t, map[string]any{"required_scope": "webhooks:write"}, r.Details(t))
			}
		})
		t.Run("another team's webhook is not found", func(t *testing.T) {
			h := createWebhook(t, e, "gary", map[string]any{"url": "https://hooks.example.test/globex"})
			for _, method := range []string{"GET", "DELETE"} {
				requireError(t, e.do(t, method, "/api/v1/webhooks/"+itoa(h.id), e.token("olivia"), nil), http.StatusNotFound, pipeline.ENotFound)
			}
			requireError(t, e.do(t, "GET", "/api/v1/webhooks/"+itoa(h.id)+"/deliveries", e.token("olivia"), nil),
				http.StatusNotFound, pipeline.ENotFound)
			requireError(t, e.do(t, "GET", "/api/v1/webhooks/x", e.token("olivia"), nil), http.StatusNotFound, pipeline.ENotFound)
		})
		t.Run("bad body", func(t *testing.T) {
			for _, tc := range []struct {
				body  any
				field string
			}{
				{map[string]any{}, "url"},
				{map[string]any{"url": "ftp://hooks.example.test"}, "url"},
				{map[string]any{"url": "/relative"}, "url"},
				{map[string]any{"url": "https://user:pw@hooks.example.test"}, "url"},
				{map[string]any{"url": "https://hooks.example.test", "events": []string{"job.deleted"}}, "events"},
				{map[string]any{"url": "https://hooks.example.test", "events": "job.created"}, "events"},
				{map[string]any{"url": "https://hooks.example.test", "secret": "mine"}, "secret"},
				{`[]`, "body"},
			} {
				requireValidation(t, e.do(t, "POST", "/api/v1/webhooks", e.token("olivia"), tc.body), tc.field)
			}
		})
	})
}

// TestAPI_Webhooks_URLPolicy: the operator's switches decide which URLs a
// webhook may have; by default https to public addresses only.
func TestAPI_Webhooks_URLPolicy(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		strict := New(pipeline.NewService(e.DB, pipeline.WithSecretKey(testSecretKey), pipeline.WithLimiter(pipeline.NewMemoryLimiter(1000))), Config{})
		for _, u := range []string{
			"http://hooks.example.test/x",    // http is refused
			"https://127.0.0.1/x",            // loopback
			"https://10.1.2.3/x",             // private
			"https://[::1]:8443/x",           // loopback, IPv6
			"https://169.254.169.254/latest", // link-local
			"https://0.0.0.0/x",              // unspecified
			"https://localhost/x",            // a name that resolves to loopback
			"https://[::ffff:192.168.1.1]/x", // private, written as IPv6
		} {
			r := do(t, strict, "POST", "/api/v1/webhooks", e.token("olivia"), map[string]any{"url": u})
			requireValidation(t, r, "url")
		}
		r := do(t, strict, "POST", "/api/v1/webhooks", e.token("olivia"), map[string]any{"url": "https://93.184.215.14/hook"})
		assert.Equal(t, http.StatusCreated, r.Code, "a public address: %s", r.Body)

		// The switches.
		r = e.do(t, "POST", "/api/v1/webhooks", e.token("olivia"), map[string]any{"url": "http://127.0.0.1:9/x"})
		assert.Equal(t, http.StatusCreated, r.Code, "allowed by the operator: %s", r.Body)

		noKey := New(pipeline.NewService(e.DB, pipeline.WithLimiter(pipeline.NewMemoryLimiter(1000))), Config{})
		r = do(t, noKey, "POST", "/api/v1/webhooks", e.token("olivia"), map[string]any{"url": "https://93.184.215.14/hook"})
		requireError(t, r, http.StatusForbidden, pipeline.EForbidden)
		assert.Contains(t, string(r.Body), "secret key")
	})
}
