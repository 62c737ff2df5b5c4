package pipelinestore_test

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestDB_LazyBegin: on PostgreSQL a transaction's BEGIN waits for its first
// statement and goes with it in one round trip; every statement of the
// transaction runs inside it, and a transaction that sent nothing ends
// cleanly.
func TestDB_LazyBegin(t *testing.T) {
	statementsAsText(t)
	db := storetest.OpenPostgres(t)
	ctx := context.Background()
	const xid = "SELECT txid_current()"
	var first, second int64
	before := pipelinestore.RoundTrips(db)
	require.NoError(t, db.Write(ctx, func(tx pipeline.Tx) error {
		if err := pipelinestore.TxGet(ctx, tx, xid, nil, &first); err != nil {
			return err
		}
		return pipelinestore.TxGet(ctx, tx, xid, nil, &second)
	}))
	assert.Equal(t, first, second, "one transaction")
	assert.EqualValues(t, 1+1+1, pipelinestore.RoundTrips(db)-before, "BEGIN with the first, the second, COMMIT")

	t.Run("nothing sent", func(t *testing.T) {
		before := pipelinestore.RoundTrips(db)
		require.NoError(t, db.Write(ctx, func(pipeline.Tx) error { return nil }))
		failed := errors.New("failed")
		require.ErrorIs(t, db.Write(ctx, func(pipeline.Tx) error { return failed }), failed)
		assert.Zero(t, pipelinestore.RoundTrips(db)-before, "no BEGIN, COMMIT or ROLLBACK")
	})
	t.Run("a failed first statement rolls back", func(t *testing.T) {
		err := db.Write(ctx, func(tx pipeline.Tx) error {
			var n int64
			return pipelinestore.TxGet(ctx, tx, "SELECT 1/0", nil, &n)
		})
		require.Error(t, err)
		var x, y int64
		require.NoError(t, db.Write(ctx, func(tx pipeline.Tx) error {
			if err := pipelinestore.TxGet(ctx, tx, xid, nil, &x); err != nil {
				return err
			}
			return pipelinestore.TxGet(ctx, tx, xid, nil, &y)
		}), "the connections are as good as before")
		assert.Equal(t, x, y)
	})
}

// TestDB_Arguments: the driver writes a statement's arguments into its
// text; each reaches the server as the value it is, quotes, backslashes
// and dollar signs included.
func TestDB_Arguments(t *testing.T) {
	db := storetest.OpenPostgres(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 26, 8, 30, 1, 123456000, time.UTC)
	const text = `O'Brien \ Zoë $1 '' --`
	for name, c := range map[string]struct {
		query string
		args  []any
		want  string
	}{
		"numbers, text, booleans, times and NULL": {
			`SELECT concat_ws('|', $1::bigint, $2::text, $3::boolean, $4::timestamptz AT TIME ZONE 'UTC', $5::text IS NULL)`,
			[]any{int64(-42), text, true, at, nil},
			"-42|" + text + "|t|2026-11-26 08:30:01.123456|t",
		},
		"bytes": {`SELECT encode($1::bytea, 'escape')`, []any{[]byte("a'b")}, "a'b"},
		// River's statements carry comments with apostrophes, which the
		// driver would take for the start of a string.
		"after an apostrophe in a comment": {
			"SELECT $1::text -- it's a comment\n|| /* and /* that's */ another */ $2::text",
			[]any{"a", "b"}, "ab",
		},
		"comment marks in literals and bodies kept": {
			`SELECT $1::text || '--x' || "x" || $$ -- /* $$ || $2::text FROM (SELECT 1 AS "x--") AS t(x)`,
			[]any{"a", "b"}, "a--x1 -- /* b",
		},
	} {
		t.Run(name, func(t *testing.T) {
			var got string
			require.NoError(t, db.Write(ctx, func(tx pipeline.Tx) error {
				return pipelinestore.TxGet(ctx, tx, c.query, c.args, &got)
			}))
			assert.Equal(t, c.want, got)
		})
	}
}

// TestDB_TransactionSettings: the DSN's run-time parameters and the
// statement timeout hold in every transaction and for every statement
// outside one, set there rather than on the connection, so that they hold
// on whichever server connection a pooler lends.
func TestDB_TransactionSettings(t *testing.T) {
	ctx := context.Background()
	dsn := storetest.PostgresSchemaDSN(t)
	db, err := pipelinestore.Open(ctx, dsn+"&application_name=pipeline-settings", pipelinestore.WithStatementTimeout(1500*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	const read = `SELECT current_setting('statement_timeout') || ' ' || current_setting('application_name') || ' ' || current_schema()`
	var inTx, outside string
	require.NoError(t, db.Write(ctx, func(tx pipeline.Tx) error {
		return pipelinestore.TxGet(ctx, tx, read, nil, &inTx)
	}))
	require.NoError(t, pipelinestore.Query(ctx, db, read, &outside))
	assert.Regexp(t, `^1500ms pipeline-settings pipeline_test_`, inTx)
	assert.Equal(t, inTx, outside)

}

// TestDB_Batch: the writes a transaction sends together do what each does
// on its own.
func TestDB_Batch(t *testing.T) {
	db := storetest.OpenPostgres(t)
	f := storetest.Seeded(t, db)
	olivia := f.As(t, "olivia")
	job, ada := f.Job("backend"), f.Res.Candidates["ada"]
	for i, stage := range []string{"Screening", "Interview"} {
		res, err := f.Svc.MoveCandidate(olivia, job, ada, pipeline.CandidateMove{StageID: f.Res.Stages["backend"][stage],
			Idempotency: &pipeline.Idempotency{Key: "move-" + stage}})
		require.NoError(t, err, i)
		assert.Equal(t, stage, res.Value.Stage)
	}
	c, err := f.Svc.GetCandidate(olivia, job, ada)
	require.NoError(t, err)
	assert.Equal(t, "Interview", c.Stage)
	res, err := f.Svc.MoveCandidate(olivia, job, ada, pipeline.CandidateMove{StageID: f.Res.Stages["backend"]["Screening"],
		Idempotency: &pipeline.Idempotency{Key: "move-Screening"}})
	require.NoError(t, err)
	assert.True(t, res.Replayed, "the key's record was stored with the move")
	assert.Equal(t, "Screening", res.Value.Stage)
}

// TestOpen_WithPreparedStatements: on a direct connection, the reads
// outside a transaction run as statements prepared on the connection,
// with generic plans and the settings set on the connection, and answer as
// without.
func TestOpen_WithPreparedStatements(t *testing.T) {
	if behindPgBouncer(t, storetest.PostgresDSN(t)) {
		t.Skip("the server is reached through PgBouncer, where prepared statements do not hold")
	}
	ctx := context.Background()
	db := storetest.OpenPostgres(t, pipelinestore.WithPreparedStatements(), pipelinestore.WithStatementTimeout(1500*time.Millisecond))
	f := storetest.Seeded(t, db)
	olivia := f.As(t, "olivia")
	job := f.Job("backend")
	for range 2 {
		list, err := f.Svc.ListCandidates(olivia, job, pipeline.CandidateFilter{})
		require.NoError(t, err)
		assert.NotEmpty(t, list.Items)
		res, err := f.Svc.AddNote(olivia, job, list.Items[0].ID, pipeline.NewNote{Content: "note"})
		require.NoError(t, err)
		assert.Equal(t, "note", res.Value.Content)
	}
	var settings string
	require.NoError(t, pipelinestore.Query(ctx, db,
		`SELECT current_setting('plan_cache_mode') || ' ' || current_setting('statement_timeout') || ' ' || (SELECT count(*) FROM pg_prepared_statements WHERE NOT from_sql)`, &settings))
	assert.Regexp(t, `^force_generic_plan 1500ms [1-9]`, settings)
}

// TestDB_LargeJobSearchesPlannedPerRun: with prepared statements, a small
// job's search is prepared; a large job's searches, from the first, run as
// text, which PostgreSQL plans for the job and the term, and answer the
// same. A job's size is read once, before its first search.
func TestDB_LargeJobSearchesPlannedPerRun(t *testing.T) {
	if behindPgBouncer(t, storetest.PostgresDSN(t)) {
		t.Skip("the server is reached through PgBouncer, where prepared statements do not hold")
	}
	ctx := context.Background()
	var mu sync.Mutex
	var sent []string
	sending := func(fn func()) string {
		mu.Lock()
		sent = nil
		mu.Unlock()
		fn()
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(sent, "\n")
	}
	db := storetest.OpenPostgres(t, pipelinestore.WithPreparedStatements(), pipelinestore.WithMaxConns(1),
		pipelinestore.WithLargeJobSize(3), pipelinestore.WithQueryHook(queryRecorder(func(q string) {
			mu.Lock()
			defer mu.Unlock()
			sent = append(sent, q)
		})))
	f := storetest.Seeded(t, db)
	olivia := f.As(t, "olivia")
	prepared := func() (searches, perRun int) {
		require.NoError(t, pipelinestore.Query(ctx, db, `SELECT count(*) FILTER (WHERE statement LIKE '%name_fold LIKE%'),
	count(*) FILTER (WHERE statement LIKE '%candidate_search%') FROM pg_prepared_statements`, &searches, &perRun))
		return searches, perRun
	}
	search := func(job int64, term string) pipeline.List[pipeline.Candidate] {
		l, err := f.Svc.ListCandidates(olivia, job, pipeline.CandidateFilter{Search: term})
		require.NoError(t, err)
		return l
	}
	large, small := f.Job("backend"), f.Job("frontend")
	for job, want := range map[int64]string{large: "at least", small: "fewer than"} {
		list, err := f.Svc.ListCandidates(olivia, job, pipeline.CandidateFilter{})
		require.NoError(t, err)
		require.Equal(t, want == "at least", list.Total >= 3, "the job has %s 3 candidates for this test", want)
	}

	var first, second pipeline.List[pipeline.Candidate]
	sql := sending(func() { first = search(large, "a") })
	assert.Contains(t, sql, "AS size", "the job's size is read first")
	assert.Contains(t, sql, "candidate_search", "the large job's first search runs planned at each run")
	require.NotEmpty(t, first.Items)
	sql = sending(func() { second = search(large, "a") })
	assert.NotContains(t, sql, "AS size", "once")
	assert.Contains(t, sql, "candidate_search")
	assert.Equal(t, first, second)
	searches, perRun := prepared()
	assert.Equal(t, [2]int{0, 0}, [2]int{searches, perRun}, "neither search was prepared")

	sql = sending(func() { search(small, "a"); search(small, "a") })
	assert.Equal(t, 1, strings.Count(sql, "AS size"), "the small job's size is read once")
	assert.NotContains(t, sql, "candidate_search")
	searches, _ = prepared()
	assert.Equal(t, 1, searches, "the small job's search is prepared")
}

// queryRecorder is a query hook that passes each statement's text to fn.
type queryRecorder func(string)

func (r queryRecorder) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (r queryRecorder) AfterQuery(_ context.Context, e *bun.QueryEvent) { r(e.Query) }

// behindPgBouncer reports whether dsn reaches PgBouncer rather than
// PostgreSQL: PgBouncer answers for its own database "pgbouncer", which
// PostgreSQL does not have.
func behindPgBouncer(t *testing.T, dsn string) bool {
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	u.Path = "/pgbouncer"
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(u.String())))
	defer db.Close()
	err = db.PingContext(context.Background())
	return err == nil || !strings.Contains(err.Error(), "does not exist")
}

// TestDB_ConcurrentMigrations: servers starting at once on one schema
// migrate it one after the other, directly as through a transaction
// pooler (run at once, the same migrations would fail on each other's
// tables), and the lock is released for the next.
func TestDB_ConcurrentMigrations(t *testing.T) {
	ctx := context.Background()
	dsn := storetest.PostgresSchemaDSN(t)
	const servers = 3
	errs := make([]error, servers)
	var wg sync.WaitGroup
	for i := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := pipelinestore.Open(ctx, dsn)
			if err == nil {
				errs[i] = errors.Join(db.Migrate(ctx), db.Close())
			} else {
				errs[i] = err
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	db, err := pipelinestore.Open(ctx, dsn)
	require.NoError(t, err)
	defer db.Close()
	applied, err := db.ApplyMigrations(ctx)
	require.NoError(t, err)
	assert.Empty(t, applied, "migrated once")
	st, err := db.MigrationStatus(ctx)
	require.NoError(t, err)
	assert.Empty(t, st.Pending)
	assert.NotEmpty(t, st.Applied)
}

// textAndPrepared runs test on PostgreSQL twice: with the statements sent
// as text, and prepared (not behind PgBouncer, where they do not hold).
func textAndPrepared(t *testing.T, test func(t *testing.T, opts ...pipelinestore.Option)) {
	t.Run("as text", func(t *testing.T) { test(t) })
	t.Run("prepared", func(t *testing.T) {
		if behindPgBouncer(t, storetest.PostgresDSN(t)) {
			t.Skip("the server is reached through PgBouncer, where prepared statements do not hold")
		}
		test(t, pipelinestore.WithPreparedStatements())
	})
}

// TestDB_LateReply: a statement whose reply the store stopped waiting for
// leaves its connection unused. The next statement, on the connection
// database/sql hands out next, reads its own reply, never the late one,
// whether the statements run as text or prepared.
func TestDB_LateReply(t *testing.T) {
	textAndPrepared(t, func(t *testing.T, opts ...pipelinestore.Option) {
		db := storetest.OpenPostgres(t, append(opts, pipelinestore.WithMaxConns(1))...)
		pool := db.Pools()["postgres"]
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		_, err := pool.ExecContext(ctx, `SELECT pg_sleep($1)`, 1)
		require.Error(t, err, "the store stopped waiting")
		time.Sleep(1200 * time.Millisecond) // the late reply has come
		for want := range 3 {
			var got int
			require.NoError(t, pool.QueryRowContext(context.Background(), `SELECT $1::int`, want).Scan(&got))
			assert.Equal(t, want, got)
		}
	})
}
