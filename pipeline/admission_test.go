package pipeline_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestService_Admit: the Service authenticates and rate-limits a request
// as the API does, so that an embedding program gets the same answers:
// a user's tokens share one budget, a request without a valid token is
// counted against its address and is rate_limited rather than
// unauthenticated while that budget is spent, and a spent budget answers
// rate_limited with the wait until its window ends; on either limiter.
func TestService_Admit(t *testing.T) {
	const budget = 3
	limiters := map[string]func(*pipelinestore.DB) pipeline.Limiter{
		"memory":   func(*pipelinestore.DB) pipeline.Limiter { return pipeline.NewMemoryLimiter(budget) },
		"database": func(db *pipelinestore.DB) pipeline.Limiter { return db.Limiter(budget) },
	}
	for name, limiter := range limiters {
		t.Run(name, func(t *testing.T) {
			storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
				start := time.Now().UTC().Truncate(time.Second)
				clock := start
				w := storetest.Seeded(t, db, pipeline.WithLimiter(limiter(db)),
					pipeline.WithClock(pipeline.ClockFunc(func() time.Time { return clock })))
				ctx := context.Background()
				const ip = "192.0.2.7"

				// Two tokens of one user spend one budget.
				for i, key := range []string{"olivia", "olivia_jobs_read", "olivia"} {
					actx, adm, err := w.Svc.Admit(ctx, w.Res.Tokens[key], ip)
					require.NoError(t, err, "request %d", i+1)
					assert.True(t, adm.PerUser)
					assert.Equal(t, budget-1-i, adm.Quota.Remaining)
					c, ok := pipeline.CallerFrom(actx)
					require.True(t, ok, "the caller is on the context")
					assert.Equal(t, ip, c.IP())
					assert.Equal(t, w.User("olivia"), c.User().ID)
				}
				clock = start.Add(20 * time.Second)
				actx, adm, err := w.Svc.Admit(ctx, w.Res.Tokens["olivia"], ip)
				assert.Equal(t, pipeline.ERateLimited, pipeline.ErrorCode(err), "the fourth request of the window")
				assert.Equal(t, 40*time.Second, adm.RetryAfter, "until the window ends")
				assert.Equal(t, 0, adm.Quota.Remaining)
				_, ok := pipeline.CallerFrom(actx)
				assert.True(t, ok, "the caller is known, also over the budget")

				// Another user has a budget of their own.
				_, _, err = w.Svc.Admit(ctx, w.Res.Tokens["mia"], ip)
				require.NoError(t, err)

				// Without a valid token: counted against the address,
				// unauthenticated until its budget is spent, then rate_limited.
				for i, credential := range []string{"", "plt_nonsense", w.Res.Tokens["olivia_revoked"]} {
					actx, adm, err := w.Svc.Admit(ctx, credential, ip)
					assert.Equal(t, pipeline.EUnauthenticated, pipeline.ErrorCode(err), "request %d", i+1)
					assert.False(t, adm.PerUser)
					assert.Equal(t, budget-1-i, adm.Quota.Remaining)
					_, ok := pipeline.CallerFrom(actx)
					assert.False(t, ok)
				}
				_, _, err = w.Svc.Admit(ctx, "", ip)
				assert.Equal(t, pipeline.ERateLimited, pipeline.ErrorCode(err), "the address's budget is spent")
				_, _, err = w.Svc.Admit(ctx, "", "192.0.2.8")
				assert.Equal(t, pipeline.EUnauthenticated, pipeline.ErrorCode(err), "another address is counted apart")
				adm, err = w.Svc.AdmitAnonymous(ctx, ip)
				assert.Equal(t, pipeline.ERateLimited, pipeline.ErrorCode(err), "a request that needs no token spends the address's budget")
				assert.Equal(t, pipeline.RateWindow, adm.RetryAfter, "the address's window opened with its first request")

				// A user's spent budget did not touch the address's, nor the
				// other way: a new window opens with a whole budget.
				clock = start.Add(pipeline.RateWindow)
				_, adm, err = w.Svc.Admit(ctx, w.Res.Tokens["olivia"], ip)
				require.NoError(t, err)
				assert.Equal(t, budget-1, adm.Quota.Remaining)
			})
		})
	}
}

// TestService_AdmitDefault: a Service given no limiter still limits, with
// the default budget per window.
func TestService_AdmitDefault(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		w := storetest.Seeded(t, db)
		for i := range pipeline.DefaultRateLimit {
			_, _, err := w.Svc.Admit(context.Background(), w.Res.Tokens["mia"], storetest.IP)
			require.NoError(t, err, "request %d", i+1)
		}
		_, adm, err := w.Svc.Admit(context.Background(), w.Res.Tokens["mia"], storetest.IP)
		assert.Equal(t, pipeline.ERateLimited, pipeline.ErrorCode(err))
		assert.Equal(t, pipeline.DefaultRateLimit, adm.Quota.Limit)
	})
}
