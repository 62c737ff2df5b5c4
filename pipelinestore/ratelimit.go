package pipelinestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// defaultSweepEvery is how many Takes pass between two sweeps of ended
// windows.
const defaultSweepEvery = 1000

// maxTakesSent bounds the takes one statement counts.
const maxTakesSent = 500

// Limiter returns a rate limiter allowing limit requests per bucket in each
// fixed window of pipeline.RateWindow. On PostgreSQL the counts live in the
// database, so every process and every limiter on it share one budget per
// bucket; on SQLite, which one process serves, they live in memory, in the
// returned limiter alone, so a server makes one and keeps it.
//
// On PostgreSQL, the requests a limiter counts while its statement is on
// the way are counted together by its next one, so that under load the
// count costs a request a share of a round trip rather than one of its
// own. A request waits for the statement that counts it, as it would for
// its own: every quota is exact, and the database holds every count.
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

	mu      sync.Mutex
	queued  []*take // waiting for the next statement
	sending bool    // a statement is on the way
}

// take is one request to count, and its outcome, set before done closes.
type take struct {
	bucket string
	now    time.Time
	quota  pipeline.Quota
	err    error
	done   chan struct{}
}

// Limit is the number of requests allowed per bucket in one window.
func (l *pgLimiter) Limit() int { return l.limit }

// takesTimeout bounds a statement that counts queued requests in the
// background; each request waits only until its own context ends.
const takesTimeout = 10 * time.Second

// Take counts one request against bucket. When no statement of the
// limiter is on the way, the request sends its own, which counts the
// requests queued before it; else it waits for the next statement, sent
// in the background once the one on the way has returned.
func (l *pgLimiter) Take(ctx context.Context, bucket string, now time.Time) (pipeline.Quota, error) {
	t := &take{bucket: bucket, now: ts(now), done: make(chan struct{})}
	l.mu.Lock()
	l.queued = append(l.queued, t)
	send := !l.sending
	l.sending = true
	l.mu.Unlock()
	if send {
		// Other requests' counts ride on this statement: a client that
		// goes away does not cancel them, its deadline still bounds them.
		sendCtx, cancel := context.WithoutCancel(ctx), context.CancelFunc(func() {})
		if deadline, ok := ctx.Deadline(); ok {
			sendCtx, cancel = context.WithDeadline(sendCtx, deadline)
		}
		l.sendQueued(sendCtx)
		cancel()
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		// As a statement cut off by its context is.
		return pipeline.Quota{}, formatError(context.Cause(ctx), "Rate limit")
	}
	if l.takes.Add(1)%l.sweepEvery == 0 {
		l.sweep(t.now.Add(-pipeline.RateWindow))
	}
	return t.quota, t.err
}

// sendQueued counts the queued takes in one statement, then, if more
// were queued meanwhile, sends the next statement in the background.
func (l *pgLimiter) sendQueued(ctx context.Context) {
	l.mu.Lock()
	n := min(len(l.queued), maxTakesSent)
	sent := l.queued[:n:n]
	l.queued = l.queued[n:]
	l.mu.Unlock()

	l.count(ctx, sent)
	for _, t := range sent {
		close(t.done)
	}

	l.mu.Lock()
	more := len(l.queued) > 0
	l.sending = more
	l.mu.Unlock()
	if more && !l.db.goBackground(func() {
		ctx, cancel := context.WithTimeout(context.Background(), takesTimeout)
		defer cancel()
		l.sendQueued(ctx)
	}) {
		// Closed: the takes would wait for a statement that never comes.
		l.mu.Lock()
		left := l.queued
		l.queued, l.sending = nil, false
		l.mu.Unlock()
		for _, t := range left {
			t.err = formatError(sql.ErrConnDone, "Rate limit")
			close(t.done)
		}
	}
}

// bucketTakes is one bucket's requests in a statement of Take.
type bucketTakes struct {
	Bucket string    `json:"bucket"`
	At     time.Time `json:"at"` // the latest request's time
	N      int       `json:"n"`
	// After the statement: the count before the first of these requests,
	// and the window's start.
	before int
	start  time.Time
}

// count counts takes in one statement and sets each take's quota, or
// the statement's error.
func (l *pgLimiter) count(ctx context.Context, takes []*take) {
	var buckets []bucketTakes
	index := map[string]int{}
	for _, t := range takes {
		i, ok := index[t.bucket]
		if !ok {
			i = len(buckets)
			index[t.bucket] = i
			buckets = append(buckets, bucketTakes{Bucket: t.bucket})
		}
		b := &buckets[i]
		b.N++
		if t.now.After(b.At) {
			b.At = t.now
		}
	}
	err := func() error {
		body, err := json.Marshal(buckets)
		if err != nil {
			return err
		}
		var rows []struct {
			Bucket      string    `bun:"bucket"`
			Count       int       `bun:"count"`
			WindowStart time.Time `bun:"window_start"`
		}
		if err := l.db.write().all(ctx, l.db.q.Take, args(string(body), pipeline.RateWindow.Microseconds()), &rows); err != nil {
			return err
		}
		if len(rows) != len(buckets) {
			return fmt.Errorf("pipelinestore: %d buckets counted, %d returned", len(buckets), len(rows))
		}
		for _, r := range rows {
			b := &buckets[index[r.Bucket]]
			b.before, b.start = r.Count-b.N, r.WindowStart.UTC()
		}
		return nil
	}()
	if err != nil {
		err = formatError(err, "Rate limit")
	}
	for _, t := range takes {
		if err != nil {
			t.err = err
			continue
		}
		// A bucket's requests take its counts in the order they came.
		b := &buckets[index[t.bucket]]
		b.before++
		t.quota = pipeline.QuotaOf(l.limit, b.before, b.start)
	}
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
		_, _ = l.db.write().exec(ctx, l.db.q.SweepRateLimits, ended)
	})
}
