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

// Exec runs a statement on db's writer, for tests that change what no
// operation changes (a member's role).
func Exec(db *DB, query string, args ...any) error {
	_, err := db.w.bun.DB.ExecContext(context.Background(), db.w.dialectText(query), args...)
	return err
}

// QueryBytes reads one value of one row as bytes.
func QueryBytes(db *DB, query string, args ...any) ([]byte, error) {
	var b []byte
	err := db.r.bun.DB.QueryRowContext(context.Background(), db.r.dialectText(query), args...).Scan(&b)
	return b, err
}
