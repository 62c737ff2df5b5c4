package pipelinehttp_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestPages_Errors: errors below /app/ are pages too: an unknown path is a
// 404 page, not JSON, and so is /app/static/, which lists nothing; a
// known path asked with another method is a 405 page. The favicon is
// served.
func TestPages_Errors(t *testing.T) {
	f := storetest.Seeded(t, storetest.OpenSQLite(t))
	h := pipelinehttp.New(f.Svc, pipelinehttp.Config{})
	do := func(method, path string) *httptest.ResponseRecorder {
		res := httptest.NewRecorder()
		h.ServeHTTP(res, httptest.NewRequest(method, path, nil))
		return res
	}

	for _, path := range []string{"/app/nonexistent", "/app/tokens/x/y", "/app/static/", "/app/static", "/app/static/nothing.css", "/app/static/../templates/layout.html"} {
		t.Run("not found "+path, func(t *testing.T) {
			res := do(http.MethodGet, path)
			assert.Equal(t, http.StatusNotFound, res.Code)
			assert.Equal(t, "text/html; charset=utf-8", res.Header().Get("Content-Type"))
			assert.Contains(t, res.Body.String(), "<h1>Page not found</h1>")
			assert.NotContains(t, res.Body.String(), `href="app.css"`, "no listing of the static files")
			assert.Contains(t, res.Header().Get("Content-Security-Policy"), "frame-ancestors 'none'")
		})
	}

	t.Run("wrong method", func(t *testing.T) {
		res := do(http.MethodPut, "/app/tokens")
		assert.Equal(t, http.StatusMethodNotAllowed, res.Code)
		assert.Equal(t, "text/html; charset=utf-8", res.Header().Get("Content-Type"))
		assert.Contains(t, res.Body.String(), "<h1>Not allowed</h1>")
		assert.Contains(t, res.Header().Get("Allow"), http.MethodGet)
	})

	t.Run("static file", func(t *testing.T) {
		res := do(http.MethodGet, "/app/static/app.css")
		assert.Equal(t, http.StatusOK, res.Code)
		assert.Contains(t, res.Header().Get("Content-Type"), "text/css")
	})

	t.Run("favicon", func(t *testing.T) {
		for _, path := range []string{"/favicon.ico", "/app/static/favicon.ico"} {
			res := do(http.MethodGet, path)
			assert.Equal(t, http.StatusOK, res.Code, path)
			assert.Equal(t, "image/x-icon", res.Header().Get("Content-Type"), path)
			assert.Equal(t, "\x00\x00\x01\x00", res.Body.String()[:4], "an icon file")
		}
		page := do(http.MethodGet, "/app/sign-in")
		assert.Contains(t, page.Body.String(), `<link rel="icon" href="/app/static/favicon.ico">`)
	})

	t.Run("the API's envelope is kept", func(t *testing.T) {
		res := do(http.MethodGet, "/api/v1/nonexistent")
		assert.Equal(t, http.StatusUnauthorized, res.Code)
		assert.Contains(t, res.Header().Get("Content-Type"), "application/json")
		res = do(http.MethodGet, "/nonexistent")
		assert.Equal(t, http.StatusNotFound, res.Code)
		assert.Contains(t, res.Header().Get("Content-Type"), "application/json")
	})
}
