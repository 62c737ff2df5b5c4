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

func TestAPI_Idempotency(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		backend, ada := e.Res.Jobs["backend"], e.Res.Candidates["ada"]
		olivia := e.token("olivia")
		writes := []struct {
			name, method, path string
			body               any
		}{
			{"create job", "POST", "/api/v1/jobs", map[string]any{"title": "Replayed", "description": "<p>once</p>"}},
			{"update job", "PATCH", jobPath(backend), map[string]any{"title": "Backend Lead"}},
			{"move candidate", "POST", candidatePath(backend, ada) + "/stage", map[string]any{"stage": e.Res.Stages["backend"]["Interview"]}},
			{"add note", "POST", candidatePath(backend, ada) + "/notes", map[string]any{"content": "Only once."}},
			{"rate candidate", "POST", candidatePath(backend, ada) + "/rating", map[string]any{"rating": "good_fit"}},
		}
		for _, w := range writes {
			t.Run(w.name+" replays", func(t *testing.T) {
				key := "key-" + strings.ReplaceAll(w.name, " ", "-")
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
		t.Run("created job replays its Location", func(t *testing.T) {
			body := map[string]any{"title": "Located"}
			first := e.do(t, "POST", "/api/v1/jobs", olivia, body, IdempotencyKeyHeader, "loc")
			require.Equal(t, http.StatusCreated, first.Code)
			again := e.do(t, "POST", "/api/v1/jobs", olivia, body, IdempotencyKeyHeader, "loc")
			require.Equal(t, http.StatusCreated, again.Code)
			assert.Equal(t, jobPath(num(t, first.Data(t)["id"])), again.Header.Get("Location"))
		})
		t.Run("same key, another request", func(t *testing.T) {
			key := "key-create-job"
			before := len(e.Activity(t))
			for _, rq := range []struct {
				method, path string
				body         any
			}{
				{"POST", "/api/v1/jobs", map[string]any{"title": "Something else"}},
				{"POST", candidatePath(backend, ada) + "/notes", map[string]any{"content": "Only once."}},
				{"PATCH", jobPath(backend), map[string]any{"title": "Replayed", "description": "<p>once</p>"}},
			} {
				r := e.do(t, rq.method, rq.path, olivia, rq.body, IdempotencyKeyHeader, key)
				requireValidation(t, r, IdempotencyKeyHeader)
			}
			// Another user of the team cannot use olivia's key either.
			r := e.do(t, "POST", "/api/v1/jobs", e.token("adam"), map[string]any{"title": "Replayed", "description": "<p>once</p>"},
				IdempotencyKeyHeader, key)
			requireValidation(t, r, IdempotencyKeyHeader)
			assert.Len(t, e.Activity(t), before)
		})
		t.Run("keys are scoped to the team", func(t *testing.T) {
			r := e.do(t, "POST", "/api/v1/jobs", e.token("gary"), map[string]any{"title": "Replayed", "description": "<p>once</p>"},
				IdempotencyKeyHeader, "key-create-job")
			require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
			assert.Empty(t, r.Header.Get(ReplayHeader))
		})
		t.Run("a failed call is not stored", func(t *testing.T) {
			r := e.do(t, "POST", "/api/v1/jobs", olivia, map[string]any{"title": ""}, IdempotencyKeyHeader, "retry-me")
			requireValidation(t, r, "title")
			r = e.do(t, "POST", "/api/v1/jobs", olivia, map[string]any{"title": "Fixed"}, IdempotencyKeyHeader, "retry-me")
			require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
			assert.Empty(t, r.Header.Get(ReplayHeader))

			path := candidatePath(backend, e.Res.Candidates["ken"]) + "/notes"
			r = e.do(t, "POST", path, olivia, map[string]any{"content": "x"}, IdempotencyKeyHeader, "retry-404")
			requireError(t, r, http.StatusNotFound, pipeline.ENotFound)
			r = e.do(t, "POST", path, olivia, map[string]any{"content": "x"}, IdempotencyKeyHeader, "retry-404")
			requireError(t, r, http.StatusNotFound, pipeline.ENotFound)
		})
		t.Run("invalid keys", func(t *testing.T) {
			before := len(e.Activity(t))
			for name, key := range map[string]string{
				"empty":     "",
				"too long":  strings.Repeat("k", 256),
				"non-ASCII": "clé",
				"control":   "a\tb",
			} {
				t.Run(name, func(t *testing.T) {
					r := e.do(t, "POST", "/api/v1/jobs", olivia, map[string]any{"title": "Keyed"}, IdempotencyKeyHeader, key)
					requireValidation(t, r, IdempotencyKeyHeader)
				})
			}
			assert.Len(t, e.Activity(t), before)
			r := e.do(t, "POST", "/api/v1/jobs", olivia, map[string]any{"title": "Keyed"}, IdempotencyKeyHeader, strings.Repeat("k", 255))
			require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		})
		t.Run("unchanged write replays without an activity entry", func(t *testing.T) {
			before := len(e.Activity(t))
			body := map[string]any{"status": "open"}
			first := e.do(t, "PATCH", jobPath(backend), olivia, body, IdempotencyKeyHeader, "noop")
			require.Equal(t, http.StatusOK, first.Code)
			again := e.do(t, "PATCH", jobPath(backend), olivia, body, IdempotencyKeyHeader, "noop")
			assert.Equal(t, "true", again.Header.Get(ReplayHeader))
			assert.Equal(t, string(first.Body), string(again.Body))
			assert.Len(t, e.Activity(t), before)
		})
	})
}
