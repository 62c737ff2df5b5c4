package pipelinehttp

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The tests here drive the real engine into the answers that clients and
// proxies found missing from the document. Every response goes through do,
// which fails the test unless the document allows it for its operation.

// fillJobLimit creates jobs on the token's team until the plan's job limit
// refuses one with 403 forbidden, and returns how many it created.
func fillJobLimit(t *testing.T, e *env, token string) int {
	t.Helper()
	for n := 0; n < 100; n++ {
		r := e.do(t, "POST", "/api/v1/jobs", token, map[string]any{"title": fmt.Sprintf("Filler %02d", n)})
		if r.Code == http.StatusForbidden {
			requireError(t, r, http.StatusForbidden, pipeline.EForbidden)
			return n
		}
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
	}
	t.Fatal("the team's job limit never refused a job")
	return 0
}

func TestOpenAPIContract_UpdateJob_ReopenOverJobLimit(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		olivia := e.token("olivia")
		archive := jobPath(e.Job("archive")) // closed
		// acme allows 20 jobs that are not closed and starts with 3.
		require.Equal(t, 17, fillJobLimit(t, e, olivia))
		before := len(e.Activity(t))

		for _, body := range []map[string]any{
			{"status": "open"},
			{"status": "draft"},
			{"status": "open", "title": "Old Role, reopened"},
		} {
			r := e.do(t, "PATCH", archive, olivia, body)
			requireError(t, r, http.StatusForbidden, pipeline.EForbidden)
			assert.Nil(t, r.Details(t))
		}
		r := e.do(t, "GET", archive, olivia, nil)
		require.Equal(t, http.StatusOK, r.Code)
		assert.Equal(t, "closed", r.Data(t)["status"])
		assert.Equal(t, "Old Role", r.Data(t)["title"], "nothing of a refused PATCH is applied")
		assert.Len(t, e.Activity(t), before)

		// A closed job takes no place, so other changes to it go through.
		r = e.do(t, "PATCH", archive, olivia, map[string]any{"title": "Old Role (archived)"})
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)

		// Closing a job frees the place that reopening takes.
		r = e.do(t, "PATCH", jobPath(e.Job("design")), olivia, map[string]any{"status": "closed"})
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		r = e.do(t, "PATCH", archive, olivia, map[string]any{"status": "open"})
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.Equal(t, "open", r.Data(t)["status"])
	})
}

func TestOpenAPIContract_JobWrites_InsufficientScope(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		readOnly := e.token("olivia_jobs_read")
		for _, tc := range []struct {
			method, path string
			body         map[string]any
		}{
			{"POST", "/api/v1/jobs", map[string]any{"title": "Data Engineer"}},
			{"PATCH", jobPath(e.Job("backend")), map[string]any{"status": "closed"}},
			{"PATCH", jobPath(e.Job("archive")), map[string]any{"status": "open"}},
		} {
			r := e.do(t, tc.method, tc.path, readOnly, tc.body)
			requireError(t, r, http.StatusForbidden, pipeline.EInsufficientScope)
			assert.Equal(t, map[string]any{"required_scope": "jobs:write"}, r.Details(t), "%s %s", tc.method, tc.path)
		}
	})
}
