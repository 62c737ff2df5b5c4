package pipelinehttp

import (
	"strconv"
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
// Retry-After: the request must then do nothing else.
func (a *api) limit(c *gin.Context, bucket string) error {
	now := a.clock.Now()
	q, err := a.limiter.Take(c.Request.Context(), bucket, now)
	if err != nil {
		return err
	}
	h := c.Writer.Header()
	h.Set(HeaderRateLimit, strconv.Itoa(q.Limit))
	h.Set(HeaderRateRemaining, strconv.Itoa(q.Remaining))
	h.Set(HeaderRateReset, strconv.FormatInt(ceilUnix(q.Reset), 10))
	if q.Allowed {
		return nil
	}
	h.Set(HeaderRetryAfter, strconv.Itoa(retryAfter(q.Reset.Sub(now))))
	return errRateLimited
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
