package pipelinehttp

import (
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// Rate-limit response headers.
const (
	HeaderRateLimit     = "X-RateLimit-Limit"
	HeaderRateRemaining = "X-RateLimit-Remaining"
	HeaderRateReset     = "X-RateLimit-Reset"
	HeaderRetryAfter    = "Retry-After"
)

// limit counts the request against bucket and sets the rate-limit headers.
// When the bucket is spent it returns rate_limited, after adding
// Retry-After: the request must then do nothing else. When the limiter
// fails, the error's answer gets hold-off headers (see holdOff).
func (a *api) limit(c *gin.Context, bucket string) error {
	now := a.clock.Now()
	q, err := a.limiter.Take(c.Request.Context(), bucket, now)
	if err != nil {
		return err
	}
	setRateHeaders(c, q.Limit, q.Remaining, q.Reset)
	if q.Allowed {
		return nil
	}
	c.Writer.Header().Set(HeaderRetryAfter, strconv.Itoa(retryAfter(q.Reset.Sub(now))))
	if a.metrics != nil {
		kind, _, _ := strings.Cut(bucket, ":")
		a.metrics.RateLimited(c.FullPath(), kind)
	}
	return errRateLimited
}

// holdOff gives an error of a limited request (see limited) answered before its request was
// counted (the limiter failed, or a panic struck first) the rate-limit
// headers every /api/ response carries: nothing remaining, and a reset a
// whole window away, so that a client backs off rather than retrying at
// once; for unavailable (code), when its Retry-After ends.
func (a *api) holdOff(c *gin.Context, code string) {
	if !a.limited(c) || c.Writer.Header().Get(HeaderRateLimit) != "" {
		return
	}
	wait := pipeline.RateWindow
	if code == pipeline.EUnavailable {
		wait = UnavailableRetryAfter
	}
	setRateHeaders(c, a.limiter.Limit(), 0, a.clock.Now().Add(wait))
}

func setRateHeaders(c *gin.Context, limit, remaining int, reset time.Time) {
	h := c.Writer.Header()
	h.Set(HeaderRateLimit, strconv.Itoa(limit))
	h.Set(HeaderRateRemaining, strconv.Itoa(remaining))
	h.Set(HeaderRateReset, strconv.FormatInt(ceilUnix(reset), 10))
}

// ceilUnix is t in Unix seconds, rounded up so that a client waiting until
// then finds the window ended.
func ceilUnix(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() > 0 {
		s++
	}
	return s
}

// retryAfter is the wait until the window ends in whole seconds, rounded up
// and kept within 1–60 (a window is pipeline.RateWindow long).
func retryAfter(d time.Duration) int {
	s := int((d + time.Second - 1) / time.Second)
	return min(max(s, 1), int(pipeline.RateWindow/time.Second))
}
