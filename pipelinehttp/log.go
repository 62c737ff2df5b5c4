package pipelinehttp

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/otel/trace"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// RequestIDHeader carries the id of a request in both directions.
const RequestIDHeader = "X-Request-Id"

// requestIDKey is where the request id is kept on the gin.Context for the
// log lines of the request.
const requestIDKey = "pipelinehttp.request_id"

// saneRequestID reports whether a client's request id may be echoed: 1–128
// characters of [A-Za-z0-9._-], so it cannot inject anything into headers or
// log lines.
func saneRequestID(id string) bool {
	if len(id) < 1 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		b := id[i]
		ok := b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' ||
			b == '.' || b == '_' || b == '-'
		if !ok {
			return false
		}
	}
	return true
}

func newRequestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand does not fail on supported platforms
	return hex.EncodeToString(b)
}

// requestID echoes the client's X-Request-Id when it is sane, else makes one.
func (a *api) requestID(c *gin.Context) {
	id := c.GetHeader(RequestIDHeader)
	if !saneRequestID(id) {
		id = newRequestID()
	}
	c.Set(requestIDKey, id)
	c.Header(RequestIDHeader, id)
	c.Next()
}

func requestIDOf(c *gin.Context) string { return c.GetString(requestIDKey) }

// secretPath is what a log says of a sign-in link's secret.
const secretPath = "[secret]"

// loggedPath is a request's path as logs may hold it: what follows
// /app/sign-in/ is a link's secret, which signs in whoever reads it, and
// is logged as [secret] whatever the method and the answer.
func loggedPath(path string) string {
	if i := strings.Index(path, pipeline.SignInPath); i >= 0 && len(path) > i+len(pipeline.SignInPath) {
		return path[:i+len(pipeline.SignInPath)] + secretPath
	}
	return path
}

// accessLog writes one line per request: method, path without the query
// (which could carry anything), status, duration, client IP, request id,
// the trace id when the request is traced and, once authenticated, the
// user id. Headers are never logged, so neither is a token.
func (a *api) accessLog(c *gin.Context) {
	start := time.Now()
	span := trace.SpanContextFromContext(c.Request.Context())
	c.Next()
	attrs := []slog.Attr{
		slog.String("method", c.Request.Method),
		slog.String("path", loggedPath(c.Request.URL.Path)),
		slog.Int("status", c.Writer.Status()),
		slog.Duration("duration", time.Since(start)),
		slog.String("ip", c.ClientIP()),
		slog.String("request_id", requestIDOf(c)),
	}
	if span.HasTraceID() {
		attrs = append(attrs, slog.String("trace_id", span.TraceID().String()), slog.String("span_id", span.SpanID().String()))
	}
	if caller, ok := pipeline.CallerFrom(c.Request.Context()); ok {
		attrs = append(attrs, slog.Int64("user_id", caller.User().ID))
	}
	a.log.LogAttrs(c.Request.Context(), slog.LevelInfo, "request", attrs...)
}
