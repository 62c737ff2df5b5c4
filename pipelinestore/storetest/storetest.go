// Package storetest opens real, migrated, empty databases for tests, on
// SQLite and PostgreSQL, and seeds the shared fixture World. It is a normal
// package so that the tests of every package can use it.
//
// PostgreSQL tests need the environment variable PIPELINE_TEST_POSTGRES, a
// DSN of a server where the tests may create schemas; each OpenPostgres gets
// a schema of its own, so test processes running in parallel do not
// collide. Without it they are skipped, except under CI=true, where they
// fail, so that CI never silently tests SQLite alone.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// PostgresEnv names the environment variable holding the DSN of the
// PostgreSQL server used by tests.
const PostgresEnv = "PIPELINE_TEST_POSTGRES"

// EachDB runs fn as a subtest "sqlite" and a subtest "postgres", each on a
// fresh, migrated, empty database opened with opts, closed when the
// subtest ends.
func EachDB(t *testing.T, fn func(t *testing.T, db *pipelinestore.DB), opts ...pipelinestore.Option) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, OpenSQLite(t, opts...)) })
	t.Run("postgres", func(t *testing.T) { fn(t, OpenPostgres(t, opts...)) })
}

// OpenSQLite opens a migrated database in a fresh file under tb.TempDir().
func OpenSQLite(tb testing.TB, opts ...pipelinestore.Option) *pipelinestore.DB {
	tb.Helper()
	return open(tb, filepath.Join(tb.TempDir(), "pipeline.db"), opts...)
}

// OpenPostgres opens a migrated database in a fresh schema of the server
// named by PIPELINE_TEST_POSTGRES; the schema is dropped at cleanup.
func OpenPostgres(tb testing.TB, opts ...pipelinestore.Option) *pipelinestore.DB {
	tb.Helper()
	if Prepared() {
		opts = append(opts, pipelinestore.WithPreparedStatements())
	}
	// open registers the close after the schema's cleanup, so it runs
	// before the drop.
	return open(tb, PostgresSchemaDSN(tb), opts...)
}

// PreparedEnv names the environment variable that, set to true, makes
// OpenPostgres open its databases WithPreparedStatements, as pipelined
// serve does on a direct connection.
const PreparedEnv = "PIPELINE_TEST_PREPARED"

// Prepared reports whether PostgreSQL tests run WithPreparedStatements.
func Prepared() bool { return os.Getenv(PreparedEnv) == "true" }

// PoolerEnv names the environment variable that, set to transaction, says
// that PIPELINE_TEST_POSTGRES reaches the server through a transaction
// pooler, where the delivery queue must poll (DeliveryConfig.PollOnly).
const PoolerEnv = "PIPELINE_TEST_POOLER"

// Pooled reports whether PostgreSQL tests run through a transaction pooler.
func Pooled() bool { return os.Getenv(PoolerEnv) == "transaction" }

// PostgresDSN returns the DSN of the test server, skipping the test when
// PIPELINE_TEST_POSTGRES is not set (failing it under CI=true).
func PostgresDSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv(PostgresEnv)
	if dsn == "" {
		const msg = PostgresEnv + " not set: PostgreSQL tests skipped; .ci/run starts a server"
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg + " (CI=true: PostgreSQL tests must run)")
		}
		tb.Skip(msg)
	}
	return dsn
}

// PostgresSchemaDSN creates a fresh, empty schema on the test server and
// returns a DSN whose connections use it, for tests that open the database
// themselves (a server binary, two handles on one schema). The schema is
// dropped at cleanup; close what was opened on it before that, with a
// Cleanup registered after this call.
func PostgresSchemaDSN(tb testing.TB) string {
	tb.Helper()
	dsn := PostgresDSN(tb)
	admin, err := adminDB(dsn)
	if err != nil {
		tb.Fatalf("storetest: connect to PostgreSQL: %v", err)
	}
	schema := "pipeline_test_" + randomHex(8)
	if _, err := admin.ExecContext(context.Background(), "CREATE SCHEMA "+schema); err != nil {
		tb.Fatalf("storetest: create schema: %v", err)
	}
	Report("postgres: %s", tb.Name())
	tb.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			tb.Errorf("storetest: drop schema %s: %v", schema, err)
		}
	})
	return withSearchPath(tb, dsn, schema)
}

var (
	adminOnce sync.Once
	admin     *sql.DB
	adminErr  error
)

// adminDB is one small pool per test process for creating and dropping
// schemas.
func adminDB(dsn string) (*sql.DB, error) {
	adminOnce.Do(func() {
		defer func() {
			if p := recover(); p != nil { // pgdriver panics on a malformed DSN
				adminErr = fmt.Errorf("invalid %s: %v", PostgresEnv, p)
			}
		}()
		admin = sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
		admin.SetMaxOpenConns(2)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		adminErr = installExtensions(ctx, admin)
	})
	return admin, adminErr
}

// installExtensions installs the extensions the migrations use in the
// public schema, once per server. A migration would install them in the
// first schema of its search path, the test's own, which is dropped at the
// end of the test, taking with it the indexes of every other test's schema
// that use them.
func installExtensions(ctx context.Context, admin *sql.DB) error {
	tx, err := admin.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	// Test processes start at once: one installs, the others wait.
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext('pipelinestore.storetest.extensions'))"); err != nil {
		return err
	}
	for _, ext := range []string{"pg_trgm", "btree_gist"} {
		if _, err := tx.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS "+ext+" SCHEMA public"); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func withSearchPath(tb testing.TB, dsn, schema string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatalf("storetest: %s: %v", PostgresEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Seed seeds World(time.Now()) through op.Seed and returns what it created.
func Seed(tb testing.TB, op *pipeline.Operator) pipeline.SeedResult {
	tb.Helper()
	res, err := op.Seed(context.Background(), World(time.Now()))
	if err != nil {
		tb.Fatalf("storetest: seed: %v", err)
	}
	return res
}
