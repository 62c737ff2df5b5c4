package pipelinestore

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// defaultSweepEvery is how many Takes pass between two sweeps of ended
// windows.
const defaultSweepEvery = 1000

// Limiter returns a rate limiter allowing limit requests per bucket in each
// fixed window of pipeline.RateWindow. On PostgreSQL the counts live in the
// database, so every process and every limiter on it share one budget per
// bucket; on SQLite, which one process serves, they live in memory, in the
// returned limiter alone, so a server makes one and keeps it.
func (db *DB) Limiter(limit int) pipeline.Limiter {
	if db.dialect != DialectPostgres {
		return pipeline.NewMemoryLimiter(limit)
	}
	return &pgLimiter{db: db, limit: limit, sweepEvery: defaultSweepEvery}
}

// pgLimiter counts requests in the rate_limits table.
type pgLimiter struct {
	db         *DB
	limit      int
	sweepEvery uint64
	takes      atomic.Uint64
	sweeping   atomic.Bool
}

// Limit is the number of requests allowed per bucket in one window.
func (l *pgLimiter) Limit() int { return l.limit }

// qTake opens a new window when the stored one is at least a window old
// and otherwise increments its count; both CASEs read the row as it was
// before this update.
var qTake = `INSERT INTO rate_limits AS r (bucket, window_start, count) VALUES ($1, $2, 1)
ON CONFLICT (bucket) DO UPDATE SET
	window_start = CASE WHEN r.window_start <= $3 THEN EXCLUDED.window_start ELSE r.window_start END,
	count = CASE WHEN r.window_start <= $3 THEN 1 ELSE r.count + 1 END
RETURNING count, window_start`

// Take counts one request against bucket in one statement: an upsert that
// opens a new window when the stored one is at least a window old (a window
// starts with its bucket's first request, fixed, not sliding) and otherwise
// increments its count.
func (l *pgLimiter) Take(ctx context.Context, bucket string, now time.Time) (pipeline.Quota, error) {
	now = ts(now)
	ended := now.Add(-pipeline.RateWindow)
	var row struct {
		Count       int       `bun:"count"`
		WindowStart time.Time `bun:"window_start"`
	}
	err := l.db.write().get(ctx, qTake, args(bucket, now, ended), &row)
	if err != nil {
		return pipeline.Quota{}, formatError(err, "Rate limit")
	}
	if l.takes.Add(1)%l.sweepEvery == 0 {
		l.sweep(ended)
	}
	return pipeline.QuotaOf(l.limit, row.Count, row.WindowStart.UTC()), nil
}

// sweep deletes ended windows in the background, so that the table holds
// only live buckets and no request waits for it.
func (l *pgLimiter) sweep(ended time.Time) {
	if !l.sweeping.CompareAndSwap(false, true) {
		return
	}
	l.db.goBackground(func() {
		defer l.sweeping.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		// An error only delays the cleanup to the next sweep.
		_, _ = l.db.w.bun.NewRaw(`DELETE FROM rate_limits WHERE window_start <= ?`, ended).Exec(ctx)
	})
}
