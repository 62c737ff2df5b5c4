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

// bearerToken returns the token of an Authorization header value whose
// scheme is Bearer, in any letter case; "" when there is none.
func bearerToken(header string) string {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// guard admits the request (see admit), answering the first error.
func (a *api) guard(c *gin.Context) {
	if _, err := a.admit(c); err != nil {
		fail(c, err)
		return
	}
	c.Next()
}

// admit has the Service admit the request (pipeline.Service.Admit), with
// the token of the Authorization header (never the query string or a
// cookie) and the client IP, puts the caller on the request's context, and
// renders the budget's headers. The error is the first the API answers.
func (a *api) admit(c *gin.Context) (pipeline.Admission, error) {
	ctx, adm, err := a.svc.Admit(c.Request.Context(), bearerToken(c.GetHeader("Authorization")), c.ClientIP())
	c.Request = c.Request.WithContext(ctx)
	return adm, a.rated(c, adm, err)
}

// guardAnonymous counts a request that needs no token against its client
// IP's budget; it does not read the Authorization header.
func (a *api) guardAnonymous(c *gin.Context) {
	adm, err := a.svc.AdmitAnonymous(c.Request.Context(), c.ClientIP())
	if err := a.rated(c, adm, err); err != nil {
		fail(c, err)
		return
	}
	c.Next()
}

// rated sets the rate-limit headers of a request that was counted, and
// Retry-After when it is refused; it returns err.
func (a *api) rated(c *gin.Context, adm pipeline.Admission, err error) error {
	if adm.Quota.Limit == 0 {
		return err // not counted: holdOff sets the headers
	}
	setRateHeaders(c, adm.Quota)
	if adm.RetryAfter > 0 {
		c.Writer.Header().Set(HeaderRetryAfter, strconv.Itoa(int(adm.RetryAfter/time.Second)))
		if a.metrics != nil {
			kind := "ip"
			if adm.PerUser {
				kind = "user"
			}
			a.metrics.RateLimited(c.FullPath(), kind)
		}
	}
	return err
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
	setRateHeaders(c, a.svc.HoldOff(wait))
}

func setRateHeaders(c *gin.Context, q pipeline.Quota) {
	h := c.Writer.Header()
	h.Set(HeaderRateLimit, strconv.Itoa(q.Limit))
	h.Set(HeaderRateRemaining, strconv.Itoa(q.Remaining))
	h.Set(HeaderRateReset, strconv.FormatInt(ceilUnix(q.Reset), 10))
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
