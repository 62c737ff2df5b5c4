package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/pipeline-dev/pipeline/pipelinehttp"
)

// logAddr is the address of the first log line of serve with message msg.
func (s *Server) logAddr(msg string) string {
	s.t.Helper()
	for _, l := range jsonLines(s.t, s.stderr.String()) {
		if l["msg"] == msg {
			return l["addr"].(string)
		}
	}
	s.t.Fatalf("no %q log line:\n%s", msg, s.stderr)
	return ""
}

// TestServe_Metrics scrapes /metrics after requests of each kind: the
// request counter by route, method and status, the latency histogram, the
// requests in flight, rate-limit refusals, idempotent replays, the
// database pools and the Go runtime; the profiler is there too.
func TestServe_Metrics(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		m.env["PIPELINE_METRICS_ADDR"] = "127.0.0.1:0"
		m.env["PIPELINE_RATE_LIMIT"] = "3"
		m.Seed("testdata/seed.json")
		tok := m.CreateToken("olivia@acme.test", "writer", "jobs:write")
		srv := m.Serve()
		metrics := "http://" + srv.logAddr("metrics listening")

		status, _ := srv.Do("GET", "/api/v1/me", tok.Token, "")
		require.Equal(t, http.StatusOK, status)
		for range 2 { // the second replays the first
			resp := srv.Request("POST", "/api/v1/jobs", tok.Token, `{"title":"Metered"}`, "Idempotency-Key", "metered-1")
			resp.Body.Close()
			require.Equal(t, http.StatusCreated, resp.StatusCode)
		}
		status, _ = srv.Do("GET", "/api/v1/me", tok.Token, "")
		require.Equal(t, http.StatusTooManyRequests, status, "a budget of 3")
		status, _ = srv.Do("GET", "/api/v1/nowhere", "", "")
		require.Equal(t, http.StatusUnauthorized, status)
		status, _ = srv.Do("HEAD", "/readyz", "", "")
		require.Equal(t, http.StatusOK, status)

		resp, err := http.Get(metrics + "/metrics")
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		scrape := string(body)
		t.Logf("scrape excerpt:\n%s", excerpt(scrape, "pipeline_", "go_sql_open_connections", "go_goroutines "))
		pool := map[string]string{"sqlite": "sqlite_readers", "postgres": "postgres"}[m.dialect(t)]
		for _, want := range []string{
			`pipeline_http_requests_total{method="GET",route="/api/v1/me",status="200"} 1`,
			`pipeline_http_requests_total{method="GET",route="/api/v1/me",status="429"} 1`,
			`pipeline_http_requests_total{method="POST",route="/api/v1/jobs",status="201"} 2`,
			`pipeline_http_requests_total{method="GET",route="unmatched",status="401"} 1`,
			`pipeline_http_requests_total{method="HEAD",route="/readyz",status="200"} 1`,
			`pipeline_http_request_duration_seconds_count{method="POST",route="/api/v1/jobs"} 2`,
			`pipeline_http_request_duration_seconds_bucket{method="GET",route="/api/v1/me",le="+Inf"} 2`,
			"pipeline_http_requests_in_flight 0",
			`pipeline_idempotent_replays_total{route="/api/v1/jobs"} 1`,
			`pipeline_rate_limited_total{bucket="user",route="/api/v1/me"} 1`,
			`go_sql_max_open_connections{db_name="` + pool + `"}`,
			"go_goroutines ",
			"process_resident_memory_bytes ",
		} {
			assert.Contains(t, scrape, want)
		}

		resp, err = http.Get(metrics + "/debug/pprof/")
		require.NoError(t, err)
		body, err = io.ReadAll(resp.Body)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Contains(t, string(body), "goroutine")
		status, _ = srv.Do("GET", "/metrics", "", "")
		assert.Equal(t, http.StatusNotFound, status, "not on the API's listener")
	})
}

// excerpt is the lines of a scrape that start with one of prefixes.
func excerpt(scrape string, prefixes ...string) string {
	var b strings.Builder
	for line := range strings.Lines(scrape) {
		for _, p := range prefixes {
			if strings.HasPrefix(line, p) {
				b.WriteString(line)
				break
			}
		}
	}
	return b.String()
}

// dialect is the kind of m's database.
func (m *Main) dialect(t *testing.T) string {
	if strings.HasPrefix(m.env["PIPELINE_DB"], "postgres") {
		return "postgres"
	}
	return "sqlite"
}

// TestServe_Tracing: each request is exported as a server span, continuing
// the client's trace, with a child span per query, and the access log
// carries the request and trace ids.
func TestServe_Tracing(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		seeded := m.Seed("testdata/seed.json")
		tok := m.CreateToken("olivia@acme.test", "reader", "jobs:read")
		exp := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
		var logs bytes.Buffer
		var logMu sync.Mutex
		o := &observability{log: slog.New(slog.NewJSONHandler(&lockedWriter{w: &logs, mu: &logMu}, nil)), tracer: tp}
		cfg, err := loadConfig(m.getenv)
		require.NoError(t, err)
		e := env{cfg: cfg, getenv: m.getenv, stderr: io.Discard}
		db, err := openServedStore(context.Background(), e, o)
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		srv := httptest.NewServer(pipelinehttp.New(servedService(e, db), apiConfig(e, o, db, nil)))
		t.Cleanup(srv.Close)

		const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
		job := "/api/v1/jobs/" + itoa(seeded.Jobs["backend"])
		for _, path := range []string{job, job + "/stages"} {
			req, err := http.NewRequest("GET", srv.URL+path, nil)
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+tok.Token)
			req.Header.Set("traceparent", parent)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
		}
		health, err := http.Get(srv.URL + "/healthz")
		require.NoError(t, err)
		health.Body.Close()
		require.Equal(t, http.StatusOK, health.StatusCode)

		spans := exp.GetSpans()
		var servers []tracetest.SpanStub
		children := map[trace.SpanID]int{}
		for _, s := range spans {
			if s.SpanKind == trace.SpanKindServer {
				servers = append(servers, s)
				continue
			}
			children[s.Parent.SpanID()]++
			assert.True(t, hasAttr(s.Attributes, "db.statement"), "a query span: %s", s.Name)
			for _, a := range s.Attributes {
				assert.NotContains(t, a.Value.Emit(), tok.Token[4:12], "no argument values in spans")
			}
		}
		require.Len(t, servers, 2, "a span per request; the probes are not traced")
		assert.Equal(t, "GET /api/v1/jobs/:job", servers[0].Name)
		assert.Equal(t, "GET /api/v1/jobs/:job/stages", servers[1].Name)
		logMu.Lock()
		logged := logs.String()
		logMu.Unlock()
		for _, s := range servers {
			assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", s.SpanContext.TraceID().String(), "the client's trace")
			assert.GreaterOrEqual(t, children[s.SpanContext.SpanID()], 1, "query spans under %s", s.Name)
			assert.Contains(t, logged, `"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"`+s.SpanContext.SpanID().String()+`"`)
		}
		for _, s := range spans {
			if s.SpanKind != trace.SpanKindServer && s.Parent.IsValid() {
				p := s.Parent.SpanID()
				assert.True(t, p == servers[0].SpanContext.SpanID() || p == servers[1].SpanContext.SpanID(),
					"a query span is a request's child or a root (startup, background): %s %v", s.Name, s.Attributes)
			}
		}
		assert.Regexp(t, `"request_id":"[0-9a-f]{32}","trace_id"`, logged)
	})
}

func hasAttr(attrs []attribute.KeyValue, key string) bool {
	for _, a := range attrs {
		if string(a.Key) == key {
			return true
		}
	}
	return false
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestServe_OTLP: with OTEL_EXPORTER_OTLP_ENDPOINT set, serve exports its
// spans over OTLP/HTTP, flushing them when it stops; without it, it
// exports nothing.
func TestServe_OTLP(t *testing.T) {
	var mu sync.Mutex
	var names []string
	var service string
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
			http.Error(w, "bad export", http.StatusBadRequest)
			return
		}
		mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, a := range rs.Resource.Attributes {
				if a.Key == "service.name" {
					service = a.Value.GetStringValue()
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					names = append(names, s.Name)
				}
			}
		}
		mu.Unlock()
		b, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(b)
	}))
	defer collector.Close()

	m := newMain(t, t.TempDir()+"/pipeline.db")
	m.Seed("testdata/seed.json")
	tok := m.CreateToken("olivia@acme.test", "reader", "jobs:read")

	srv := m.Serve()
	status, _ := srv.Do("GET", "/api/v1/me", tok.Token, "")
	require.Equal(t, http.StatusOK, status)
	require.NoError(t, srv.Stop())
	assert.NotContains(t, srv.stderr.String(), `"msg":"tracing"`, "off without the variables")

	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL) // the exporter reads the process's environment
	m.env["OTEL_EXPORTER_OTLP_ENDPOINT"] = collector.URL
	srv = m.Serve()
	status, _ = srv.Do("GET", "/api/v1/me", tok.Token, "")
	require.Equal(t, http.StatusOK, status)
	require.NoError(t, srv.Stop())

	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, names, "GET /api/v1/me")
	assert.Greater(t, len(names), 1, "and the queries: %v", names)
	assert.Equal(t, "pipelined", service)
	var line map[string]any
	require.NoError(t, json.Unmarshal([]byte(strings.SplitN(srv.stderr.String(), "\n", 2)[0]), &line))
	assert.Equal(t, "tracing", line["msg"])
}
