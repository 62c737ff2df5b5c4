package pipelinehttp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// Error codes that only the transport produces.
const (
	// CodePayloadTooLarge reports a request body over MaxBodyBytes.
	CodePayloadTooLarge = "payload_too_large"
	// CodeMethodNotAllowed reports a known path asked with another method.
	CodeMethodNotAllowed = "method_not_allowed"
	// CodeRequestTimeout reports a request body that did not arrive in
	// time: before the server's read deadline or the request's deadline.
	CodeRequestTimeout = "request_timeout"
	// CodeBadRequest reports a request that is not well-formed HTTP: a
	// body that ends before its declared length, or what Go's server
	// refuses before the API sees it (see Listener).
	CodeBadRequest = "bad_request"
	// CodeRangeNotSatisfiable reports a download's Range that asks for no
	// byte of the document.
	CodeRangeNotSatisfiable = "range_not_satisfiable"
)

// UnavailableRetryAfter is the Retry-After of a 503 unavailable: the
// database did not answer, or the server is stopping. A retry of a write
// should send the same Idempotency-Key.
const UnavailableRetryAfter = 2 * time.Second

// faceStatus are the HTTP statuses of the codes only this face answers
// (a body too large, a method no route has); the domain's codes are
// pipeline.ErrorAnswer's.
var faceStatus = map[string]int{
	CodePayloadTooLarge:      http.StatusRequestEntityTooLarge,
	CodeMethodNotAllowed:     http.StatusMethodNotAllowed,
	CodeRequestTimeout:       http.StatusRequestTimeout,
	CodeBadRequest:           http.StatusBadRequest,
	CodeUnsupportedMediaType: http.StatusUnsupportedMediaType,
	CodeRangeNotSatisfiable:  http.StatusRequestedRangeNotSatisfiable,
}

var (
	errNotFound         = &pipeline.Error{Code: pipeline.ENotFound, Message: "Not found."}
	errMethodNotAllowed = &pipeline.Error{Code: CodeMethodNotAllowed, Message: "Method not allowed."}
	errPayloadTooLarge  = &pipeline.Error{Code: CodePayloadTooLarge, Message: "The request body may not be larger than 1 MiB."}
	errRequestTimeout   = &pipeline.Error{Code: CodeRequestTimeout, Message: "The request body did not arrive in time."}
	errBodyIncomplete   = &pipeline.Error{Code: CodeBadRequest, Message: "The request body ended before it was complete."}
	// Content-Range says the document's size.
	errRangeNotSatisfiable = &pipeline.Error{Code: CodeRangeNotSatisfiable, Message: "The range asks for no byte of the document."}
)

// errors is the middleware that turns the error a handler or a later
// middleware recorded with c.Error into the response.
func (a *api) errors(c *gin.Context) {
	c.Next()
	if len(c.Errors) == 0 {
		return
	}
	err := c.Errors.Last().Err
	if c.Writer.Written() {
		a.logCause(c, slog.LevelError, "error after the response was written", err)
		return
	}
	a.writeError(c, err)
}

// writeError writes err as the response: a *pipeline.Error in the envelope
// with the status of its code, anything else as a generic server_error
// whose cause goes to the log only.
func (a *api) writeError(c *gin.Context, err error) {
	status, env, internal := envelopeOf(err)
	if level, msg, ok := failureLog(env.Error.Code, internal); ok {
		a.logCause(c, level, msg, err)
	}
	if env.Error.Code == pipeline.EUnavailable {
		c.Header(HeaderRetryAfter, strconv.Itoa(int(UnavailableRetryAfter/time.Second)))
	}
	if errors.Is(err, pipeline.ErrTextPending) {
		c.Header(HeaderRetryAfter, strconv.Itoa(int(pipeline.TextRetryAfter/time.Second)))
	}
	a.holdOff(c, env.Error.Code)
	if f := pipeline.Fields(err); f[pipeline.IdempotencyField] != nil {
		env.Error.Details = headerNamed(f)
	}
	if env.Error.Code == pipeline.EUnauthenticated {
		c.Header("WWW-Authenticate", "Bearer")
	}
	body, encErr := encode(env)
	if encErr != nil {
		a.logCause(c, slog.LevelError, "cannot encode error", encErr)
		body = []byte(`{"error":{"code":"server_error","message":"Server error.","details":null}}`)
		status = http.StatusInternalServerError
	}
	c.Data(status, jsonContentType, body)
	c.Abort()
}

// envelopeOf is the error envelope of err and the HTTP status of its code,
// the one rendering of errors that every face of the API shares. An error
// that is not a *pipeline.Error, or whose code the table lacks, is a
// generic server_error: internal reports it, for the caller to log its
// cause.
func envelopeOf(err error) (status int, env pipeline.ErrorEnvelope, internal bool) {
	if status, ok := faceStatus[pipeline.ErrorCode(err)]; ok {
		return status, pipeline.ErrorEnvelope{Error: pipeline.ErrorObject{Code: pipeline.ErrorCode(err), Message: pipeline.ErrorMessage(err)}}, false
	}
	return pipeline.ErrorAnswer(err)
}

// headerNamed is field details with the idempotency key named as HTTP
// carries it, in its header.
func headerNamed(f pipeline.FieldErrors) pipeline.FieldErrors {
	out := maps.Clone(f)
	out[IdempotencyKeyHeader] = out[pipeline.IdempotencyField]
	delete(out, pipeline.IdempotencyField)
	return out
}

func (a *api) logCause(c *gin.Context, level slog.Level, msg string, err error) {
	a.logRequestCause(c.Request.Context(), level, msg, requestIDOf(c), c.Request.Method, loggedPath(c.Request.URL.Path), err)
}

// logRequestCause logs err with the request it failed.
func (a *api) logRequestCause(ctx context.Context, level slog.Level, msg, requestID, method, path string, err error, attrs ...slog.Attr) {
	attrs = append([]slog.Attr{
		slog.String("request_id", requestID),
		slog.String("method", method),
		slog.String("path", path),
	}, attrs...)
	a.log.LogAttrs(ctx, level, msg, append(attrs, slog.String("error", err.Error()))...)
}

// failureLog is whether and how an error answered to a client is logged:
// a server error's cause as an error; unavailable as a warning, since the
// client may retry soon and the cause is the operator's; nothing else,
// since the client's mistakes are the client's to see.
func failureLog(code string, internal bool) (level slog.Level, msg string, ok bool) {
	switch {
	case internal:
		return slog.LevelError, "server error", true
	case code == pipeline.EUnavailable:
		return slog.LevelWarn, "unavailable", true
	}
	return 0, "", false
}

// recovery answers a panic with the server_error envelope; the process keeps
// serving. The panic value goes to the log, never to the client.
func (a *api) recovery() gin.HandlerFunc {
	return gin.CustomRecoveryWithWriter(nil, func(c *gin.Context, rec any) {
		err := fmt.Errorf("panic: %v\n%s", rec, debug.Stack())
		if c.Writer.Written() {
			a.logCause(c, slog.LevelError, "panic after the response was written", err)
			c.Abort()
			return
		}
		a.writeError(c, err)
	})
}

// notFound answers unknown routes.
func (a *api) notFound(c *gin.Context) { fail(c, errNotFound) }

// methodNotAllowed answers a known path asked with another method; Gin has
// set the Allow header.
func (a *api) methodNotAllowed(c *gin.Context) { fail(c, errMethodNotAllowed) }

// fail hands err to the error middleware, which alone chooses the status.
func fail(c *gin.Context, err error) {
	_ = c.Error(err)
	c.Abort()
}
