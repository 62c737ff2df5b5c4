package pipelinehttp

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/doctext/doctexttest"
)

// TestAPI_PrivacyCheckOrder: the privacy endpoints answer authentication,
// the rate limit, the scope, the team role, then the body, in that order.
func TestAPI_PrivacyCheckOrder(t *testing.T) {
	paths := []string{"/api/v1/privacy/exports", "/api/v1/privacy/erasures"}
	bad := map[string]any{"email": "", "reason": " "}
	each(t, "401, 403 scope, 403 role, 422", func(t *testing.T, e *env) {
		for _, path := range paths {
			requireError(t, e.do(t, http.MethodPost, path, "", bad), http.StatusUnauthorized, "unauthenticated")
			r := e.do(t, http.MethodPost, path, e.token("olivia_jobs_read"), bad)
			requireError(t, r, http.StatusForbidden, "insufficient_scope")
			assert.Equal(t, "privacy:manage", r.Details(t)["required_scope"])
			requireError(t, e.do(t, http.MethodPost, path, e.token("mia"), bad), http.StatusForbidden, "forbidden")
			requireError(t, e.do(t, http.MethodPost, path, e.token("olivia"), bad), http.StatusUnprocessableEntity, "validation_failed")
		}
		requireValidation(t, e.do(t, http.MethodPost, paths[1], e.token("olivia"), bad), "email", "reason")
	})
	each(t, "429 before the scope and the role", func(t *testing.T, e *env) {
		for _, path := range paths {
			for range 2 {
				e.do(t, http.MethodGet, "/api/v1/me", e.token("mia"), nil)
			}
			requireError(t, e.do(t, http.MethodPost, path, e.token("mia"), bad), http.StatusTooManyRequests, "rate_limited")
			e.clock.Advance(pipeline.RateWindow)
		}
	}, withLimiter(pipeline.NewMemoryLimiter(2)))
}

func TestAPI_PrivacyErasure(t *testing.T) {
	each(t, "an export, an erasure, an export of nothing", func(t *testing.T, e *env) {
		ada := e.Res.Candidates["ada"]
		x := e.do(t, http.MethodPost, "/api/v1/privacy/exports", e.token("olivia"), map[string]any{"email": "ADA@example.test"})
		require.Equal(t, http.StatusOK, x.Code, string(x.Body))
		cands := x.Data(t)["candidates"].([]any)
		require.Len(t, cands, 1)
		assert.Equal(t, "Ada Lovelace", cands[0].(map[string]any)["candidate"].(map[string]any)["name"])

		r := e.do(t, http.MethodPost, "/api/v1/privacy/erasures", e.token("olivia"),
			map[string]any{"email": "ada@example.test", "reason": "Asked to be forgotten."}, "Idempotency-Key", "erase-ada")
		require.Equal(t, http.StatusOK, r.Code, string(r.Body))
		assert.Equal(t, []any{float64(ada)}, r.Data(t)["candidate_ids"])

		got := e.do(t, http.MethodGet, candidatePath(e.Job("backend"), ada), e.token("olivia"), nil)
		assert.Equal(t, "Erased candidate", got.Data(t)["name"])
		assert.NotEmpty(t, got.Data(t)["erased_at"])

		x = e.do(t, http.MethodPost, "/api/v1/privacy/exports", e.token("olivia"), map[string]any{"email": "ada@example.test"})
		assert.Empty(t, x.Data(t)["candidates"])
		again := e.do(t, http.MethodPost, "/api/v1/privacy/erasures", e.token("olivia"),
			map[string]any{"email": "ada@example.test", "reason": "Again."})
		assert.Equal(t, []any{}, again.Data(t)["candidate_ids"])
	})
}

func TestAPI_PrivacyExportDocuments(t *testing.T) {
	each(t, "each document as the API shows it, with its text", func(t *testing.T, e *env) {
		up := e.upload(t, graceDocuments(e), e.token("mia"), nil, part{name: "file", filename: "cv.txt", content: []byte("Grace Hopper, compilers.")})
		require.Equal(t, http.StatusCreated, up.Code, "%s", up.Body)
		cv := num(t, up.Data(t)["id"])
		e.extract(t, cv)
		up = e.upload(t, graceDocuments(e), e.token("mia"), nil, part{name: "file", filename: "me.png", content: doctexttest.PNG()})
		require.Equal(t, http.StatusCreated, up.Code, "%s", up.Body)
		photo := num(t, up.Data(t)["id"])

		x := e.do(t, http.MethodPost, "/api/v1/privacy/exports", e.token("olivia"), map[string]any{"email": "grace@example.test"})
		require.Equal(t, http.StatusOK, x.Code, string(x.Body))
		cands := x.Data(t)["candidates"].([]any)
		require.Len(t, cands, 1)
		docs := cands[0].(map[string]any)["documents"].([]any)
		require.Len(t, docs, 2, "newest first")
		for i, want := range []struct {
			id   int64
			text any
		}{{photo, nil}, {cv, "Grace Hopper, compilers."}} {
			got := docs[i].(map[string]any)
			read := e.do(t, http.MethodGet, graceDocuments(e)+"/"+itoa(want.id), e.token("olivia"), nil).Data(t)
			for k, v := range read {
				assert.Equal(t, v, got[k], "%s as GET …/documents/%d shows it", k, want.id)
			}
			assert.Equal(t, want.text, got["text"])
			assert.Equal(t, false, got["truncated"])
			assert.Len(t, got, len(read)+2, "the document, its text and truncated")
		}
	})
}

func TestAPI_PrivacyErasureReplays(t *testing.T) {
	each(t, "a key of a write about the person replays the record as it reads after the erasure", func(t *testing.T, e *env) {
		cand := candidatePath(e.Job("backend"), e.Res.Candidates["ada"])
		file := part{name: "file", filename: "Augusta King CV.txt", content: []byte("Notes on the analytical engine.")}
		upload := func() *Response {
			return e.upload(t, cand+"/documents", e.token("olivia"), []string{"Idempotency-Key", "upload-ada"}, file)
		}
		rate := func() *Response {
			return e.do(t, http.MethodPost, cand+"/rating", e.token("olivia"), map[string]any{"rating": "good_fit"}, "Idempotency-Key", "rate-ada")
		}
		up := upload()
		require.Equal(t, http.StatusCreated, up.Code, string(up.Body))
		r := rate()
		require.Equal(t, http.StatusOK, r.Code, string(r.Body))

		r = e.do(t, http.MethodPost, "/api/v1/privacy/erasures", e.token("olivia"),
			map[string]any{"email": "ada@example.test", "reason": "Asked to be forgotten."})
		require.Equal(t, http.StatusOK, r.Code, string(r.Body))

		// The document and the rating went with her: their keys answer so,
		// and say nothing of them.
		for name, r := range map[string]*Response{"upload": upload(), "rating": rate()} {
			requireError(t, r, http.StatusNotFound, "not_found")
			assert.NotContains(t, string(r.Body), "Augusta", name)
			assert.NotContains(t, string(r.Body), "good_fit", name)
			assert.Empty(t, r.Header.Get(ReplayHeader), name)
		}
	})
}
