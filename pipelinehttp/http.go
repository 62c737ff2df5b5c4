// Package pipelinehttp serves the recruitment-pipeline API over HTTP with Gin.
//
// It translates and decides nothing: a handler decodes the request, calls one
// [pipeline.Service] method and renders the result; every failure is handed to
// a single error middleware that maps the error's code to an HTTP status. The
// caller found by the authentication middleware travels on the request's
// context (see [pipeline.NewContext]), so the Service sees the same caller an
// embedding Go program would supply.
//
// The operations are declared once, in the table operations: each
// resource's entries in its own file (job.go, candidate.go, …; assembled in
// operations.go) name the domain operation (pipeline.Op, which carries the
// scope, the method and the path), its parameters (path ids, query
// parameters and body fields, with their types and limits), its prose,
// the Service call and how the result renders. The table knows no face;
// each face reads it: the REST routes (rest.go), the MCP tools
// (mcp_tools.go), and the OpenAPI document (openapi_gen.go), generated from
// the table and the prose of openapi/overlay.yaml, which a test holds to
// the committed openapi.yaml. One reader fills an operation's input from an
// HTTP request or from a tool's arguments (input.go), recording what it
// could not read for the domain to answer in its check order. How to add
// an operation: see the code map of package pipeline.
//
// Each /api/ request passes, in order: tracing (when Config.TracerProvider
// is set), response headers, request id, access log, metrics (when
// Config.Metrics is set), panic recovery, error rendering, the request's
// deadline, then authentication and rate limiting.
package pipelinehttp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/otel/trace"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// Config configures the HTTP layer. The zero value is usable.
type Config struct {
	// BaseURL is where clients reach the server, used in pagination links
	// and the Location of a created job: a scheme and host, and a path when
	// a proxy serves the API below one, for example
	// "https://example.com/hiring". Empty: the request's own scheme (from
	// its TLS state; X-Forwarded-Proto is not trusted) and Host.
	BaseURL string
	// Logger receives the access log and the causes of internal errors. Nil:
	// nothing is logged. Tokens and the Authorization header are never logged.
	Logger *slog.Logger
	// TrustedProxies are the reverse proxies whose X-Forwarded-For header
	// is believed. The client IP, which the rate limit counts anonymous
	// requests by and the activity log records, is the nearest address of
	// that header's chain that is not a trusted proxy, read from the
	// socket peer back; a hop outside these prefixes ends the walk, so a
	// client cannot forge its address through an untrusted hop. Nil: none;
	// the client IP is the socket peer.
	TrustedProxies []netip.Prefix
	// Metrics, when set, is told of every request, rate-limit refusal and
	// idempotent replay.
	Metrics Metrics
	// TracerProvider, when set, traces every request below /api/ with
	// OpenTelemetry (a server span named after the method and route,
	// continuing the client's W3C traceparent), and the access log carries
	// the trace id. Nil: no tracing.
	TracerProvider trace.TracerProvider
	// RequestTimeout bounds each request, reading its body included: its
	// context's deadline, at which every wait for the database ends and the
	// request answers 503 unavailable (or 408 request_timeout while its
	// body has not arrived). Zero: DefaultRequestTimeout; negative: none.
	// A request whose context is cancelled with a cause matching
	// pipeline.ErrUnavailable (context.WithCancelCause), as a server that
	// stops cuts the requests it no longer waits for, answers 503 at once,
	// its body read included.
	RequestTimeout time.Duration
	// MaxDocumentBytes is the largest document file an upload takes; its
	// multipart body may be 64 KiB larger. Zero:
	// pipeline.DefaultMaxDocumentBytes. Other bodies keep MaxBodyBytes.
	MaxDocumentBytes int64
	// Stopping, once closed, makes /readyz answer 503 {"status":"stopping"}
	// so that load balancers send no more requests while the server drains
	// the ones in flight. Nil: never.
	Stopping <-chan struct{}
}

// DefaultRequestTimeout is the RequestTimeout of a zero Config.
const DefaultRequestTimeout = 10 * time.Second

// jsonContentType is the Content-Type of every response body.
const jsonContentType = "application/json; charset=utf-8"

// api holds what the handlers and middleware share.
type api struct {
	svc      *pipeline.Service
	baseURL  string // without a trailing slash
	basePath string // the path part of baseURL
	prefix   string // the path the API is mounted below, "" at the root
	apiPath  string // prefix + "/api/", below which requests are limited
	mcpPath  string // prefix + MCPPath
	log      *slog.Logger
	proxies  []string // trusted proxy prefixes, as Gin takes them
	metrics  Metrics
	tracer   trace.TracerProvider
	traced   gin.HandlerFunc // the tracing middleware, when tracer is set
	timeout  time.Duration   // of each request; 0: none
	// maxDocument is the largest document file an upload takes.
	maxDocument int64
	stopping    <-chan struct{}
}

func newAPI(svc *pipeline.Service, cfg Config, prefix string) *api {
	a := &api{
		svc:         svc,
		baseURL:     strings.TrimRight(cfg.BaseURL, "/"),
		prefix:      strings.TrimRight(prefix, "/"),
		log:         cfg.Logger,
		metrics:     cfg.Metrics,
		tracer:      cfg.TracerProvider,
		timeout:     max(cmp.Or(cfg.RequestTimeout, DefaultRequestTimeout), 0),
		stopping:    cfg.Stopping,
		maxDocument: cmp.Or(cfg.MaxDocumentBytes, pipeline.DefaultMaxDocumentBytes),
	}
	a.apiPath, a.mcpPath = a.prefix+"/api/", a.prefix+MCPPath
	for _, p := range cfg.TrustedProxies {
		a.proxies = append(a.proxies, p.Masked().String())
	}
	if a.tracer != nil {
		a.traced = a.tracing()
	}
	if u, err := url.Parse(a.baseURL); err == nil {
		a.basePath = u.EscapedPath()
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	return a
}

// New returns a Gin engine serving the API under /api/v1 (with its OpenAPI
// document at GET /api/v1/openapi.json, which needs no token), the
// people's pages under /app/ (see MountPages), /healthz
// (200 while the process is up) and /readyz (200 while the database
// answers, else 503), the probes to GET and HEAD. Unknown routes answer 404 not_found and known paths
// with the wrong method 405 method_not_allowed with an Allow header, both in
// the error envelope; below /api/ they are authenticated and rate-limited
// like any API request, and below /app/ they are pages. /favicon.ico is
// the pages' icon. The client IP is the socket peer unless
// cfg.TrustedProxies says otherwise.
//
// New writes nothing to stdout: unless the GIN_MODE environment variable
// asks for Gin's debug mode, it puts Gin in release mode, whose route
// listing would otherwise be printed.
func New(svc *pipeline.Service, cfg Config) *gin.Engine {
	a := newAPI(svc, cfg, "")
	e := a.engine()
	base := a.baseChain()
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		e.Handle(method, "/healthz", append(base, a.healthz)...)
		e.Handle(method, "/readyz", append(base, a.readyz)...)
	}
	p := newPages(svc, cfg, "")
	p.routes(e.Group("/app", base...))
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		e.Handle(method, "/favicon.ico", append(base, p.favicon)...)
	}
	// Below /app/, an unknown path or method is a page.
	e.NoRoute(append(base, a.apiOnly(a.guard), p.orPage(p.notFound, a.notFound))...)
	e.NoMethod(append(base, a.apiOnly(a.guard), p.orPage(p.methodNotAllowed, a.methodNotAllowed))...)
	return e
}

// Mount serves the API of New, /healthz and /readyz aside, below r: an
// engine or a route group of an existing Gin application, whose base path
// prefixes every path of the API. It behaves as New does there: unknown
// routes and wrong methods below that path's /api/ answer in the error
// envelope, and pagination links carry the path. It takes every method of
// r's /api/ path (r.Any("/api/*path")) and of its /mcp, the MCP face, so
// the application must not route anything else there.
func Mount(r gin.IRouter, svc *pipeline.Service, cfg Config) {
	prefix := ""
	if g, ok := r.(interface{ BasePath() string }); ok {
		prefix = g.BasePath()
	}
	e := gin.WrapH(newAPI(svc, cfg, prefix).engine())
	r.Any("/api/*path", e)
	r.Any(MCPPath, e)
}

// quietGin puts Gin in release mode unless GIN_MODE chose a mode, so that
// building the engine prints nothing.
func quietGin() {
	if os.Getenv(gin.EnvGinMode) == "" && gin.IsDebugging() {
		gin.SetMode(gin.ReleaseMode)
	}
}

// engine returns an engine with the API's routes below a.prefix and the
// envelopes for unknown routes and methods.
func (a *api) engine() *gin.Engine {
	quietGin()
	e := gin.New()
	e.HandleMethodNotAllowed = true
	// A trailing slash or a wrong case is an unknown route, not a redirect.
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	// Only X-Forwarded-For, and only from trusted proxies: X-Real-IP
	// names one address with no chain to check.
	e.RemoteIPHeaders = []string{"X-Forwarded-For"}
	_ = e.SetTrustedProxies(a.proxies) // prefixes of netip never fail to parse

	a.routes(e.Group(a.prefix + "/api/v1"))
	a.mountMCP(e)
	base := a.baseChain()
	e.NoRoute(append(base, a.apiOnly(a.guard), a.notFound)...)
	e.NoMethod(append(base, a.apiOnly(a.guard), a.methodNotAllowed)...)
	return e
}

// baseChain is the middleware every response passes through.
func (a *api) baseChain() []gin.HandlerFunc {
	var chain []gin.HandlerFunc
	if a.traced != nil {
		chain = append(chain, a.traced)
	}
	chain = append(chain, a.headers, a.requestID, a.accessLog)
	if a.metrics != nil {
		chain = append(chain, a.observe)
	}
	return append(chain, a.recovery(), a.errors, a.deadline)
}

// headers sets the headers of every response: browsers must not guess
// another type than the one sent, and no cache may keep an API response,
// which depends on the token and changes.
func (a *api) headers(c *gin.Context) {
	h := c.Writer.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	if a.limited(c) {
		h.Set("Cache-Control", "no-store")
	}
	c.Next()
}

// deadline gives the request's context its deadline (Config.RequestTimeout).
func (a *api) deadline(c *gin.Context) {
	if a.timeout <= 0 {
		c.Next()
		return
	}
	ctx, cancel := context.WithTimeout(c.Request.Context(), a.timeout)
	defer cancel()
	c.Request = c.Request.WithContext(ctx)
	c.Next()
}

// apiOnly runs h only for requests that are rate-limited (see limited).
func (a *api) apiOnly(h gin.HandlerFunc) gin.HandlerFunc {
	return func(c *gin.Context) {
		if a.limited(c) {
			h(c)
		}
	}
}

// limited reports whether a request is one the API authenticates and
// rate-limits: a path below the API's /api/, known or not, and the MCP
// face's. /healthz and /readyz are not.
func (a *api) limited(c *gin.Context) bool {
	p := c.Request.URL.Path
	return strings.HasPrefix(p, a.apiPath) || p == a.mcpPath
}

type healthBody struct {
	Status string `json:"status"`
}

// healthz reports that the process is up.
func (a *api) healthz(c *gin.Context) {
	probe(c, http.StatusOK, healthBody{Status: "ok"})
}

// readyz reports whether the server takes requests: not once it is
// stopping, and only while the database answers.
func (a *api) readyz(c *gin.Context) {
	select {
	case <-a.stopping:
		probe(c, http.StatusServiceUnavailable, healthBody{Status: "stopping"})
		return
	default:
	}
	ctx, cancel := context.WithTimeout(c.Request.Context(), 2*time.Second)
	defer cancel()
	if err := a.svc.Ping(ctx); err != nil {
		a.log.LogAttrs(ctx, slog.LevelWarn, "database not ready",
			slog.String("request_id", requestIDOf(c)), slog.String("error", err.Error()))
		probe(c, http.StatusServiceUnavailable, healthBody{Status: "unavailable"})
		return
	}
	probe(c, http.StatusOK, healthBody{Status: "ok"})
}

// probe answers a probe: with the body to GET, with the status and headers
// alone to HEAD.
func probe(c *gin.Context, status int, body healthBody) {
	if c.Request.Method == http.MethodHead {
		c.Status(status)
		return
	}
	respond(c, status, body)
}

// encode renders v as a JSON body. HTML is not escaped: descriptions are HTML
// and read better as sent. The same value always gives the same bytes, which
// idempotent replays rely on.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// respond writes v as the JSON body of a successful response.
func respond(c *gin.Context, status int, v any) {
	body, err := encode(v)
	if err != nil {
		fail(c, err)
		return
	}
	c.Data(status, jsonContentType, body)
}

// data is the single-object envelope.
type data[T any] struct {
	Data T `json:"data"`
}
