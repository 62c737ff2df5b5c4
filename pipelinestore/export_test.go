package pipelinestore

import (
	"context"
	"fmt"
	"strings"
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

// ListPlans returns, on PostgreSQL, the plan of each list query the store
// prepares or plans, for a viewer, a job and a stage of it, as the
// database runs it: prepared queries with their generic plan (which a
// prepared statement settles on), a search planned for its pattern.
// settings are SET on the connection first.
func ListPlans(ctx context.Context, db *DB, viewer, jobID, stageID int64, search string, settings ...string) (map[string]string, error) {
	conn, err := db.r.bun.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET plan_cache_mode = force_generic_plan"); err != nil {
		return nil, err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "RESET plan_cache_mode; RESET enable_seqscan; DEALLOCATE ALL") //nolint:errcheck // the connection goes back to the pool either way
	for _, set := range settings {
		if _, err := conn.ExecContext(ctx, "SET "+set); err != nil {
			return nil, err
		}
	}
	pattern := likePattern(search)
	queries := []struct {
		name, query string
		args        []any
	}{
		{"jobs", qJobsPage[1], args(viewer, "open", 0, 15)},
		{"candidates", qCandidates.page, args(jobID, viewer, 0)},
		{"candidates, a middle page", qCandidates.page, args(jobID, viewer, 1500)},
		{"candidates of a stage", qStageCandidates.page, args(jobID, viewer, stageID, 0)},
		{"candidates, an empty page", qCandidates.empty, args(jobID, viewer)},
		{"jobs, searched", jobsPage(true, true), args(viewer, "open", pattern, 0, 15)},
		{"candidates, searched", candidateListQuery(false, true).page, args(jobID, viewer, pattern, 0)},
	}
	plans := map[string]string{}
	for i, q := range queries {
		name := fmt.Sprintf("p%d", i)
		if _, err := conn.ExecContext(ctx, "PREPARE "+name+" AS "+q.query); err != nil {
			return nil, fmt.Errorf("%s: %w", q.name, err)
		}
		// A search is planned for its pattern, not prepared: explain it so.
		explain := "EXPLAIN EXECUTE " + name + "(" + strings.Repeat("?, ", len(q.args)-1) + "?)"
		if strings.Contains(q.name, "searched") {
			explain = "EXPLAIN " + runner{}.rawText(q.query)
		}
		var lines []string
		if err := conn.NewRaw(explain, q.args...).Scan(ctx, &lines); err != nil {
			return nil, fmt.Errorf("%s: %w", q.name, err)
		}
		plans[q.name] = strings.Join(lines, "\n")
	}
	return plans, nil
}

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

// Query runs a statement on db's pool of reads and scans its row into
// dest, with the store's conversion of errors.
func Query(ctx context.Context, db *DB, query string, dest ...any) error {
	return formatError(db.read().get(ctx, query, nil, dest...), "Row")
}

// RoundTrips is how many round trips db's pool made to PostgreSQL so far,
// when Open made the pool.
func RoundTrips(db *DB) int64 { return db.trips.Load() }

// TxGet runs query with args in the transaction of a Write and scans its
// row into dest: as plain SQL (a simple query) when simple, else as a
// prepared statement.
func TxGet(ctx context.Context, t pipeline.Tx, simple bool, query string, args []any, dest ...any) error {
	run := t.(*tx).run
	if simple {
		run = run.planned()
	}
	return run.get(ctx, query, args, dest...)
}
