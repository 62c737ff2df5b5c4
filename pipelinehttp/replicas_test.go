package pipelinehttp

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestReplicas_SharedRateLimit runs two server instances, each with its own
// store handle, on one PostgreSQL database: a user's budget holds across
// both, as it would behind a load balancer.
func TestReplicas_SharedRateLimit(t *testing.T) {
	dsn := storetest.PostgresSchemaDSN(t)
	ctx := context.Background()
	clock := newTestClock(time.Now().Truncate(time.Second))
	open := func() (*pipelinestore.DB, http.Handler) {
		db, err := pipelinestore.Open(ctx, dsn)
		require.NoError(t, err)
		t.Cleanup(func() { _ = db.Close() })
		require.NoError(t, db.Migrate(ctx))
		svc := pipeline.NewService(db, pipeline.WithClock(clock), pipeline.WithLimiter(db.Limiter(5)))
		return db, New(svc, Config{})
	}
	db1, h1 := open()
	_, h2 := open()
	seed := storetest.Seed(t, pipeline.NewOperator(db1))
	olivia, oliviaReader, adam := seed.Tokens["olivia"], seed.Tokens["olivia_jobs_read"], seed.Tokens["adam"]

	replicas := []http.Handler{h1, h2}
	for i := range 5 {
		r := do(t, replicas[i%2], "GET", "/api/v1/me", olivia, nil)
		require.Equal(t, http.StatusOK, r.Code, "request %d", i+1)
		assert.Equal(t, fmt.Sprint(4-i), r.Header.Get(HeaderRateRemaining), "request %d counts on both", i+1)
	}
	for i, h := range replicas {
		r := do(t, h, "GET", "/api/v1/me", olivia, nil)
		requireError(t, r, http.StatusTooManyRequests, pipeline.ERateLimited)
		assert.Equal(t, "0", r.Header.Get(HeaderRateRemaining), "replica %d", i+1)
		assert.Equal(t, "60", r.Header.Get(HeaderRetryAfter), "replica %d", i+1)
	}
	r := do(t, h2, "GET", "/api/v1/jobs", oliviaReader, nil)
	requireError(t, r, http.StatusTooManyRequests, pipeline.ERateLimited)
	r = do(t, h2, "GET", "/api/v1/me", adam, nil)
	assert.Equal(t, http.StatusOK, r.Code, "another user has a budget of its own")

	clock.Advance(pipeline.RateWindow)
	r = do(t, h1, "GET", "/api/v1/me", olivia, nil)
	assert.Equal(t, http.StatusOK, r.Code, "a new window")
	assert.Equal(t, "4", r.Header.Get(HeaderRateRemaining))
}

// TestLimits_ConcurrentIdempotentWrites sends one new key from 20
// goroutines at once: the job is created once, and every response is that
// creation, its replay, or 409 while it is in flight.
func TestLimits_ConcurrentIdempotentWrites(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		const n = 20
		results := make([]*rawResponse, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = send(e.h, "POST", "/api/v1/jobs", e.token("olivia"), `{"title":"Raced once"}`,
					IdempotencyKeyHeader, "3f1c2d9e-race")
			}()
		}
		wg.Wait()
		var created, replayed, conflicts int
		var first string
		for _, r := range results {
			if r.code == http.StatusCreated && r.header.Get(ReplayHeader) == "" {
				first = string(r.body)
			}
		}
		for _, r := range results {
			switch {
			case r.code == http.StatusCreated && r.header.Get(ReplayHeader) == "true":
				replayed++
				assert.Equal(t, first, string(r.body), "a replay is the first response")
			case r.code == http.StatusCreated:
				created++
			case r.code == http.StatusConflict:
				conflicts++
			default:
				t.Errorf("unexpected %d %s", r.code, r.body)
			}
		}
		assert.Equal(t, 1, created)
		assert.Equal(t, n, created+replayed+conflicts)
		assert.Len(t, jobsTitled(t, e, "Raced once"), 1)
		assert.Len(t, e.Activity(t), 1)
	})
}

// TestLimits_ConcurrentJobLimit creates 20 jobs at once on a team with 3
// slots left: exactly 3 are created.
func TestLimits_ConcurrentJobLimit(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		// acme allows 20 jobs that are not closed and the fixture has 3.
		for i := range 14 {
			r := e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), map[string]any{"title": fmt.Sprintf("Filler %d", i)})
			require.Equal(t, http.StatusCreated, r.Code, "body %s", r.Body)
		}
		const n = 20
		codes := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tokens := []string{"olivia", "adam", "mia", "nina"}
				r := send(e.h, "POST", "/api/v1/jobs", e.token(tokens[i%len(tokens)]), fmt.Sprintf(`{"title":"Contender %d"}`, i))
				codes[i] = r.code
			}()
		}
		wg.Wait()
		count := map[int]int{}
		for _, c := range codes {
			count[c]++
		}
		assert.Equal(t, map[int]int{http.StatusCreated: 3, http.StatusForbidden: n - 3}, count)
		assert.Len(t, e.Activity(t), 14+3, "refused creations log nothing")
	})
}

// jobsTitled lists the open jobs olivia reaches with exactly that title.
func jobsTitled(t *testing.T, e *env, title string) []map[string]any {
	t.Helper()
	r := e.do(t, "GET", "/api/v1/jobs?search="+urlQuery(title), e.token("olivia"), nil)
	require.Equal(t, http.StatusOK, r.Code)
	var out []map[string]any
	for _, j := range r.Items(t) {
		if j["title"] == title {
			out = append(out, j)
		}
	}
	return out
}
