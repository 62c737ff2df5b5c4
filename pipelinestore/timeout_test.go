package pipelinestore_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestDB_Unavailable: while the database does not answer, a call whose
// context has a deadline fails at the deadline with ErrUnavailable and
// writes nothing; once it answers again the same store serves, and the
// write retried with its key happens once.
func TestDB_Unavailable(t *testing.T) {
	storetest.EachStallingDB(t, func(t *testing.T, db *pipelinestore.DB, stall *storetest.Stall) {
		f := seeded(t, db)
		job, ada := f.Job("backend"), f.Res.Candidates["ada"]
		note := pipeline.NewNote{Content: "Call back."}
		olivia := f.As(t, "olivia")
		add := func() (pipeline.Result[pipeline.Note], error) {
			ctx, cancel := context.WithTimeout(olivia, 200*time.Millisecond)
			defer cancel()
			n := note
			n.Idempotency = &pipeline.Idempotency{Key: "note-1"}
			return f.Svc.AddNote(ctx, job, ada, n)
		}

		stall.Hang(t)
		_, err := add()
		require.ErrorIs(t, err, pipeline.ErrUnavailable)
		assert.Equal(t, pipeline.EUnavailable, pipeline.ErrorCode(err))
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		_, err = db.Jobs().Get(ctx, pipeline.JobParams{Viewer: f.User("olivia"), ID: job})
		if db.Dialect() == pipelinestore.DialectPostgres {
			require.ErrorIs(t, err, pipeline.ErrUnavailable, "reads wait too")
		} else {
			require.NoError(t, err, "SQLite's readers do not wait for the writer")
		}

		stall.Resume(t)
		// The replies to what timed out arrive now, on connections that must
		// not be used again: every read gets its own answer.
		for range 3 {
			j, err := db.Jobs().Get(context.Background(), pipeline.JobParams{Viewer: f.User("olivia"), ID: job})
			require.NoError(t, err)
			assert.Equal(t, "Backend Engineer", j.Title)
			c, err := db.Candidates().Get(context.Background(), pipeline.CandidateParams{Viewer: f.User("olivia"), JobID: job, ID: ada})
			require.NoError(t, err)
			assert.Equal(t, "Ada Lovelace", c.Name)
		}
		// The abandoned transaction holds the key until the server has
		// read the end of its connection; a client retries a key still in
		// flight (conflict) later.
		res, err := add()
		for deadline := time.Now().Add(10 * time.Second); pipeline.ErrorCode(err) == pipeline.EConflict && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
			res, err = add()
		}
		require.NoError(t, err)
		assert.False(t, res.Replayed, "nothing was stored under the key")
		res, err = add()
		require.NoError(t, err)
		assert.True(t, res.Replayed)
		assert.Len(t, f.Activity(t), 1, "the note was added once")
	})
}

// TestDB_StatementTimeout: without any deadline of its own, a write that
// waits for a lock held elsewhere is cut by the statement timeout and is
// unavailable; the operator's longer work (migrating, seeding, purging)
// runs without it.
func TestDB_StatementTimeout(t *testing.T) {
	const timeout = 150 * time.Millisecond
	ctx := context.Background()
	cases := map[string]func(t *testing.T) (db *pipelinestore.DB, other *sql.DB){
		"sqlite": func(t *testing.T) (*pipelinestore.DB, *sql.DB) {
			path := filepath.Join(t.TempDir(), "pipeline.db")
			return openTimed(t, path, timeout), openOther(t, "sqlite", path)
		},
		"postgres": func(t *testing.T) (*pipelinestore.DB, *sql.DB) {
			dsn := storetest.PostgresSchemaDSN(t)
			return openTimed(t, dsn, timeout), openOther(t, "pg", dsn)
		},
	}
	for name, open := range cases {
		t.Run(name, func(t *testing.T) {
			db, other := open(t)
			f := seeded(t, db)
			_, err := f.Op.PurgeIdempotency(ctx)
			require.NoError(t, err)
			if db.Dialect() == pipelinestore.DialectPostgres {
				var setting string
				require.NoError(t, pipelinestore.Query(ctx, db, "SHOW statement_timeout", &setting))
				assert.Equal(t, "150ms", setting)
				var slept string
				err := pipelinestore.Query(ctx, db, "SELECT pg_sleep(1)::text", &slept)
				require.ErrorIs(t, err, pipeline.ErrUnavailable, "pg_sleep past the timeout")
			}

			// Another session holds what the write needs: the job's row on
			// PostgreSQL, the file's write lock on SQLite.
			conn, err := other.Conn(ctx)
			require.NoError(t, err)
			defer conn.Close()
			lock := "BEGIN IMMEDIATE"
			if db.Dialect() == pipelinestore.DialectPostgres {
				_, err = conn.ExecContext(ctx, "BEGIN")
				require.NoError(t, err)
				lock = "SELECT id FROM jobs WHERE id = " + strconv.FormatInt(f.Job("backend"), 10) + " FOR UPDATE"
			}
			_, err = conn.ExecContext(ctx, lock)
			require.NoError(t, err)

			title := "Renamed while locked"
			patch := func() (pipeline.Result[pipeline.Job], error) {
				return f.Svc.UpdateJob(f.As(t, "olivia"), f.Job("backend"), pipeline.JobPatch{
					Title: &title, Idempotency: &pipeline.Idempotency{Key: "rename-1"},
				})
			}
			_, err = patch()
			require.ErrorIs(t, err, pipeline.ErrUnavailable)

			_, err = conn.ExecContext(ctx, "ROLLBACK")
			require.NoError(t, err)
			res, err := patch()
			require.NoError(t, err)
			assert.False(t, res.Replayed)
			assert.Equal(t, title, res.Value.Title)
			assert.Len(t, f.Activity(t), 1)
		})
	}
}

// openTimed opens and migrates a database with a statement timeout.
func openTimed(t *testing.T, dsn string, timeout time.Duration) *pipelinestore.DB {
	t.Helper()
	db, err := pipelinestore.Open(context.Background(), dsn, pipelinestore.WithStatementTimeout(timeout))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	require.NoError(t, db.Migrate(context.Background()))
	return db
}

// openOther opens a second, plain pool on the same database.
func openOther(t *testing.T, driver, dsn string) *sql.DB {
	t.Helper()
	other, err := sql.Open(driver, dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = other.Close() })
	return other
}

// TestDB_StatementTimeout_Lifted: opening, migrating, seeding and purging,
// the operator's work, run whole under a statement timeout too short for
// any statement, which only requests keep.
func TestDB_StatementTimeout_Lifted(t *testing.T) {
	db := openTimed(t, storetest.PostgresSchemaDSN(t), time.Microsecond)
	f := seeded(t, db)
	_, err := f.Op.PurgeIdempotency(context.Background())
	require.NoError(t, err)
	var slept string
	err = pipelinestore.Query(context.Background(), db, "SELECT pg_sleep(0.05)::text", &slept)
	require.ErrorIs(t, err, pipeline.ErrUnavailable, "the request path keeps the timeout")
}
