package pipelinestore_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

func TestLimiter(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		ctx := context.Background()
		l := db.Limiter(3)
		t0 := time.Date(2026, 7, 1, 9, 0, 0, 0, time.UTC)
		take := func(bucket string, at time.Time) pipeline.Quota {
			t.Helper()
			q, err := l.Take(ctx, bucket, at)
			require.NoError(t, err)
			return q
		}

		for i := range 3 {
			q := take("user:1", t0.Add(time.Duration(i)*time.Second))
			assert.Equal(t, pipeline.Quota{Limit: 3, Remaining: 2 - i, Reset: t0.Add(time.Minute), Allowed: true}, q)
		}
		assert.Equal(t, pipeline.Quota{Limit: 3, Remaining: 0, Reset: t0.Add(time.Minute), Allowed: false},
			take("user:1", t0.Add(10*time.Second)))
		assert.False(t, take("user:1", t0.Add(59*time.Second+999*time.Millisecond)).Allowed, "the window is fixed")
		assert.True(t, take("user:2", t0.Add(30*time.Second)).Allowed, "buckets are separate")

		// The window ends 60 s after its first request; the next opens with
		// the next request.
		t1 := t0.Add(61 * time.Second)
		assert.Equal(t, pipeline.Quota{Limit: 3, Remaining: 2, Reset: t1.Add(time.Minute), Allowed: true}, take("user:1", t1))
		q := take("user:2", t0.Add(90*time.Second))
		assert.Equal(t, pipeline.Quota{Limit: 3, Remaining: 2, Reset: t0.Add(150 * time.Second), Allowed: true}, q,
			"exactly 60 s after the first request is a new window")
	})
}

// TestLimiter_Postgres checks what only the store-backed limiter does: two
// handles on one database share one budget, and ended windows are swept.
func TestLimiter_Postgres(t *testing.T) {
	dsn := storetest.PostgresSchemaDSN(t)
	ctx := context.Background()
	open := func(params ...string) *pipelinestore.DB {
		db, err := pipelinestore.Open(ctx, dsn+strings.Join(params, ""))
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		require.NoError(t, db.Migrate(ctx))
		return db
	}
	a, b := open(), open()
	la, lb := a.Limiter(10), b.Limiter(10)
	now := time.Now().UTC().Truncate(time.Microsecond)

	t.Run("shared budget", func(t *testing.T) {
		var wg sync.WaitGroup
		allowed := make(chan bool, 30)
		for i := range 30 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l := la
				if i%2 == 1 {
					l = lb
				}
				q, err := l.Take(ctx, "user:shared", now)
				assert.NoError(t, err)
				allowed <- q.Allowed
			}()
		}
		wg.Wait()
		close(allowed)
		n := 0
		for ok := range allowed {
			if ok {
				n++
			}
		}
		assert.Equal(t, 10, n)
		q, err := lb.Take(ctx, "user:shared", now.Add(time.Second))
		require.NoError(t, err)
		assert.Equal(t, pipeline.Quota{Limit: 10, Remaining: 0, Reset: now.Add(time.Minute), Allowed: false}, q)
	})

	t.Run("takes that wait share a statement", func(t *testing.T) {
		// Its own name, to find its statement among the server's.
		db := open("&application_name=pipeline-limiter-test")
		l := db.Limiter(10)
		_, err := l.Take(ctx, "user:held", now)
		require.NoError(t, err)
		statements := pipelinestore.CountQueries(db)
		type outcome struct {
			bucket string
			q      pipeline.Quota
		}
		out := make(chan outcome, 8)
		tx := holdBucket(t, dsn, "pipeline-limiter-test", "user:held", func() {
			q, err := l.Take(ctx, "user:held", now)
			assert.NoError(t, err)
			out <- outcome{"user:held", q}
		})
		buckets := []string{"user:w1", "user:w2", "user:w1", "user:w1", "user:held", "user:w2", "user:w3"}
		for _, b := range buckets {
			go func() {
				q, err := l.Take(ctx, b, now)
				assert.NoError(t, err)
				out <- outcome{b, q}
			}()
		}
		require.Eventually(t, func() bool { return pipelinestore.QueuedTakes(l) == len(buckets) },
			10*time.Second, time.Millisecond, "the other takes wait")
		// A request that waits no longer than its context does.
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, err = l.Take(short, "user:impatient", now)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		require.NoError(t, tx.Rollback())

		remaining := map[string][]int{}
		for range len(buckets) + 1 {
			o := <-out
			assert.True(t, o.q.Allowed)
			assert.Equal(t, now.Add(time.Minute), o.q.Reset)
			remaining[o.bucket] = append(remaining[o.bucket], o.q.Remaining)
		}
		assert.EqualValues(t, 2, statements.Load(), "the takes that waited went in one statement")
		for b, want := range map[string][]int{"user:held": {7, 8}, "user:w1": {7, 8, 9}, "user:w2": {8, 9}, "user:w3": {9}} {
			assert.ElementsMatch(t, want, remaining[b], b)
		}
	})

	t.Run("takes that wait when the database closes", func(t *testing.T) {
		db := open("&application_name=pipeline-limiter-closing")
		l := db.Limiter(10)
		_, err := l.Take(ctx, "user:closing", now)
		require.NoError(t, err)
		first := make(chan error, 1)
		tx := holdBucket(t, dsn, "pipeline-limiter-closing", "user:closing", func() {
			_, err := l.Take(ctx, "user:closing", now)
			first <- err
		})
		waiting := make(chan error, 3)
		for range 3 {
			go func() {
				_, err := l.Take(ctx, "user:closing", now)
				waiting <- err
			}()
		}
		require.Eventually(t, func() bool { return pipelinestore.QueuedTakes(l) == 3 }, 10*time.Second, time.Millisecond)
		closed := make(chan struct{})
		go func() {
			assert.NoError(t, db.Close())
			close(closed)
		}()
		require.Eventually(t, func() bool { return pipelinestore.Closing(db) }, 10*time.Second, time.Millisecond)
		require.NoError(t, tx.Rollback())

		assert.NoError(t, <-first, "a statement on the way ends as it would")
		for range 3 {
			assert.ErrorIs(t, <-waiting, pipeline.ErrUnavailable, "the takes queued behind it are refused, not left waiting")
		}
		<-closed
	})

	t.Run("sweep", func(t *testing.T) {
		raw := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
		defer raw.Close()
		count := func() int {
			var n int
			require.NoError(t, raw.QueryRowContext(ctx, "SELECT count(*) FROM rate_limits").Scan(&n))
			return n
		}
		l := a.Limiter(10)
		pipelinestore.SetSweepEvery(l, 5)
		old := now.Add(-time.Hour)
		for i := range 4 {
			_, err := l.Take(ctx, fmt.Sprintf("ip:old-%d", i), old)
			require.NoError(t, err)
		}
		before := count()
		_, err := l.Take(ctx, "ip:new", now) // the fifth Take sweeps
		require.NoError(t, err)
		pipelinestore.WaitBackground(a)
		assert.Equal(t, before+1-4, count(), "the four ended windows are gone")
		q, err := l.Take(ctx, "ip:new", now)
		require.NoError(t, err)
		assert.Equal(t, 8, q.Remaining, "live windows are kept")
	})
}

// holdBucket locks bucket's row in a transaction of its own, which it
// returns, then runs take in a goroutine and returns once take's statement
// waits for the row: it stays on the way until the transaction ends. app
// is the application_name of take's database handle.
func holdBucket(t *testing.T, dsn, app, bucket string, take func()) *sql.Tx {
	t.Helper()
	ctx := context.Background()
	raw := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
	t.Cleanup(func() { raw.Close() })
	tx, err := raw.BeginTx(ctx, nil)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, "SELECT 1 FROM rate_limits WHERE bucket = $1 FOR UPDATE", bucket)
	require.NoError(t, err)
	go take()
	require.Eventually(t, func() bool {
		var waiting int
		err := raw.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE wait_event_type = 'Lock' AND application_name = $1`, app).Scan(&waiting)
		return assert.NoError(t, err) && waiting == 1
	}, 10*time.Second, time.Millisecond, "the take waits for the row")
	return tx
}
