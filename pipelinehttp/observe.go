package pipelinehttp

import (
	"time"

	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/contrib/instrumentation/github.com/gin-gonic/gin/otelgin"
	"go.opentelemetry.io/otel/propagation"
)

// Metrics receives what the HTTP layer counts, for a metrics system to
// export (cmd/pipelined exports them to Prometheus). The methods are called
// from every request's goroutine and must be safe for concurrent use.
type Metrics interface {
	// RequestStarted is called when a request arrives and
	// RequestFinished when it has been answered; the two together give the
	// requests in flight. route is the route's pattern, such as
	// "/api/v1/jobs/:job" (below Mount's prefix, the prefix included), or
	// "" for a path that matches no route.
	RequestStarted()
	RequestFinished(route, method string, status int, elapsed time.Duration)
	// RateLimited is called for each request refused with 429 because its
	// bucket is spent; bucket is "user" or "ip".
	RateLimited(route, bucket string)
	// Replayed is called for each write answered with the stored result of
	// its idempotency key.
	Replayed(route string)
}

// observe reports each request to a.metrics, and the replays, which it
// tells by their Idempotent-Replay header.
func (a *api) observe(c *gin.Context) {
	start := time.Now()
	a.metrics.RequestStarted()
	c.Next()
	a.metrics.RequestFinished(c.FullPath(), c.Request.Method, c.Writer.Status(), time.Since(start))
	if c.Writer.Header().Get(ReplayHeader) == "true" {
		a.metrics.Replayed(c.FullPath())
	}
}

// tracing starts a server span per request with a.tracer, continuing a
// trace whose W3C traceparent the client sent. The probes are not traced:
// a load balancer asks them every few seconds.
func (a *api) tracing() gin.HandlerFunc {
	return otelgin.Middleware("pipeline",
		otelgin.WithTracerProvider(a.tracer),
		otelgin.WithPropagators(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})),
		otelgin.WithGinFilter(func(c *gin.Context) bool { return a.limited(c) }),
	)
}
