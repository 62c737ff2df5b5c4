// Package pipelinestore implements pipeline.Store on PostgreSQL and SQLite
// with Bun. Open picks the database from its DSN, Migrate applies the
// embedded schema, and the visibility rule, pagination and locking of the
// domain are expressed in SQL so that every read is one round trip in the
// common case.
//
// Row structs with bun tags stay inside this package and are converted to
// domain types at the edge; driver errors are converted in one place
// (formatError).
package pipelinestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/pgdriver"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/pipeline-dev/pipeline/pipeline"
)

// Dialect names returned by DB.Dialect.
const (
	DialectPostgres = "postgres"
	DialectSQLite   = "sqlite"
)

// DB is the store: a PostgreSQL or SQLite database. It is safe for
// concurrent use.
type DB struct {
	// w runs writes. On SQLite it holds exactly one connection, so write
	// transactions queue in Go instead of failing with "database is locked".
	w *bun.DB
	// r runs reads: the same pool as w on PostgreSQL, a separate read-only
	// pool on SQLite, whose WAL lets readers run beside the writer.
	r       *bun.DB
	dialect string

	mu     sync.Mutex
	closed bool
	bg     sync.WaitGroup // background sweeps of the rate limiter
}

var _ pipeline.Store = (*DB)(nil)

// Open opens the database named by dsn: "postgres://…" or "postgresql://…"
// selects PostgreSQL; anything else is a SQLite file path, with an optional
// "sqlite:" prefix. It checks that the database answers but does not
// migrate.
func Open(ctx context.Context, dsn string) (*DB, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return openPostgres(ctx, dsn)
	}
	return openSQLite(ctx, strings.TrimPrefix(dsn, "sqlite:"))
}

func openPostgres(ctx context.Context, dsn string) (*DB, error) {
	connector, err := pgConnector(dsn)
	if err != nil {
		return nil, err
	}
	sqldb := sql.OpenDB(connector)
	sqldb.SetMaxOpenConns(max(32, 4*runtime.GOMAXPROCS(0)))
	sqldb.SetMaxIdleConns(8)
	b := bun.NewDB(sqldb, pgdialect.New())
	if err := b.PingContext(ctx); err != nil {
		b.Close()
		return nil, fmt.Errorf("pipelinestore: connect to PostgreSQL: %w", err)
	}
	return &DB{w: b, r: b, dialect: DialectPostgres}, nil
}

// pgConnector builds the driver's connector, turning its panic on a
// malformed DSN into an error.
func pgConnector(dsn string) (c *pgdriver.Connector, err error) {
	defer func() {
		if p := recover(); p != nil {
			c, err = nil, fmt.Errorf("pipelinestore: invalid PostgreSQL DSN: %v", p)
		}
	}()
	// Tracing is off: no tracer is installed, and the spans cost time on
	// every query.
	return pgdriver.NewConnector(pgdriver.WithDSN(dsn), pgdriver.WithTracing(false)), nil
}

// SQLite settings. The writer begins every transaction with BEGIN IMMEDIATE
// so that a transaction that reads then writes never has to upgrade its lock
// (which is what fails with SQLITE_BUSY despite busy_timeout); busy_timeout
// covers other processes on the same file.
const (
	sqliteWriter = "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)" +
		"&_pragma=foreign_keys(1)&_txlock=immediate"
	sqliteReader = "_pragma=busy_timeout(10000)&_pragma=query_only(1)&_pragma=foreign_keys(1)"
)

func openSQLite(ctx context.Context, path string) (*DB, error) {
	if path == "" || strings.ContainsAny(path, "?#") || path == ":memory:" {
		return nil, fmt.Errorf("pipelinestore: invalid SQLite path %q", path)
	}
	wdb, err := sql.Open("sqlite", path+"?"+sqliteWriter)
	if err != nil {
		return nil, err
	}
	wdb.SetMaxOpenConns(1)
	wdb.SetMaxIdleConns(1)
	wdb.SetConnMaxLifetime(0)
	w := bun.NewDB(wdb, sqlitedialect.New())
	// The writer connects first so that the file exists in WAL mode before
	// any reader opens it.
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("pipelinestore: open SQLite %s: %w", path, err)
	}
	rdb, err := sql.Open("sqlite", path+"?"+sqliteReader)
	if err != nil {
		w.Close()
		return nil, err
	}
	n := max(4, runtime.GOMAXPROCS(0))
	rdb.SetMaxOpenConns(n)
	rdb.SetMaxIdleConns(n)
	r := bun.NewDB(rdb, sqlitedialect.New())
	if err := r.PingContext(ctx); err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("pipelinestore: open SQLite %s: %w", path, err)
	}
	return &DB{w: w, r: r, dialect: DialectSQLite}, nil
}

// Close waits for background work and closes the database.
func (db *DB) Close() error {
	db.mu.Lock()
	db.closed = true
	db.mu.Unlock()
	db.bg.Wait()
	var err error
	if db.r != db.w {
		err = db.r.Close()
	}
	return errors.Join(err, db.w.Close())
}

// Dialect returns "postgres" or "sqlite".
func (db *DB) Dialect() string { return db.dialect }

// Ping reports whether the database answers.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.w.PingContext(ctx); err != nil {
		return err
	}
	if db.r != db.w {
		return db.r.PingContext(ctx)
	}
	return nil
}

// goBackground runs fn in a goroutine that Close waits for; after Close it
// does nothing.
func (db *DB) goBackground(fn func()) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed {
		return
	}
	db.bg.Add(1)
	go func() {
		defer db.bg.Done()
		fn()
	}()
}

// Write runs fn in one transaction, committed when fn returns nil and
// rolled back otherwise; fn's error is returned as is.
func (db *DB) Write(ctx context.Context, fn func(pipeline.Tx) error) error {
	return db.w.RunInTx(ctx, nil, func(ctx context.Context, btx bun.Tx) error {
		return fn(&tx{idb: btx, pg: db.dialect == DialectPostgres})
	})
}

// tx is the pipeline.Tx of a write transaction.
type tx struct {
	idb bun.IDB
	pg  bool
}

var _ pipeline.Tx = (*tx)(nil)

// forUpdate is the row-locking clause for the rows of the table aliased
// alias, or of the only table when alias is empty. It is FOR NO KEY UPDATE:
// it excludes every other writer of the row exactly like FOR UPDATE, but not
// the key-share locks that foreign-key checks take, so inserting an activity
// entry or a note that references the row elsewhere does not wait for it (we
// never change keys). SQLite needs no clause: its write transactions are
// serialized from their first statement (BEGIN IMMEDIATE on the one writer
// connection).
func (t *tx) forUpdate(alias string) string {
	switch {
	case !t.pg:
		return ""
	case alias == "":
		return " FOR NO KEY UPDATE"
	default:
		return " FOR NO KEY UPDATE OF " + alias
	}
}
