package pipelinehttp

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// rateLimitedBody is the one 429 body.
const rateLimitedBody = `{"error":{"code":"rate_limited","message":"Too Many Attempts.","details":null}}`

const budget = 5

// eachLimiter runs fn as subtest name on every database with a budget of
// five, counted once in memory and once by the database's own limiter, each
// time on a freshly seeded env.
func eachLimiter(t *testing.T, name string, fn func(t *testing.T, e *env)) {
	t.Helper()
	limiters := []struct {
		name string
		open func(db *pipelinestore.DB) pipeline.Limiter
	}{
		{"memory", func(*pipelinestore.DB) pipeline.Limiter { return pipeline.NewMemoryLimiter(budget) }},
		{"database", func(db *pipelinestore.DB) pipeline.Limiter { return db.Limiter(budget) }},
	}
	t.Run(name, func(t *testing.T) {
		for _, l := range limiters {
			t.Run(l.name, func(t *testing.T) {
				storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
					fn(t, newEnv(t, db, withLimiter(l.open(db))))
				})
			})
		}
	})
}

// rate reads the rate-limit headers.
func rate(t *testing.T, r *Response) (limit, remaining int, reset int64) {
	t.Helper()
	limit, err := strconv.Atoi(r.Header.Get(HeaderRateLimit))
	require.NoError(t, err)
	remaining, err = strconv.Atoi(r.Header.Get(HeaderRateRemaining))
	require.NoError(t, err)
	reset, err = strconv.ParseInt(r.Header.Get(HeaderRateReset), 10, 64)
	require.NoError(t, err)
	return limit, remaining, reset
}

// spend spends olivia's whole budget at the start of the window, then lets
// 20.3 s pass: her next request in the window is refused.
func spend(t *testing.T, e *env) {
	t.Helper()
	for range budget {
		r := e.do(t, "GET", "/api/v1/me", e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, r.Code)
	}
	e.clock.Advance(20*time.Second + 300*time.Millisecond)
}

func TestAPI_RateLimit(t *testing.T) {
	eachLimiter(t, "budget counts down", func(t *testing.T, e *env) {
		reset := e.clock.Now().Add(time.Minute).Unix()
		for i := range budget {
			r := e.do(t, "GET", "/api/v1/me", e.token("olivia"), nil)
			require.Equal(t, http.StatusOK, r.Code)
			limit, remaining, rs := rate(t, r)
			assert.Equal(t, budget, limit)
			assert.Equal(t, budget-1-i, remaining)
			assert.Equal(t, reset, rs)
			assert.Empty(t, r.Header.Get(HeaderRetryAfter))
		}
	})
	eachLimiter(t, "then 429", func(t *testing.T, e *env) {
		reset := e.clock.Now().Add(time.Minute).Unix()
		spend(t, e)
		r := e.do(t, "GET", "/api/v1/jobs", e.token("olivia"), nil)
		require.Equal(t, http.StatusTooManyRequests, r.Code)
		assert.Equal(t, rateLimitedBody, string(r.Body))
		_, remaining, rs := rate(t, r)
		assert.Equal(t, 0, remaining)
		assert.Equal(t, reset, rs)
		assert.Equal(t, "40", r.Header.Get(HeaderRetryAfter), "39.7 s rounded up")
	})
	eachLimiter(t, "all tokens of the user share it", func(t *testing.T, e *env) {
		spend(t, e)
		r := e.do(t, "GET", "/api/v1/me", e.token("olivia_jobs_read"), nil)
		require.Equal(t, http.StatusTooManyRequests, r.Code)
	})
	eachLimiter(t, "checked before scope and lookup", func(t *testing.T, e *env) {
		spend(t, e)
		r := e.do(t, "GET", "/api/v1/jobs/999999", e.token("olivia_messages"), nil)
		require.Equal(t, http.StatusTooManyRequests, r.Code)
	})
	eachLimiter(t, "a 429 does nothing", func(t *testing.T, e *env) {
		spend(t, e)
		r := e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), map[string]any{"title": "Throttled"}, IdempotencyKeyHeader, "k-429")
		require.Equal(t, http.StatusTooManyRequests, r.Code)
		assert.Empty(t, e.Activity(t))
	})
	eachLimiter(t, "another user is unaffected", func(t *testing.T, e *env) {
		spend(t, e)
		r := e.do(t, "GET", "/api/v1/me", e.token("adam"), nil)
		require.Equal(t, http.StatusOK, r.Code)
		_, remaining, _ := rate(t, r)
		assert.Equal(t, budget-1, remaining)
	})
	eachLimiter(t, "the window ends", func(t *testing.T, e *env) {
		olivia := e.token("olivia")
		spend(t, e)
		r := e.do(t, "POST", "/api/v1/jobs", olivia, map[string]any{"title": "Throttled"}, IdempotencyKeyHeader, "k-429")
		require.Equal(t, http.StatusTooManyRequests, r.Code)

		e.clock.Advance(39 * time.Second)
		r = e.do(t, "GET", "/api/v1/me", olivia, nil)
		require.Equal(t, http.StatusTooManyRequests, r.Code)
		assert.Equal(t, "1", r.Header.Get(HeaderRetryAfter))

		e.clock.Advance(time.Second)
		r = e.do(t, "POST", "/api/v1/jobs", olivia, map[string]any{"title": "Throttled"}, IdempotencyKeyHeader, "k-429")
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		assert.Empty(t, r.Header.Get(ReplayHeader), "the 429 stored nothing under the key")
		_, remaining, rs := rate(t, r)
		assert.Equal(t, budget-1, remaining)
		assert.Equal(t, e.clock.Now().Add(time.Minute).Truncate(time.Second).Unix()+1, rs, "a window ending at .3 s reports the next whole second")
		assert.Len(t, e.Activity(t), 1)
	})
	eachLimiter(t, "health is not limited", func(t *testing.T, e *env) {
		for range budget * 2 {
			r := e.do(t, "GET", "/healthz", "", nil)
			require.Equal(t, http.StatusOK, r.Code)
			assert.Empty(t, r.Header.Get(HeaderRateLimit))
		}
	})
}

// anonymous is the client address of the anonymous requests.
const anonymous = "198.51.100.20:4000"

// invalidTokens are five tokens that do not authenticate, olivia's revoked
// and expired ones among them: a whole budget of the address.
func invalidTokens(e *env) []string {
	return []string{"", "nope", e.token("olivia_revoked"), e.token("olivia_expired"), pipeline.NewTokenValue()}
}

// spendAddress spends the budget of the anonymous address with invalid
// tokens.
func spendAddress(t *testing.T, e *env) {
	t.Helper()
	for _, token := range invalidTokens(e) {
		r := e.do(t, "GET", "/api/v1/me", token, nil, remoteAddr, anonymous)
		require.Equal(t, http.StatusUnauthorized, r.Code)
	}
}

func TestAPI_RateLimit_Anonymous(t *testing.T) {
	eachLimiter(t, "invalid tokens spend the address's budget", func(t *testing.T, e *env) {
		reset := e.clock.Now().Add(time.Minute).Unix()
		for i, token := range invalidTokens(e) {
			r := e.do(t, "GET", "/api/v1/me", token, nil, remoteAddr, anonymous)
			require.Equal(t, http.StatusUnauthorized, r.Code)
			limit, remaining, rs := rate(t, r)
			assert.Equal(t, budget, limit)
			assert.Equal(t, budget-1-i, remaining)
			assert.Equal(t, reset, rs)
		}
	})
	eachLimiter(t, "then 429 instead of 401", func(t *testing.T, e *env) {
		spendAddress(t, e)
		r := e.do(t, "GET", "/api/v1/me", "nope", nil, remoteAddr, anonymous)
		require.Equal(t, http.StatusTooManyRequests, r.Code)
		assert.Equal(t, rateLimitedBody, string(r.Body))
		assert.Equal(t, "60", r.Header.Get(HeaderRetryAfter))
		assert.Empty(t, r.Header.Get("WWW-Authenticate"))
		r = e.do(t, "GET", "/api/v1/nowhere", "", nil, remoteAddr, anonymous)
		require.Equal(t, http.StatusTooManyRequests, r.Code)
		r = e.do(t, "GET", "/api/v1/openapi.json", "", nil, remoteAddr, anonymous)
		require.Equal(t, http.StatusTooManyRequests, r.Code, "the document counts against the address")
	})
	eachLimiter(t, "the user's budget is untouched", func(t *testing.T, e *env) {
		// The revoked and expired tokens were olivia's.
		spendAddress(t, e)
		r := e.do(t, "GET", "/api/v1/me", e.token("olivia"), nil, remoteAddr, anonymous)
		require.Equal(t, http.StatusOK, r.Code)
		_, remaining, _ := rate(t, r)
		assert.Equal(t, budget-1, remaining)
	})
	eachLimiter(t, "another address is unaffected", func(t *testing.T, e *env) {
		spendAddress(t, e)
		r := e.do(t, "GET", "/api/v1/me", "nope", nil, remoteAddr, "198.51.100.21:4000")
		require.Equal(t, http.StatusUnauthorized, r.Code)
		_, remaining, _ := rate(t, r)
		assert.Equal(t, budget-1, remaining)
	})
	eachLimiter(t, "forwarded headers are not trusted", func(t *testing.T, e *env) {
		spendAddress(t, e)
		r := e.do(t, "GET", "/api/v1/me", "nope", nil, remoteAddr, anonymous, "X-Forwarded-For", "203.0.113.50", "X-Real-IP", "203.0.113.50")
		require.Equal(t, http.StatusTooManyRequests, r.Code)
	})
}

// downLimiter is a limiter whose storage is down: Take fails, Limit still
// answers.
type downLimiter struct{ pipeline.Limiter }

func (downLimiter) Take(context.Context, string, time.Time) (pipeline.Quota, error) {
	return pipeline.Quota{}, errors.New("dial tcp 10.0.0.5:5432: connect: connection refused")
}

// requireHoldOff checks the rate-limit headers of a request that could not
// be counted: the whole budget, none left, a reset a whole window away.
func requireHoldOff(t *testing.T, r *Response, now time.Time) {
	t.Helper()
	limit, remaining, reset := rate(t, r)
	assert.Equal(t, budget, limit)
	assert.Equal(t, 0, remaining)
	assert.Equal(t, now.Add(pipeline.RateWindow).Unix(), reset)
}

// TestAPI_RateLimit_LimiterDown: when the limiter cannot count a request,
// the 500 still carries the rate-limit headers, telling the client to hold
// off for a window.
func TestAPI_RateLimit_LimiterDown(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		for name, l := range map[string]pipeline.Limiter{
			"memory":   pipeline.NewMemoryLimiter(budget),
			"database": e.DB.Limiter(budget),
		} {
			t.Run(name, func(t *testing.T) {
				logs := &syncBuffer{}
				h := New(pipeline.NewService(e.DB, pipeline.WithClock(e.clock), pipeline.WithLimiter(downLimiter{l})), Config{Logger: slog.New(slog.NewTextHandler(logs, nil))})
				for _, req := range []struct{ path, token string }{
					{"/api/v1/me", e.token("olivia")}, // the user's bucket
					{"/api/v1/me", ""},                // the address's
					{"/api/v1/openapi.json", ""},
					{"/api/v1/nowhere", ""},
				} {
					r := do(t, h, "GET", req.path, req.token, nil)
					requireError(t, r, http.StatusInternalServerError, pipeline.EInternal)
					requireHoldOff(t, r, e.clock.Now())
					assert.NotContains(t, string(r.Body), "refused", "no internal detail leaks")
				}
				assert.Contains(t, logs.String(), "connection refused", "the cause is logged")
			})
		}
	})
}

// panickingTokenLookup panics when a token is looked up.
type panickingTokenLookup struct{ pipeline.Store }

func (panickingTokenLookup) Tokens() pipeline.TokenStore { return panickingTokens{} }

type panickingTokens struct{ pipeline.TokenStore }

func (panickingTokens) Auth(context.Context, pipeline.TokenAuthParams) (pipeline.TokenAuth, error) {
	panic("token lookup exploded")
}

// panickingLimiter panics when it counts a request.
type panickingLimiter struct{ pipeline.Limiter }

func (panickingLimiter) Take(context.Context, string, time.Time) (pipeline.Quota, error) {
	panic("limiter exploded")
}

// TestAPI_RateLimit_PanicBeforeCount: a panic before the request is counted,
// in the token lookup or in the limiter, is answered 500 with the hold-off
// rate-limit headers.
func TestAPI_RateLimit_PanicBeforeCount(t *testing.T) {
	testGinMode.Do(func() { gin.SetMode(gin.TestMode) })
	clock := newTestClock(time.Now().Truncate(time.Second))
	h := New(pipeline.NewService(panickingTokenLookup{}, pipeline.WithClock(clock), pipeline.WithLimiter(pipeline.NewMemoryLimiter(budget))), Config{})
	r := do(t, h, "GET", "/api/v1/me", pipeline.NewTokenValue(), nil)
	requireError(t, r, http.StatusInternalServerError, pipeline.EInternal)
	requireHoldOff(t, r, clock.Now())

	h = New(pipeline.NewService(nil, pipeline.WithClock(clock), pipeline.WithLimiter(panickingLimiter{pipeline.NewMemoryLimiter(budget)})), Config{})
	for _, path := range []string{"/api/v1/me", "/api/v1/openapi.json"} {
		r = do(t, h, "GET", path, "", nil)
		requireError(t, r, http.StatusInternalServerError, pipeline.EInternal)
		requireHoldOff(t, r, clock.Now())
	}
}
