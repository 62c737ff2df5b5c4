package pipelinestore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

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

// QueuedTakes is the number of takes a PostgreSQL limiter holds for its
// next statement.
func QueuedTakes(l pipeline.Limiter) int {
	pl := l.(*pgLimiter)
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return len(pl.queued)
}

// WaitBackground waits for the background work of db, such as a sweep.
func WaitBackground(db *DB) { db.bg.Wait() }

// Closing reports whether Close was called on db.
func Closing(db *DB) bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.closed
}

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

// ListPlans returns, on PostgreSQL, the plan of each list query of the
// store for a viewer, a job and a stage of it, as the database plans it
// for those arguments; settings are SET LOCAL first.
func ListPlans(ctx context.Context, db *DB, viewer, jobID, stageID int64, search string, settings ...string) (map[string]string, error) {
	pattern := likePattern(search)
	queries := []struct {
		name, query string
		args        []any
	}{
		{"jobs", postgresSQL.JobsPage, args(viewer, "open", 0, 15)},
		{"candidates", qCandidateLists[0][0][0].page, args(jobID, viewer, 0)},
		{"candidates, a middle page", qCandidateLists[0][0][0].page, args(jobID, viewer, 1500)},
		{"candidates of a stage", qCandidateLists[1][0][0].page, args(jobID, viewer, stageID, 0)},
		{"candidates, an empty page", qCandidateLists[0][0][0].empty, args(jobID, viewer)},
		{"jobs, searched", postgresSQL.JobsPageSearch, args(viewer, "open", pattern, 0, 15)},
		{"candidates, searched", candidateListQuery(false, false, true, false).page, args(jobID, viewer, pattern, 0)},
		{"candidates of a large job, searched", qLargeJobSearches[0][0].page, args(jobID, viewer, pattern, 0)},
	}
	return explain(ctx, db, queries, settings)
}

// explainQuery is a statement to explain, by name, with its arguments.
type explainQuery = struct {
	name, query string
	args        []any
}

// explain returns the plan of each query by name, with settings SET
// LOCAL first; nothing runs.
func explain(ctx context.Context, db *DB, queries []explainQuery, settings []string) (map[string]string, error) {
	plans := map[string]string{}
	err := db.r.bun.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, set := range settings {
			if _, err := tx.ExecContext(ctx, "SET LOCAL "+set); err != nil {
				return err
			}
		}
		for _, q := range queries {
			rows, err := tx.Tx.QueryContext(ctx, "EXPLAIN "+q.query, q.args...)
			if err != nil {
				return fmt.Errorf("%s: %w", q.name, err)
			}
			var lines []string
			if err := db.r.bun.ScanRows(ctx, rows, &lines); err != nil {
				return fmt.Errorf("%s: %w", q.name, err)
			}
			plans[q.name] = strings.Join(lines, "\n")
		}
		return nil
	})
	return plans, err
}

// ErasurePlans explains on PostgreSQL every statement the retention pass
// and an erasure of candidate run on a team, by name.
func ErasurePlans(ctx context.Context, db *DB, teamID, candidateID int64, email string, at time.Time, settings ...string) (map[string]string, error) {
	erased := pipeline.ErasedEmail(candidateID)
	return explain(ctx, db, []explainQuery{
		{"expired candidates", postgresSQL.ExpiredCandidatesLocked, args(teamID, ts(at), 0, pipeline.RetentionBatch)},
		{"person for erasure", postgresSQL.PersonForErasureLocked, args(teamID, pipeline.Fold(email))},
		{"erase message jobs", postgresSQL.EraseMessageJobs, args(candidateID)},
		{"erase invitation jobs", postgresSQL.EraseInvitationJobs, args(candidateID)},
		{"erase candidate", postgresSQL.EraseCandidate, args(pipeline.ErasedName, pipeline.Fold(pipeline.ErasedName), erased, erased, ts(at), candidateID)},
		{"erase notes", postgresSQL.EraseNotes, args(candidateID)},
		{"erase ratings", postgresSQL.EraseRatings, args(candidateID)},
		{"erase messages", postgresSQL.EraseMessages, args(candidateID)},
		{"erase invitations", postgresSQL.EraseInvitations, args(candidateID)},
		{"interviews to cancel", postgresSQL.ScheduledInterviews, args(candidateID, ts(at))},
		{"candidate entries", postgresSQL.CandidateEntries, args(candidateID)},
		{"set activity changes", postgresSQL.SetActivityChanges, args("{}", int64(1))},
		{"idempotency records", postgresSQL.IdempotencyRecords, args(teamID)},
		{"set idempotency result", postgresSQL.SetIdempotencyResul, args([]byte("{}"), teamID, "k")},
		{"erase entry reasons", postgresSQL.EraseEntryReasons, args(candidateID)},
		{"proposals about", postgresSQL.ProposalsAbout, args(teamID, jsonIDs([]int64{candidateID}))},
		{"close proposal", postgresSQL.CloseProposal, args(int64(1), "withdrawn", ts(at))},
		{"erase proposal", postgresSQL.EraseProposal, args(int64(1), nil)},
		{"erase proposal reasons", postgresSQL.EraseProposalReasons, args(int64(1))},
		{"insert activity", postgresSQL.InsertActivity, args(teamID, nil, nil, nil, "", "candidate.erased", "candidate", candidateID, "{}", ts(at), nil, nil)},
	}, settings)
}

// Exec runs a statement on db's writer, for tests that change what no
// operation changes (a member's role).
func Exec(db *DB, query string, args ...any) error {
	_, err := db.w.bun.DB.ExecContext(context.Background(), query, args...)
	return err
}

// ExecTx runs statements in one transaction on db's writer, as the
// migrator runs a migration's.
func ExecTx(db *DB, stmts ...string) error {
	ctx := context.Background()
	tx, err := db.w.bun.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			_ = tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

// QueryRows runs a query on db's pool of reads.
func QueryRows(db *DB, query string, args ...any) (*sql.Rows, error) {
	return db.r.bun.DB.QueryContext(context.Background(), query, args...)
}

// QueryBytes reads one value of one row as bytes.
func QueryBytes(db *DB, query string, args ...any) ([]byte, error) {
	var b []byte
	err := db.r.bun.DB.QueryRowContext(context.Background(), query, args...).Scan(&b)
	return b, err
}

// Query runs a statement on db's pool of reads and scans its row into
// dest, with the store's conversion of errors.
func Query(ctx context.Context, db *DB, query string, dest ...any) error {
	return formatError(db.read().get(ctx, query, nil, dest...), "Row")
}

// RoundTrips is how many round trips db's pool made to PostgreSQL so far,
// when Open made the pool.
func RoundTrips(db *DB) int64 { return db.roundTrips.Load() }

// TxGet runs query with args in the transaction of a Write and scans its
// row into dest.
func TxGet(ctx context.Context, t pipeline.Tx, query string, args []any, dest ...any) error {
	return t.(*tx).run.get(ctx, query, args, dest...)
}

// PauseFolds stops db from folding the stages' count deltas from now on,
// once a fold under way has ended: the deltas of later writes stay for a
// test to read, and no fold's statement mixes with the ones it counts.
func PauseFolds(db *DB) {
	for !db.folder.running.CompareAndSwap(false, true) {
		time.Sleep(time.Millisecond)
	}
}

// FoldStageCounts folds the stages' count deltas of db now.
func FoldStageCounts(ctx context.Context, db *DB) (int64, error) { return db.foldStageCounts(ctx) }

// WithLargeJobSize sets the size from which a job's searches are planned
// at each run (see largeJobs).
func WithLargeJobSize(n int64) Option { return func(o *options) { o.largeJobSize = n } }

// RefoldUserEmails folds the users' emails again, as Migrate does after
// migrating.
func RefoldUserEmails(db *DB) error { return refoldUserEmails(context.Background(), db.w.bun) }
