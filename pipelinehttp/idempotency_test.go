package pipelinehttp

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// writeNames name the API's writes, in the order of keyedWrites.
var writeNames = []string{"create job", "update job", "add candidate", "update candidate", "move candidate", "add note", "rate candidate"}

// keyedWrite is a write of the API with a body that succeeds for olivia.
type keyedWrite struct {
	method, path string
	body         any
}

// keyedWrites are the API's writes by name.
func keyedWrites(e *env) map[string]keyedWrite {
	backend, ada := e.Res.Jobs["backend"], e.Res.Candidates["ada"]
	return map[string]keyedWrite{
		"create job": {"POST", "/api/v1/jobs", map[string]any{"title": "Replayed", "description": "<p>once</p>"}},
		"update job": {"PATCH", jobPath(backend), map[string]any{"title": "Backend Lead"}},
		"add candidate": {"POST", jobPath(backend) + "/candidates", map[string]any{"name": "Barbara Liskov", "email": "barbara@example.test",
			"stage": e.Res.Stages["backend"]["Screening"], "resume_url": "https://files.example.test/barbara.pdf"}},
		"update candidate": {"PATCH", candidatePath(backend, ada), map[string]any{"status": "hired", "resume_url": nil}},
		"move candidate":   {"POST", candidatePath(backend, ada) + "/stage", map[string]any{"stage": e.Res.Stages["backend"]["Interview"]}},
		"add note":         {"POST", candidatePath(backend, ada) + "/notes", map[string]any{"content": "Only once."}},
		"rate candidate":   {"POST", candidatePath(backend, ada) + "/rating", map[string]any{"rating": "good_fit"}},
	}
}

// createReplayed creates the job of the "create job" write under key, as
// an earlier request would.
func createReplayed(t *testing.T, e *env, key string) {
	t.Helper()
	r := e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), map[string]any{"title": "Replayed", "description": "<p>once</p>"},
		IdempotencyKeyHeader, key)
	require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
}

func TestAPI_Idempotency(t *testing.T) {
	for _, name := range writeNames {
		each(t, name+" replays", func(t *testing.T, e *env) {
			w := keyedWrites(e)[name]
			olivia := e.token("olivia")
			key := "key-" + strings.ReplaceAll(name, " ", "-")
			before := len(e.Activity(t))
			first := e.do(t, w.method, w.path, olivia, w.body, IdempotencyKeyHeader, key)
			require.Less(t, first.Code, 300, "%s", first.Body)
			assert.Empty(t, first.Header.Get(ReplayHeader))
			assert.Len(t, e.Activity(t), before+1)

			e.clock.Advance(time.Second) // a replay is the stored response, not a new one
			again := e.do(t, w.method, w.path, olivia, w.body, IdempotencyKeyHeader, key)
			assert.Equal(t, first.Code, again.Code)
			assert.Equal(t, string(first.Body), string(again.Body))
			assert.Equal(t, "true", again.Header.Get(ReplayHeader))
			assert.Equal(t, first.Header.Get("Location"), again.Header.Get("Location"))
			assert.Len(t, e.Activity(t), before+1, "acted once")
		})
	}
	each(t, "created job replays its Location", func(t *testing.T, e *env) {
		body := map[string]any{"title": "Located"}
		first := e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), body, IdempotencyKeyHeader, "loc")
		require.Equal(t, http.StatusCreated, first.Code)
		again := e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), body, IdempotencyKeyHeader, "loc")
		require.Equal(t, http.StatusCreated, again.Code)
		assert.Equal(t, jobPath(num(t, first.Data(t)["id"])), again.Header.Get("Location"))
	})
	each(t, "same key, another request", func(t *testing.T, e *env) {
		backend, ada := e.Res.Jobs["backend"], e.Res.Candidates["ada"]
		key := "key-create-job"
		createReplayed(t, e, key)
		before := len(e.Activity(t))
		for _, rq := range []struct {
			method, path string
			body         any
		}{
			{"POST", "/api/v1/jobs", map[string]any{"title": "Something else"}},
			{"POST", candidatePath(backend, ada) + "/notes", map[string]any{"content": "Only once."}},
			{"PATCH", jobPath(backend), map[string]any{"title": "Replayed", "description": "<p>once</p>"}},
		} {
			r := e.do(t, rq.method, rq.path, e.token("olivia"), rq.body, IdempotencyKeyHeader, key)
			requireValidation(t, r, IdempotencyKeyHeader)
		}
		// Another user of the team cannot use olivia's key either.
		r := e.do(t, "POST", "/api/v1/jobs", e.token("adam"), map[string]any{"title": "Replayed", "description": "<p>once</p>"},
			IdempotencyKeyHeader, key)
		requireValidation(t, r, IdempotencyKeyHeader)
		assert.Len(t, e.Activity(t), before)
	})
	each(t, "keys are scoped to the team", func(t *testing.T, e *env) {
		createReplayed(t, e, "key-scoped")
		r := e.do(t, "POST", "/api/v1/jobs", e.token("gary"), map[string]any{"title": "Replayed", "description": "<p>once</p>"},
			IdempotencyKeyHeader, "key-scoped")
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		assert.Empty(t, r.Header.Get(ReplayHeader))
	})
}

// TestAPI_Idempotency_Reencoded: the body of a retry is compared with the
// first as a JSON value (decisions §5).
func TestAPI_Idempotency_Reencoded(t *testing.T) {
	each(t, "a re-encoded body replays", func(t *testing.T, e *env) {
		// A proxy may re-encode JSON: other white space, other key order,
		// other escapes. The body is compared as a JSON value.
		olivia := e.token("olivia")
		first := e.do(t, "POST", "/api/v1/jobs", olivia, `{"title":"Proxied","description":"<p>x</p>"}`,
			IdempotencyKeyHeader, "proxied")
		require.Equal(t, http.StatusCreated, first.Code, "%s", first.Body)
		before := len(e.Activity(t))
		for _, body := range []string{
			`{ "description" : "<p>x</p>" , "title" : "Proxied" }`,
			"{\n  \"description\": \"\\u003cp\\u003ex\\u003c/p\\u003e\",\n  \"title\": \"Proxied\"\n}\n",
		} {
			again := e.do(t, "POST", "/api/v1/jobs", olivia, body, IdempotencyKeyHeader, "proxied")
			require.Equal(t, http.StatusCreated, again.Code, "%s", again.Body)
			assert.Equal(t, "true", again.Header.Get(ReplayHeader), body)
			assert.Equal(t, string(first.Body), string(again.Body))
		}
		assert.Len(t, e.Activity(t), before, "acted once")
		other := e.do(t, "POST", "/api/v1/jobs", olivia, `{"title":"Proxied","description":"<p>y</p>"}`,
			IdempotencyKeyHeader, "proxied")
		requireValidation(t, other, IdempotencyKeyHeader)
	})
	each(t, "a whole number in another spelling replays", func(t *testing.T, e *env) {
		// 3, 3.0 and 3e0 are one integer to the body's reading, and one
		// request to the key.
		olivia := e.token("olivia")
		stage := itoa(e.Res.Stages["backend"]["Interview"])
		first := e.do(t, "POST", adaStage(e), olivia, `{"stage":`+stage+`}`, IdempotencyKeyHeader, "spelt")
		require.Equal(t, http.StatusOK, first.Code, "%s", first.Body)
		for _, spelling := range []string{stage + ".0", stage + "0e-1"} {
			again := e.do(t, "POST", adaStage(e), olivia, `{"stage":`+spelling+`}`, IdempotencyKeyHeader, "spelt")
			require.Equal(t, http.StatusOK, again.Code, "%s", again.Body)
			assert.Equal(t, "true", again.Header.Get(ReplayHeader), spelling)
		}
		assert.Len(t, e.Activity(t), 1)
	})
}

func TestAPI_Idempotency_Keys(t *testing.T) {
	// A key bound to another request is judged after the record is found:
	// a record out of reach answers 404, not the key's 422, whether the key
	// is claimed with the record's read or on its own.
	each(t, "a bound key does not reveal a record out of reach", func(t *testing.T, e *env) {
		createReplayed(t, e, "bound")
		olivia := e.token("olivia")
		ops, ola := e.Res.Jobs["ops"], e.Res.Candidates["ola"]
		for _, w := range []struct{ method, path, body string }{
			{"POST", candidatePath(ops, ola) + "/notes", `{"content":"x"}`},
			{"POST", candidatePath(ops, ola) + "/stage", `{"stage":1}`},
			{"POST", candidatePath(ops, ola) + "/rating", `{"rating":3}`},
			{"PATCH", jobPath(ops), `{"title":"x"}`},
		} {
			r := e.do(t, w.method, w.path, olivia, w.body, IdempotencyKeyHeader, "bound")
			requireError(t, r, http.StatusNotFound, pipeline.ENotFound)
		}
	})
	each(t, "a failed call is not stored", func(t *testing.T, e *env) {
		olivia := e.token("olivia")
		r := e.do(t, "POST", "/api/v1/jobs", olivia, map[string]any{"title": ""}, IdempotencyKeyHeader, "retry-me")
		requireValidation(t, r, "title")
		r = e.do(t, "POST", "/api/v1/jobs", olivia, map[string]any{"title": "Fixed"}, IdempotencyKeyHeader, "retry-me")
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		assert.Empty(t, r.Header.Get(ReplayHeader))

		path := candidatePath(e.Res.Jobs["backend"], e.Res.Candidates["ken"]) + "/notes"
		r = e.do(t, "POST", path, olivia, map[string]any{"content": "x"}, IdempotencyKeyHeader, "retry-404")
		requireError(t, r, http.StatusNotFound, pipeline.ENotFound)
		r = e.do(t, "POST", path, olivia, map[string]any{"content": "x"}, IdempotencyKeyHeader, "retry-404")
		requireError(t, r, http.StatusNotFound, pipeline.ENotFound)
	})
	each(t, "invalid keys", func(t *testing.T, e *env) {
		before := len(e.Activity(t))
		for name, key := range map[string]string{
			"empty":     "",
			"too long":  strings.Repeat("k", 256),
			"non-ASCII": "clé",
			"control":   "a\tb",
		} {
			t.Run(name, func(t *testing.T) {
				r := e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), map[string]any{"title": "Keyed"}, IdempotencyKeyHeader, key)
				requireValidation(t, r, IdempotencyKeyHeader)
			})
		}
		assert.Len(t, e.Activity(t), before)
	})
	each(t, "the longest key", func(t *testing.T, e *env) {
		r := e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), map[string]any{"title": "Keyed"}, IdempotencyKeyHeader, strings.Repeat("k", 255))
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
	})
	each(t, "unchanged write replays without an activity entry", func(t *testing.T, e *env) {
		backend := e.Res.Jobs["backend"]
		before := len(e.Activity(t))
		body := map[string]any{"status": "open"}
		first := e.do(t, "PATCH", jobPath(backend), e.token("olivia"), body, IdempotencyKeyHeader, "noop")
		require.Equal(t, http.StatusOK, first.Code)
		again := e.do(t, "PATCH", jobPath(backend), e.token("olivia"), body, IdempotencyKeyHeader, "noop")
		assert.Equal(t, "true", again.Header.Get(ReplayHeader))
		assert.Equal(t, string(first.Body), string(again.Body))
		assert.Len(t, e.Activity(t), before)
	})
}
