package main

import (
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// promMetrics exports what pipelinehttp counts to Prometheus.
type promMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
	limited  *prometheus.CounterVec
	replays  *prometheus.CounterVec
}

var _ pipelinehttp.Metrics = (*promMetrics)(nil)

// newMetrics registers the API's metrics, the database pools' and the Go
// runtime's and process's on a registry of their own.
func newMetrics(db *pipelinestore.DB) (*prometheus.Registry, *promMetrics) {
	m := &promMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pipeline_http_requests_total",
			Help: "HTTP requests answered, by route pattern (\"unmatched\" for none), method and status.",
		}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "pipeline_http_request_duration_seconds",
			Help:    "Time from a request's arrival to its answer, by route pattern and method.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route", "method"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "pipeline_http_requests_in_flight",
			Help: "HTTP requests being answered now.",
		}),
		limited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pipeline_rate_limited_total",
			Help: "Requests refused with 429 because their rate-limit bucket (user or ip) was spent, by route pattern.",
		}, []string{"route", "bucket"}),
		replays: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pipeline_idempotent_replays_total",
			Help: "Writes answered with the stored result of their Idempotency-Key, by route pattern.",
		}, []string{"route"}),
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(m.requests, m.duration, m.inFlight, m.limited, m.replays,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for name, pool := range db.Pools() {
		reg.MustRegister(collectors.NewDBStatsCollector(pool, name))
	}
	return reg, m
}

func routeLabel(route string) string {
	if route == "" {
		return "unmatched" // any path: a label per path would grow without bound
	}
	return route
}

func (m *promMetrics) RequestStarted() { m.inFlight.Inc() }

func (m *promMetrics) RequestFinished(route, method string, status int, elapsed time.Duration) {
	m.inFlight.Dec()
	route = routeLabel(route)
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(route, method).Observe(elapsed.Seconds())
}

func (m *promMetrics) RateLimited(route, bucket string) {
	m.limited.WithLabelValues(routeLabel(route), bucket).Inc()
}

func (m *promMetrics) Replayed(route string) { m.replays.WithLabelValues(routeLabel(route)).Inc() }

// metricsHandler serves /metrics from reg and the profiler below
// /debug/pprof/.
func metricsHandler(reg *prometheus.Registry) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// serveMetrics listens on addr and serves the metrics of db and of the API
// that cfg configures (it sets cfg.Metrics) until stop is called.
func serveMetrics(addr string, db *pipelinestore.DB, cfg *pipelinehttp.Config, logger *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	reg, m := newMetrics(db)
	cfg.Metrics = m
	srv := &http.Server{
		Handler:           metricsHandler(reg),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			logger.Error("metrics server", "err", err)
		}
	}()
	logger.Info("metrics listening", "addr", ln.Addr().String())
	return func() {
		_ = srv.Close() // scrapes and profiles are cut off: the API has drained
		<-done
	}, nil
}
