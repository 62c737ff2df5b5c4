package pipelinehttp

import (
	"net/http"
	"testing"

	"github.com/pipeline-dev/pipeline/pipeline"

	"github.com/stretchr/testify/assert"
)

// TestAPI_InputMessages: a value that cannot be read says what would be
// right: an enum names its values, a body that is not JSON says so.
func TestAPI_InputMessages(t *testing.T) {
	each(t, "an enum names its values", func(t *testing.T, e *env) {
		olivia := e.token("olivia")
		rating := candidatePath(e.Res.Jobs["backend"], e.Res.Candidates["ada"]) + "/rating"
		ratings := "good_fit, maybe, not_a_fit"
		for body, want := range map[string]string{
			`{"rating":"x"}`: "The rating must be one of " + ratings + ".",
			`{"rating":7}`:   "The rating field must be one of " + ratings + ".",
		} {
			r := e.do(t, "POST", rating, olivia, body)
			requireValidation(t, r, "rating")
			assert.Equal(t, []any{want}, r.Details(t)["rating"], body)
		}
		job := jobPath(e.Res.Jobs["backend"])
		for body, want := range map[string]string{
			`{"status":"x"}`: "The status must be one of open, draft, closed.",
			`{"status":7}`:   "The status field must be one of open, draft, closed.",
		} {
			r := e.do(t, "PATCH", job, olivia, body)
			requireValidation(t, r, "status")
			assert.Equal(t, []any{want}, r.Details(t)["status"], body)
		}
		for _, query := range []string{"x", ""} {
			r := e.do(t, "GET", "/api/v1/jobs?status="+query, olivia, nil)
			requireValidation(t, r, "status")
			assert.Equal(t, []any{"The status must be one of open, draft, closed."}, r.Details(t)["status"], query)
		}
	})
	each(t, "a body that is not JSON, or not an object", func(t *testing.T, e *env) {
		for body, want := range map[string]string{
			`{"a":`:   "The body is not valid JSON.",
			`"title"`: "The body must be a JSON object.",
			`[1]`:     "The body must be a JSON object.",
		} {
			r := e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), body)
			assert.Equal(t, http.StatusUnprocessableEntity, r.Code, body)
			assert.Equal(t, []any{want}, r.Details(t)["body"], body)
		}
	})
	each(t, "a delete's body is answered after its record", func(t *testing.T, e *env) {
		hook := createWebhook(t, e, "olivia", map[string]any{"url": "https://hooks.example.test/kept"})
		olivia := e.token("olivia")
		requireError(t, e.do(t, "DELETE", "/api/v1/webhooks/999999", olivia, `{"a":1}`), http.StatusNotFound, pipeline.ENotFound)
		requireValidation(t, e.do(t, "DELETE", "/api/v1/webhooks/"+itoa(hook.id), olivia, `{"a":1}`), "a")
		assert.Equal(t, http.StatusOK, e.do(t, "GET", "/api/v1/webhooks/"+itoa(hook.id), olivia, nil).Code, "not deleted")
	})
}
