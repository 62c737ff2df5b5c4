package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

func TestMount(t *testing.T) {
	gin.SetMode(gin.TestMode)
	db := storetest.OpenSQLite(t)
	svc := pipeline.NewService(db, pipeline.WithLimiter(db.Limiter(pipeline.DefaultRateLimit)))
	seed := storetest.Seed(t, pipeline.NewOperator(db))
	srv := httptest.NewServer(app(svc))
	defer srv.Close()

	get := func(path, token string) (*http.Response, string) {
		req, err := http.NewRequestWithContext(context.Background(), "GET", srv.URL+path, nil)
		require.NoError(t, err)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, string(body)
	}

	resp, body := get("/", "")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "host application", body, "the host keeps its own routes")

	resp, body = get("/hiring/api/v1/me", seed.Tokens["olivia"])
	assert.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, `"email":"olivia@acme.test"`)
	assert.Equal(t, "host-app", resp.Header.Get("X-Served-By"), "the host's middleware runs in front of the API")
	assert.Equal(t, "59", resp.Header.Get("X-RateLimit-Remaining"))

	resp, body = get("/hiring/api/v1/jobs", "")
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.JSONEq(t, `{"error":{"code":"unauthenticated","message":"Unauthenticated.","details":null}}`, body)

	resp, _ = get("/api/v1/me", seed.Tokens["olivia"])
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "the API lives only under the host's group")
}
