package pipelinehttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestPages_RequestLog: no path that holds a sign-in link's secret reaches
// the server's log, whatever the method: it is logged as
// /app/sign-in/[secret]. Every other page request is in the request log
// like an API request.
func TestPages_RequestLog(t *testing.T) {
	var logs bytes.Buffer
	f := storetest.Seeded(t, storetest.OpenSQLite(t))
	h := pipelinehttp.New(f.Svc, pipelinehttp.Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	secret, err := f.Op.SignInLink(context.Background(), "olivia@acme.test")
	require.NoError(t, err)

	do := func(method, path string) int {
		res := httptest.NewRecorder()
		h.ServeHTTP(res, httptest.NewRequest(method, path, nil))
		return res.Code
	}
	// requestLine is the request log's line of the last request.
	requestLine := func(t *testing.T) map[string]any {
		t.Helper()
		var last map[string]any
		for line := range strings.Lines(logs.String()) {
			var l map[string]any
			require.NoError(t, json.Unmarshal([]byte(line), &l), line)
			if l["msg"] == "request" {
				last = l
			}
		}
		require.NotNil(t, last, "no request line in the log:\n%s", logs.String())
		logs.Reset()
		return last
	}

	for _, method := range []string{http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete, http.MethodGet, http.MethodPost} {
		for _, path := range []string{"/app/sign-in/" + secret, "/app/sign-in/" + secret + "/more"} {
			t.Run(method+" "+strings.Replace(path, secret, "secret", 1), func(t *testing.T) {
				logs.Reset()
				status := do(method, path)
				assert.NotContains(t, logs.String(), secret, "the secret is in the log")
				l := requestLine(t)
				assert.Equal(t, method, l["method"])
				assert.Equal(t, "/app/sign-in/[secret]", l["path"])
				assert.Equal(t, float64(status), l["status"])
			})
		}
	}

	t.Run("mounted below a path", func(t *testing.T) {
		e := gin.New()
		pipelinehttp.MountPages(e.Group("/hiring"), f.Svc, pipelinehttp.Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
		for path, logged := range map[string]string{
			"/hiring/app/sign-in/" + secret: "/hiring/app/sign-in/[secret]",
			"/hiring/app/sign-in":           "/hiring/app/sign-in",
		} {
			logs.Reset()
			e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil))
			assert.NotContains(t, logs.String(), secret)
			assert.Equal(t, logged, requestLine(t)["path"])
		}
	})

	for _, c := range []struct {
		method, path string
		status       int
	}{
		{http.MethodGet, "/app/sign-in", http.StatusOK},
		{http.MethodGet, "/app/tokens", http.StatusSeeOther},
		{http.MethodGet, "/app/static/app.css", http.StatusOK},
		{http.MethodPost, "/app/tokens", http.StatusForbidden},
	} {
		t.Run("logged "+c.method+" "+c.path, func(t *testing.T) {
			logs.Reset()
			require.Equal(t, c.status, do(c.method, c.path))
			l := requestLine(t)
			assert.Equal(t, c.method, l["method"])
			assert.Equal(t, c.path, l["path"])
			assert.Equal(t, float64(c.status), l["status"])
			assert.NotEmpty(t, l["request_id"])
		})
	}
}
