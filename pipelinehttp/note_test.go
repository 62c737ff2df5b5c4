package pipelinehttp

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAPI_ListNotes(t *testing.T) {
	each(t, "newest first, as created, paginated", func(t *testing.T, e *env) {
		var created []any
		for i := range 16 {
			e.clock.Advance(1)
			r := e.do(t, "POST", graceNotes(e), e.token("mia"), map[string]any{"content": fmt.Sprintf("Note %d", i)})
			require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
			created = append([]any{r.Data(t)}, created...)
		}
		r := e.do(t, "GET", graceNotes(e), e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		body := r.Object(t)
		assert.Equal(t, created[:15], body["data"])
		assert.Equal(t, map[string]any{"current_page": 1.0, "last_page": 2.0, "per_page": 15.0, "total": 16.0}, body["meta"])
		next := body["links"].(map[string]any)["next"].(string)
		assert.Equal(t, "http://example.com"+graceNotes(e)+"?page=2", next)

		r = e.do(t, "GET", graceNotes(e)+"?page=2", e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.Equal(t, created[15:], r.Object(t)["data"])
	})
	each(t, "checks", func(t *testing.T, e *env) {
		requireValidation(t, e.do(t, "GET", graceNotes(e)+"?page=abc", e.token("olivia"), nil), "page")
		other := candidatePath(e.Res.Jobs["frontend"], e.Res.Candidates["grace"]) + "/notes"
		assert.Equal(t, http.StatusNotFound, e.do(t, "GET", other+"?page=abc", e.token("olivia"), nil).Code,
			"a candidate of another job is not found, before the page is read")
		assert.Equal(t, http.StatusForbidden, e.do(t, "GET", graceNotes(e), e.token("olivia_jobs_read"), nil).Code)
	})
}
