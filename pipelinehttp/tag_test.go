package pipelinehttp

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// createTag creates a tag of the token's team, which must succeed, and
// returns its id.
func createTag(t *testing.T, e *env, token, name string) int64 {
	t.Helper()
	r := e.do(t, "POST", "/api/v1/tags", e.token(token), map[string]any{"name": name})
	require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
	return num(t, r.Data(t)["id"])
}

func TestAPI_CreateTag(t *testing.T) {
	each(t, "created, refused", func(t *testing.T, e *env) {
		r := e.do(t, "POST", "/api/v1/tags", e.token("adam"), map[string]any{"name": " Visa ", "reason": "Sponsorship cases."})
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		id := num(t, r.Data(t)["id"])
		assert.Equal(t, map[string]any{"id": float64(id), "name": "Visa"}, r.Data(t))

		requireError(t, e.do(t, "POST", "/api/v1/tags", e.token("olivia"), map[string]any{"name": "VISA"}), http.StatusUnprocessableEntity, pipeline.EValidation)
		requireError(t, e.do(t, "POST", "/api/v1/tags", e.token("olivia"), map[string]any{"name": 5}), http.StatusUnprocessableEntity, pipeline.EValidation)
		requireError(t, e.do(t, "POST", "/api/v1/tags", e.token("mia"), map[string]any{"name": "Remote"}), http.StatusForbidden, pipeline.EForbidden)
		requireError(t, e.do(t, "POST", "/api/v1/tags", e.token("olivia_candidates_read"), map[string]any{"name": "Remote"}), http.StatusForbidden, pipeline.EInsufficientScope)

		log := e.Activity(t)
		require.NotEmpty(t, log)
		last := log[len(log)-1]
		assert.Equal(t, pipeline.ActionTagCreated, last.Action)
		assert.Equal(t, pipeline.SubjectTag, last.SubjectType)
	})
}

func TestAPI_ListTags(t *testing.T) {
	each(t, "oldest first, not paged", func(t *testing.T, e *env) {
		empty := e.do(t, "GET", "/api/v1/tags", e.token("mia"), nil)
		require.Equal(t, http.StatusOK, empty.Code, "%s", empty.Body)
		assert.JSONEq(t, `{"data": []}`, string(empty.Body))
		b, a := createTag(t, e, "olivia", "Beta"), createTag(t, e, "adam", "alpha")
		r := e.do(t, "GET", "/api/v1/tags", e.token("olivia_candidates_read"), nil)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.JSONEq(t, `{"data": [{"id": `+itoa(b)+`, "name": "Beta"}, {"id": `+itoa(a)+`, "name": "alpha"}]}`, string(r.Body))
		requireError(t, e.do(t, "GET", "/api/v1/tags", e.token("olivia_jobs_read"), nil), http.StatusForbidden, pipeline.EInsufficientScope)
	})
}

func TestAPI_RenameTag(t *testing.T) {
	each(t, "renamed, refused", func(t *testing.T, e *env) {
		visa, remote := createTag(t, e, "olivia", "Visa"), createTag(t, e, "olivia", "Remote")
		path := "/api/v1/tags/" + itoa(visa)
		r := e.do(t, "PATCH", path, e.token("adam"), map[string]any{"name": "Work permit"})
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.Equal(t, map[string]any{"id": float64(visa), "name": "Work permit"}, r.Data(t))

		requireError(t, e.do(t, "PATCH", "/api/v1/tags/"+itoa(remote), e.token("olivia"), map[string]any{"name": "work PERMIT"}), http.StatusUnprocessableEntity, pipeline.EValidation)
		requireError(t, e.do(t, "PATCH", path, e.token("olivia"), map[string]any{}), http.StatusUnprocessableEntity, pipeline.EValidation)
		requireError(t, e.do(t, "PATCH", path, e.token("gary"), map[string]any{"name": "Mine"}), http.StatusNotFound, pipeline.ENotFound)
		requireError(t, e.do(t, "PATCH", "/api/v1/tags/0", e.token("olivia"), map[string]any{"name": "Mine"}), http.StatusNotFound, pipeline.ENotFound)
		requireError(t, e.do(t, "PATCH", path, e.token("mia"), map[string]any{"name": "Mine"}), http.StatusForbidden, pipeline.EForbidden)
	})
}

func TestAPI_DeleteTag(t *testing.T) {
	each(t, "deleted, then gone", func(t *testing.T, e *env) {
		visa := createTag(t, e, "olivia", "Visa")
		path := "/api/v1/tags/" + itoa(visa)
		requireError(t, e.do(t, "DELETE", path, e.token("mia"), nil), http.StatusForbidden, pipeline.EForbidden)
		requireError(t, e.do(t, "DELETE", path, e.token("gary"), nil), http.StatusNotFound, pipeline.ENotFound)
		requireError(t, e.do(t, "DELETE", path, e.token("olivia"), map[string]any{"name": "x"}), http.StatusUnprocessableEntity, pipeline.EValidation)
		r := e.do(t, "DELETE", path, e.token("adam"), map[string]any{"reason": "Unused."})
		require.Equal(t, http.StatusNoContent, r.Code, "%s", r.Body)
		assert.Empty(t, r.Body)
		requireError(t, e.do(t, "DELETE", path, e.token("olivia"), nil), http.StatusNotFound, pipeline.ENotFound)
		list := e.do(t, "GET", "/api/v1/tags", e.token("olivia"), nil)
		assert.JSONEq(t, `{"data": []}`, string(list.Body))
	})
}

func TestAPI_TagCandidate(t *testing.T) {
	each(t, "tagged with the candidate's answer, refused", func(t *testing.T, e *env) {
		visa := createTag(t, e, "olivia", "Visa")
		path := candidatePath(e.Job("backend"), e.Res.Candidates["ada"]) + "/tags"
		r := e.do(t, "POST", path, e.token("mia"), map[string]any{"tag_id": visa})
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.Equal(t, float64(e.Res.Candidates["ada"]), r.Data(t)["id"])
		before := len(e.Activity(t))
		again := e.do(t, "POST", path, e.token("olivia"), map[string]any{"tag_id": visa})
		require.Equal(t, http.StatusOK, again.Code, "%s", again.Body)
		assert.Len(t, e.Activity(t), before, "no entry")

		requireError(t, e.do(t, "POST", path, e.token("olivia"), map[string]any{}), http.StatusUnprocessableEntity, pipeline.EValidation)
		requireError(t, e.do(t, "POST", path, e.token("olivia"), map[string]any{"tag_id": "visa"}), http.StatusUnprocessableEntity, pipeline.EValidation)
		requireError(t, e.do(t, "POST", path, e.token("olivia"), map[string]any{"tag_id": 999999}), http.StatusUnprocessableEntity, pipeline.EValidation)
		requireError(t, e.do(t, "POST", path, e.token("nina"), map[string]any{"tag_id": visa}), http.StatusNotFound, pipeline.ENotFound)
		requireError(t, e.do(t, "POST", path, e.token("olivia_candidates_read"), map[string]any{"tag_id": visa}), http.StatusForbidden, pipeline.EInsufficientScope)
	})
}

func TestAPI_UntagCandidate(t *testing.T) {
	each(t, "untagged, absent too; a tag out of reach is 404", func(t *testing.T, e *env) {
		visa := createTag(t, e, "olivia", "Visa")
		tags := candidatePath(e.Job("backend"), e.Res.Candidates["ada"]) + "/tags"
		require.Equal(t, http.StatusOK, e.do(t, "POST", tags, e.token("olivia"), map[string]any{"tag_id": visa}).Code)
		for range 2 {
			r := e.do(t, "DELETE", tags+"/"+itoa(visa), e.token("mia"), nil)
			require.Equal(t, http.StatusNoContent, r.Code, "%s", r.Body)
			assert.Empty(t, r.Body)
		}
		requireError(t, e.do(t, "DELETE", tags+"/999999", e.token("olivia"), nil), http.StatusNotFound, pipeline.ENotFound)
		requireError(t, e.do(t, "DELETE", tags+"/"+itoa(visa), e.token("nina"), nil), http.StatusNotFound, pipeline.ENotFound)
		requireError(t, e.do(t, "DELETE", tags+"/"+itoa(visa), e.token("olivia"), map[string]any{"tag_id": visa}), http.StatusUnprocessableEntity, pipeline.EValidation)
	})
}
