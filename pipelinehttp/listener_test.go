package pipelinehttp

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// TestListener_Malformed: what Go's server refuses before the API sees it
// is answered in the error envelope, over a real connection.
func TestListener_Malformed(t *testing.T) {
	logs := &syncBuffer{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: New(pipeline.NewService(nil), Config{}), MaxHeaderBytes: 1 << 10}
	go func() { _ = srv.Serve(Listener(ln, slog.New(slog.NewTextHandler(logs, nil)))) }()
	t.Cleanup(func() { _ = srv.Close() })

	for name, tc := range map[string]struct {
		request string
		status  int
		code    string
	}{
		"NUL in Authorization":      {"GET /api/v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer plt_\x00\r\n\r\n", 400, "bad_request"},
		"control character":         {"GET /api/v1/me HTTP/1.1\r\nHost: x\r\nX-Request-Id: a\x01b\r\n\r\n", 400, "bad_request"},
		"no Host":                   {"GET /healthz HTTP/1.1\r\n\r\n", 400, "bad_request"},
		"malformed request line":    {"GET\r\n\r\n", 400, "bad_request"},
		"header fields too large":   {"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 16<<10) + "\r\n\r\n", 431, "request_header_fields_too_large"},
		"unknown transfer encoding": {"POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "not_implemented"},
		"unknown expectation":       {"POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nExpect: coffee\r\nContent-Length: 2\r\n\r\n{}", 417, "expectation_failed"},
		"unknown HTTP version":      {"GET /healthz HTTP/2.5\r\nHost: x\r\n\r\n", 505, "http_version_not_supported"},
	} {
		t.Run(name, func(t *testing.T) {
			resp := rawExchange(t, ln.Addr().String(), tc.request)
			assert.Equal(t, tc.status, resp.StatusCode)
			assert.Equal(t, jsonContentType, resp.Header.Get("Content-Type"))
			assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))
			assert.True(t, saneRequestID(resp.Header.Get(RequestIDHeader)))
			assert.True(t, resp.Close, "the connection closes, as Go closes it")
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			var env struct {
				Error struct {
					Code, Message string
					Details       any
				}
			}
			require.NoError(t, json.Unmarshal(body, &env), "%s", body)
			assert.Equal(t, tc.code, env.Error.Code)
			assert.NotEmpty(t, env.Error.Message)
			assert.Nil(t, env.Error.Details)
			assert.JSONEq(t, `{"error":{"code":"`+tc.code+`","message":"`+env.Error.Message+`","details":null}}`, string(body))
			assert.Contains(t, logs.String(), "malformed request")
		})
	}

	t.Run("a well-formed request passes", func(t *testing.T) {
		resp := rawExchange(t, ln.Addr().String(), "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.JSONEq(t, `{"status":"ok"}`, string(body))
	})
}

// rawExchange writes request on a fresh connection to addr and reads the
// response.
func rawExchange(t *testing.T, addr, request string) *http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	_, err = io.WriteString(conn, request)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}
