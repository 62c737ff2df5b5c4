package pipelinehttp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// testGinMode keeps Gin from printing its debug lines during tests.
var testGinMode sync.Once

// testClock is a settable clock shared by the Service and the rate limiter.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newTestClock(now time.Time) *testClock { return &testClock{now: now.UTC()} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// env is a seeded database served by a real engine.
type env struct {
	storetest.Fixture
	clock *testClock
	logs  *syncBuffer
	h     http.Handler
}

// envOption adjusts the Config of an env, or its Service's limiter, before
// its engine is built.
type envOption func(*envConfig)

type envConfig struct {
	Config
	limiter pipeline.Limiter
}

// withLimiter serves the env with a Service counting requests with l.
func withLimiter(l pipeline.Limiter) envOption { return func(c *envConfig) { c.limiter = l } }

// newEnv seeds the fixture world on db and serves it with a budget large
// enough that only the rate-limit tests meet the limit. The clock stands at
// the whole second the test started, so the fixture's tokens are live.
func newEnv(t testing.TB, db *pipelinestore.DB, opts ...envOption) *env {
	t.Helper()
	testGinMode.Do(func() { gin.SetMode(gin.TestMode) })
	clock := newTestClock(time.Now().Truncate(time.Second))
	logs := &syncBuffer{}
	cfg := envConfig{Config: Config{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))},
		limiter: pipeline.NewMemoryLimiter(100000)}
	for _, o := range opts {
		o(&cfg)
	}
	e := &env{Fixture: storetest.Seeded(t, db, pipeline.WithClock(clock), pipeline.WithSecretKey(testSecretKey),
		pipeline.WithWebhookPolicy(localWebhooks), pipeline.WithLimiter(cfg.limiter)), clock: clock, logs: logs}
	e.h = New(e.Svc, cfg.Config)
	return e
}

// token returns the value of a fixture token.
func (e *env) token(key string) string { return e.Res.Tokens[key] }

// tokenID resolves a fixture token to its id.
func (e *env) tokenID(t *testing.T, key string) int64 {
	t.Helper()
	c, err := e.Svc.Authenticate(context.Background(), e.token(key))
	require.NoError(t, err)
	return c.TokenID()
}

// do sends a request to e's engine; see request.
func (e *env) do(t *testing.T, method, path, token string, body any, hdr ...string) *Response {
	t.Helper()
	return do(t, e.h, method, path, token, body, hdr...)
}

// Response is a recorded response with its body decoded.
type Response struct {
	Code   int
	Header http.Header
	Body   []byte
	JSON   any // the decoded body; nil when empty
}

// remoteAddr is a pseudo-header for do: it sets the request's socket peer.
const remoteAddr = ":remote-addr"

var (
	timestampRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)
	dateRE      = regexp.MustCompile(`^\d{4}-\d\d-\d\d$`)
)

// do is the one way the tests send requests. token "" sends no
// Authorization header; body nil sends none, a string or []byte is sent as
// is, anything else as JSON. hdr are header name/value pairs (remoteAddr
// sets the client address). Every response is checked for what the API
// promises of all responses, first against the OpenAPI document, then: a
// sane X-Request-Id, JSON bodies with the JSON
// Content-Type, the rate-limit headers below /api/, and the error envelope
// on every error.
func do(t *testing.T, h http.Handler, method, path, token string, body any, hdr ...string) *Response {
	t.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		var err error
		raw, err = json.Marshal(b)
		require.NoError(t, err)
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	require.Zero(t, len(hdr)%2, "header pairs")
	for i := 0; i < len(hdr); i += 2 {
		if hdr[i] == remoteAddr {
			req.RemoteAddr = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return serve(t, h, req, raw)
}

// serve serves req, whose body is raw, on h and checks the response as do
// does.
func serve(t *testing.T, h http.Handler, req *http.Request, raw []byte) *Response {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)

	r := &Response{Code: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
	checkResponse(t, unmounted(req), raw, r.Code, r.Header, r.Body)
	assert.Regexp(t, `^[A-Za-z0-9._-]{1,128}$`, r.Header.Get(RequestIDHeader), "X-Request-Id")
	if len(r.Body) > 0 {
		assert.Equal(t, jsonContentType, r.Header.Get("Content-Type"))
		require.NoError(t, json.Unmarshal(r.Body, &r.JSON), "body %s", r.Body)
	}
	assert.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"))
	if strings.HasPrefix(unmounted(req).URL.Path, "/api/") {
		for _, name := range []string{HeaderRateLimit, HeaderRateRemaining, HeaderRateReset} {
			assert.Regexp(t, `^\d+$`, r.Header.Get(name), name)
		}
		assert.Equal(t, "no-store", r.Header.Get("Cache-Control"))
	}
	if r.Code >= 400 && req.URL.Path != "/readyz" {
		checkErrorEnvelope(t, r)
	}
	if r.Code == http.StatusServiceUnavailable && req.URL.Path != "/readyz" {
		assert.Equal(t, pipeline.EUnavailable, r.ErrorCode())
		assert.Equal(t, "2", r.Header.Get(HeaderRetryAfter))
	}
	return r
}

// testMount is where the tests mount the API inside another Gin
// application (see TestMount).
const testMount = "/hiring"

// unmounted returns req with testMount cut off its path, so that a mounted
// API's responses are checked against the document's paths.
func unmounted(req *http.Request) *http.Request {
	path, ok := strings.CutPrefix(req.URL.Path, testMount+"/api/")
	if !ok {
		return req
	}
	r := req.Clone(req.Context())
	r.URL.Path = "/api/" + path
	r.RequestURI = r.URL.RequestURI()
	return r
}

// checkErrorEnvelope checks {error:{code,message,details}} with details null
// except for validation_failed and insufficient_scope, and a conflict of a
// double-booked interview (its busy times alone).
func checkErrorEnvelope(t *testing.T, r *Response) {
	t.Helper()
	obj := r.Object(t)
	if !assert.Equal(t, []string{"error"}, keys(obj), "error envelope %s", r.Body) {
		return
	}
	e, ok := obj["error"].(map[string]any)
	require.True(t, ok, "error object %s", r.Body)
	assert.Equal(t, []string{"code", "details", "message"}, keys(e))
	assert.IsType(t, "", e["message"])
	switch e["code"] {
	case pipeline.EValidation, pipeline.EInsufficientScope:
		assert.IsType(t, map[string]any{}, e["details"], "details of %s", e["code"])
	case pipeline.EConflict:
		if e["details"] != nil {
			assert.Equal(t, []string{"busy"}, keys(e["details"].(map[string]any)), "details of a conflict")
		}
	default:
		assert.Nil(t, e["details"], "details of %s", e["code"])
	}
}

// Object is the body as a JSON object.
func (r *Response) Object(t *testing.T) map[string]any {
	t.Helper()
	m, ok := r.JSON.(map[string]any)
	require.True(t, ok, "body is not an object: %s", r.Body)
	return m
}

// Data is the object under "data".
func (r *Response) Data(t *testing.T) map[string]any {
	t.Helper()
	m, ok := r.Object(t)["data"].(map[string]any)
	require.True(t, ok, "data is not an object: %s", r.Body)
	return m
}

// Items is the array under "data", each element an object.
func (r *Response) Items(t *testing.T) []map[string]any {
	t.Helper()
	arr, ok := r.Object(t)["data"].([]any)
	require.True(t, ok, "data is not an array: %s", r.Body)
	out := make([]map[string]any, 0, len(arr))
	for _, v := range arr {
		m, ok := v.(map[string]any)
		require.True(t, ok, "element is not an object: %s", r.Body)
		out = append(out, m)
	}
	return out
}

// IDs are the ids of the elements under "data".
func (r *Response) IDs(t *testing.T) []int64 {
	t.Helper()
	var ids []int64
	for _, it := range r.Items(t) {
		ids = append(ids, num(t, it["id"]))
	}
	return ids
}

// ErrorCode is error.code, "" when the body is no error envelope.
func (r *Response) ErrorCode() string {
	m, _ := r.JSON.(map[string]any)
	e, _ := m["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

// Details is error.details as an object (nil when null).
func (r *Response) Details(t *testing.T) map[string]any {
	t.Helper()
	e, _ := r.Object(t)["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	return d
}

// requireError checks the status and the error code.
func requireError(t *testing.T, r *Response, status int, code string) {
	t.Helper()
	require.Equal(t, status, r.Code, "body %s", r.Body)
	require.Equal(t, code, r.ErrorCode(), "body %s", r.Body)
}

// requireValidation checks a 422 whose details name exactly fields.
func requireValidation(t *testing.T, r *Response, fields ...string) {
	t.Helper()
	requireError(t, r, http.StatusUnprocessableEntity, pipeline.EValidation)
	d := r.Details(t)
	slices.Sort(fields)
	require.Equal(t, fields, keys(d), "details %s", r.Body)
	for _, f := range fields {
		msgs, ok := d[f].([]any)
		require.True(t, ok && len(msgs) > 0, "details.%s holds messages: %s", f, r.Body)
	}
}

// keys returns the sorted keys of m.
func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// sorted returns the names sorted, for comparing with keys.
func sorted(names ...string) []string {
	slices.Sort(names)
	return names
}

// num reads a JSON number as an int64.
func num(t *testing.T, v any) int64 {
	t.Helper()
	f, ok := v.(float64)
	require.True(t, ok, "%v is not a number", v)
	return int64(f)
}

// syncBuffer is a bytes.Buffer safe for a log handler and a test to share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// eachEnv runs fn on a freshly seeded env on every database. Subtests of fn
// share that env, so they may only read it: a case that writes, or needs
// what another wrote, is a case of each.
func eachEnv(t *testing.T, fn func(t *testing.T, e *env), opts ...envOption) {
	t.Helper()
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		fn(t, newEnv(t, db, opts...))
	})
}

// each runs fn as subtest name, once per database, each time on a freshly
// seeded env, so that every leaf test stands alone: what a case needs
// written first, it writes itself.
func each(t *testing.T, name string, fn func(t *testing.T, e *env), opts ...envOption) {
	t.Helper()
	t.Run(name, func(t *testing.T) { eachEnv(t, fn, opts...) })
}

// eachStore runs fn as each does, and again with documents' bytes in an
// S3 store (storetest.EachStore).
func eachStore(t *testing.T, name string, fn func(t *testing.T, e *env), opts ...envOption) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		storetest.EachStore(t, func(t *testing.T, db *pipelinestore.DB) { fn(t, newEnv(t, db, opts...)) })
	})
}

// jobPath and friends build API paths from ids.
func jobPath(id int64) string { return "/api/v1/jobs/" + itoa(id) }

func candidatePath(job, cand int64) string { return jobPath(job) + "/candidates/" + itoa(cand) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// urlQuery escapes s for a query string.
func urlQuery(s string) string { return url.QueryEscape(s) }

// nilIfEmpty makes an empty list of ids nil, for comparing with a nil want.
func nilIfEmpty(ids []int64) []int64 {
	if len(ids) == 0 {
		return nil
	}
	return ids
}
