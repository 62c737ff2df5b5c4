package pipelinestore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// fixture is a database seeded with storetest.World and a Service on it.
type fixture = storetest.Fixture

func seeded(t *testing.T, db *pipelinestore.DB) fixture { return storetest.Seeded(t, db) }

// each runs fn as subtest name, once per database, each time on a freshly
// seeded world, so that a case that writes stands alone.
func each(t *testing.T, name string, fn func(t *testing.T, f fixture)) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) { fn(t, seeded(t, db)) })
	})
}

func requireCode(t *testing.T, code string, err error) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, code, pipeline.ErrorCode(err), "error: %v", err)
}

func TestDB_Migrate(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := seeded(t, db)
		// storetest already migrated once: running again changes nothing.
		require.NoError(t, db.Migrate(context.Background()))
		require.NoError(t, db.Migrate(context.Background()))
		j, err := db.Jobs().Get(context.Background(), pipeline.JobParams{Viewer: f.User("olivia"), ID: f.Job("backend")})
		require.NoError(t, err)
		assert.Equal(t, "Backend Engineer", j.Title)
		require.NoError(t, db.Ping(context.Background()))
	})
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	t.Run("sqlite prefix", func(t *testing.T) {
		db, err := pipelinestore.Open(ctx, "sqlite:"+t.TempDir()+"/x.db")
		require.NoError(t, err)
		defer db.Close()
		assert.Equal(t, "sqlite", db.Dialect())
		require.NoError(t, db.Migrate(ctx))
	})
	t.Run("sqlite path of any characters", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "a#b?c%41 d")
		require.NoError(t, os.Mkdir(dir, 0o755))
		path := filepath.Join(dir, "what?#%2F.db")
		db, err := pipelinestore.Open(ctx, path)
		require.NoError(t, err)
		defer db.Close()
		require.NoError(t, db.Migrate(ctx))
		_, err = os.Stat(path)
		require.NoError(t, err, "the file is the one named")
		f := seeded(t, db)
		_, err = f.Svc.AddNote(f.As(t, "olivia"), f.Job("backend"), f.Res.Candidates["ada"], pipeline.NewNote{Content: "Stored."})
		require.NoError(t, err)
		assert.Len(t, f.Activity(t), 1)

		// A path that begins with two slashes is a path, not a host.
		double, err := pipelinestore.Open(ctx, "/"+filepath.Join(dir, "double.db"))
		require.NoError(t, err)
		defer double.Close()
		require.NoError(t, double.Migrate(ctx))
		_, err = os.Stat(filepath.Join(dir, "double.db"))
		require.NoError(t, err)
	})
	t.Run("bad sqlite path", func(t *testing.T) {
		_, err := pipelinestore.Open(ctx, "")
		require.Error(t, err)
	})
	t.Run("postgres", func(t *testing.T) {
		statementsAsText(t)
		db := storetest.OpenPostgres(t)
		assert.Equal(t, "postgres", db.Dialect())
		// Nothing is prepared on a server connection, which a pooler
		// may lend to another client next.
		var n int
		require.NoError(t, pipelinestore.Query(ctx, db, "SELECT count(*) FROM pg_prepared_statements", &n))
		assert.Zero(t, n)
	})
	t.Run("bad postgres dsn", func(t *testing.T) {
		_, err := pipelinestore.Open(ctx, "postgres://127.0.0.1:1/x?sslmode=bogus")
		require.Error(t, err)
	})
}

// TestOpen_WithSQLDB: on a pool of the caller's own, the store migrates,
// seeds and writes (a write's statements sent together, the batch as one
// simple query) as on its own, and Close leaves the pool open.
func TestOpen_WithSQLDB(t *testing.T) {
	ctx := context.Background()
	cases := map[string]func(t *testing.T) (dsn string, pool *sql.DB){
		"sqlite": func(t *testing.T) (string, *sql.DB) {
			path := filepath.Join(t.TempDir(), "pipeline.db")
			pool, err := sql.Open("sqlite", path)
			require.NoError(t, err)
			pool.SetMaxOpenConns(1)
			return path, pool
		},
		"postgres": func(t *testing.T) (string, *sql.DB) {
			dsn := storetest.PostgresSchemaDSN(t)
			return dsn, sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
		},
	}
	for name, open := range cases {
		t.Run(name, func(t *testing.T) {
			dsn, pool := open(t)
			defer pool.Close()
			db, err := pipelinestore.Open(ctx, dsn, pipelinestore.WithSQLDB(pool))
			require.NoError(t, err)
			require.NoError(t, db.Migrate(ctx))
			f := seeded(t, db)
			olivia := f.As(t, "olivia")
			job, ada := f.Job("backend"), f.Res.Candidates["ada"]
			move := pipeline.CandidateMove{StageID: f.Res.Stages["backend"]["Interview"], Idempotency: &pipeline.Idempotency{Key: "move-1"}}
			for _, replayed := range []bool{false, true} {
				res, err := f.Svc.MoveCandidate(olivia, job, ada, move)
				require.NoError(t, err)
				assert.Equal(t, replayed, res.Replayed)
				assert.Equal(t, "Interview", res.Value.Stage)
			}
			_, err = f.Svc.AddNote(olivia, job, ada, pipeline.NewNote{Content: "Strong on systems."})
			require.NoError(t, err)
			c, err := f.Svc.GetCandidate(olivia, job, ada)
			require.NoError(t, err)
			assert.Equal(t, "Interview", c.Stage)
			assert.Equal(t, 1, c.NotesCount)
			assert.Len(t, f.Activity(t), 2)

			require.NoError(t, db.Close())
			assert.NoError(t, pool.PingContext(ctx), "the caller's pool stays open")
		})
	}
}

func TestDB_Write(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := seeded(t, db)
		ctx := context.Background()
		acme := f.Res.Teams["acme"]

		t.Run("rollback", func(t *testing.T) {
			boom := errors.New("boom")
			err := db.Write(ctx, func(tx pipeline.Tx) error {
				j, err := tx.Jobs().Insert(ctx, pipeline.InsertJobParams{Job: pipeline.Job{
					TeamID: acme, OwnerID: f.User("olivia"), Title: "Doomed", Status: pipeline.JobOpen,
					WorkMode: "onsite", EmploymentType: "full_time",
					ApplicationDeadline: time.Now(), CreatedAt: time.Now(), UpdatedAt: time.Now(),
				}, Stages: pipeline.DefaultStages})
				require.NoError(t, err)
				require.NoError(t, tx.Activity().Insert(ctx, pipeline.Activity{
					TeamID: acme, UserID: f.User("olivia"), Action: pipeline.ActionJobCreated,
					SubjectType: pipeline.SubjectJob, SubjectID: j.ID, Changes: []byte(`{}`), CreatedAt: time.Now(),
				}))
				return boom
			})
			require.ErrorIs(t, err, boom)
			l, err := db.Jobs().List(ctx, pipeline.ListJobsParams{Viewer: f.User("olivia"), Filter: pipeline.JobFilter{Status: pipeline.JobOpen, Search: "Doomed", Page: 1}})
			require.NoError(t, err)
			assert.Zero(t, l.Total)
			acts, err := db.Activity().List(ctx, pipeline.ActivityFilter{})
			require.NoError(t, err)
			assert.Empty(t, acts)
		})

		t.Run("domain error returned as is", func(t *testing.T) {
			err := db.Write(ctx, func(tx pipeline.Tx) error {
				_, err := tx.Jobs().Lock(ctx, pipeline.JobParams{Viewer: f.User("gary"), ID: f.Job("backend")})
				return err
			})
			requireCode(t, pipeline.ENotFound, err)
		})
	})
}

// TestDB_ConcurrentWrites runs many write transactions at once, with reads
// beside them: on SQLite none may fail with "database is locked".
func TestDB_ConcurrentWrites(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := seeded(t, db)
		ctx := f.As(t, "olivia")
		backend, ada := f.Job("backend"), f.Res.Candidates["ada"]
		stages := f.Res.Stages["backend"]

		const writers, rounds = 20, 3
		var wg sync.WaitGroup
		errs := make(chan error, writers*rounds*3)
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range rounds {
					_, err := f.Svc.AddNote(ctx, backend, ada, pipeline.NewNote{Content: fmt.Sprintf("note %d/%d", i, k)})
					errs <- err
					st := stages[pipeline.DefaultStages[(i+k)%len(pipeline.DefaultStages)]]
					_, err = f.Svc.MoveCandidate(ctx, backend, ada, pipeline.CandidateMove{StageID: st})
					errs <- err
					_, err = f.Svc.GetCandidate(ctx, backend, ada)
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		c, err := f.Svc.GetCandidate(ctx, backend, ada)
		require.NoError(t, err)
		assert.Equal(t, writers*rounds, c.NotesCount)
	})
}

// TestDB_RoundTrip checks that dates and timestamps come back identical on
// both databases: dates at UTC midnight, timestamps in UTC to the
// microsecond.
func TestDB_RoundTrip(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.FixedZone("X", 5*3600))
	deadline := time.Date(2026, 3, 31, 23, 30, 0, 0, time.UTC)
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := seeded(t, db)
		ctx := context.Background()
		var id int64
		require.NoError(t, db.Write(ctx, func(tx pipeline.Tx) error {
			j, err := tx.Jobs().Insert(ctx, pipeline.InsertJobParams{Job: pipeline.Job{
				TeamID: f.Res.Teams["acme"], OwnerID: f.User("olivia"), Title: "Round trip", Status: pipeline.JobDraft,
				Description: "<p>é</p>", WorkMode: "remote", EmploymentType: "contract",
				ApplicationDeadline: deadline, CreatedAt: created, UpdatedAt: created.Add(time.Second),
			}, Stages: []string{"One", "Two"}})
			id = j.ID
			return err
		}))
		j, err := db.Jobs().Get(ctx, pipeline.JobParams{Viewer: f.User("olivia"), ID: id})
		require.NoError(t, err)
		assert.Equal(t, time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC), j.ApplicationDeadline)
		assert.Equal(t, time.UTC, j.ApplicationDeadline.Location())
		assert.Equal(t, time.Date(2026, 1, 1, 22, 4, 5, 123456000, time.UTC), j.CreatedAt)
		assert.Equal(t, time.UTC, j.CreatedAt.Location())
		assert.Equal(t, time.Date(2026, 1, 1, 22, 4, 6, 123456000, time.UTC), j.UpdatedAt)
		assert.Equal(t, "<p>é</p>", j.Description)
		assert.Equal(t, "remote", j.WorkMode)
		assert.Equal(t, "contract", j.EmploymentType)

		c, err := db.Candidates().Get(ctx, pipeline.CandidateParams{Viewer: f.User("olivia"), JobID: f.Job("backend"), ID: f.Res.Candidates["ada"]})
		require.NoError(t, err)
		assert.Equal(t, time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), c.Applied)
		assert.Equal(t, time.UTC, c.Applied.Location())

		st, err := db.Jobs().Stages(ctx, pipeline.JobParams{Viewer: f.User("olivia"), ID: id})
		require.NoError(t, err)
		require.Len(t, st, 2)
		assert.Equal(t, pipeline.Stage{ID: st[0].ID, JobID: id, Name: "One", Position: 1}, st[0])
		assert.Equal(t, "Two", st[1].Name)
	})
}
