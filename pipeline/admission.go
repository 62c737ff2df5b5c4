package pipeline

import (
	"context"
	"strconv"
	"time"
)

// Admission is what [Service.Admit] decided of one request before any
// operation runs: the rate-limit budget it was counted against.
type Admission struct {
	// Quota is the request's budget after it was counted. Its Limit is 0
	// when the request could not be counted (the limiter failed).
	Quota Quota
	// PerUser reports whether the request was counted against its user's
	// budget (a valid credential), not its client address's.
	PerUser bool
	// RetryAfter is, for a request refused as rate_limited, the wait until
	// its budget refills: whole seconds from one to the window's length.
	// Zero otherwise.
	RetryAfter time.Duration
}

// WithLimiter sets the limiter that [Service.Admit] counts requests with.
// The default is a [MemoryLimiter] of [DefaultRateLimit] requests per
// window, for one process; replicas that share a budget need a limiter
// that keeps its counts in their common database.
func WithLimiter(l Limiter) Option { return func(o *options) { o.limiter = l } }

// Admit is the first step of every request: it authenticates credential
// (a token value; "" when none was sent) for a request from the client
// address ip, and counts the request against its rate-limit budget. A
// valid credential's request is counted against its user, whatever token
// of the user it carries; any other against ip, and while ip's budget is
// spent it is rate_limited rather than unauthenticated, which slows the
// guessing of tokens. The returned context carries the caller, with ip,
// whenever the credential is valid, also when its budget is spent.
//
// The error is the first of the check order: rate_limited (nothing else
// may then be done for the request), then unauthenticated; or unavailable
// when the database does not answer. The Admission holds the budget even
// with an error, for the transport's rate-limit headers.
func (s *Service) Admit(ctx context.Context, credential, ip string) (context.Context, Admission, error) {
	caller, authErr := s.Authenticate(ctx, credential)
	bucket := "ip:" + ip
	if authErr == nil {
		ctx = NewContext(ctx, caller.WithIP(ip))
		bucket = "user:" + strconv.FormatInt(caller.User().ID, 10)
	}
	adm, err := s.count(ctx, bucket)
	adm.PerUser = authErr == nil
	if err != nil {
		return ctx, adm, err
	}
	return ctx, adm, authErr
}

// AdmitAnonymous counts a request that needs no credential (the API's
// document) against the budget of its client address ip, and returns
// rate_limited while that budget is spent.
func (s *Service) AdmitAnonymous(ctx context.Context, ip string) (Admission, error) {
	return s.count(ctx, "ip:"+ip)
}

// HoldOff is the budget to report for a request that was not counted
// (the limiter failed, or the request failed before its turn): nothing
// remaining until wait from now, so that a client backs off rather than
// retrying at once.
func (s *Service) HoldOff(wait time.Duration) Quota {
	return Quota{Limit: s.limiter.Limit(), Reset: s.clock.Now().Add(wait)}
}

func (s *Service) count(ctx context.Context, bucket string) (Admission, error) {
	now := s.clock.Now()
	q, err := s.limiter.Take(ctx, bucket, now)
	if err != nil {
		return Admission{}, err
	}
	adm := Admission{Quota: q}
	if q.Allowed {
		return adm, nil
	}
	adm.RetryAfter = retryAfter(q.Reset.Sub(now))
	return adm, ErrRateLimited
}

// retryAfter is d rounded up to whole seconds, within one second and one
// window.
func retryAfter(d time.Duration) time.Duration {
	whole := (d + time.Second - 1) / time.Second * time.Second
	return min(max(whole, time.Second), RateWindow)
}
