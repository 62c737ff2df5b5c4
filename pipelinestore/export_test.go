package pipelinestore

import (
	"context"
	"sync/atomic"

	"github.com/uptrace/bun"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// SetSweepEvery makes a PostgreSQL limiter sweep ended windows every n
// Takes, so that a test need not make a thousand requests.
func SetSweepEvery(l pipeline.Limiter, n uint64) {
	if pl, ok := l.(*pgLimiter); ok {
		pl.sweepEvery = n
	}
}

// WaitBackground waits for the background work of db, such as a sweep.
func WaitBackground(db *DB) { db.bg.Wait() }

// CountQueries counts the statements db sends from now on, reads and writes.
func CountQueries(db *DB) *atomic.Int64 {
	var n atomic.Int64
	h := countingHook{n: &n}
	db.w.addHook(h)
	if db.r != db.w {
		db.r.addHook(h)
	}
	return &n
}

type countingHook struct{ n *atomic.Int64 }

func (h countingHook) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (h countingHook) AfterQuery(_ context.Context, _ *bun.QueryEvent) { h.n.Add(1) }

// Query runs a statement on db's pool of reads and scans its row into
// dest, with the store's conversion of errors.
func Query(ctx context.Context, db *DB, query string, dest ...any) error {
	return formatError(db.read().get(ctx, query, nil, dest...), "Row")
}
