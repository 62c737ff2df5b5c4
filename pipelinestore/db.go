// Package pipelinestore implements pipeline.Store on PostgreSQL and SQLite
// with Bun. Open picks the database from its DSN, Migrate applies the
// embedded schema, and the visibility rule, pagination and locking of the
// domain are expressed in SQL so that every read is one round trip in the
// common case.
//
// On PostgreSQL the store keeps nothing on a server connection between
// transactions, so that it runs behind a transaction pooler (PgBouncer
// with pool_mode = transaction) as it does on a direct connection:
// statements travel as text with their arguments, run-time parameters are
// set in each transaction, locks belong to transactions, and migrations
// are serialized by a lock that an open transaction holds. No setting is
// needed for a pooler; WithPreparedStatements trades that independence for
// speed on a direct connection.
//
// The SQL is in files, a file per aggregate: sql/common/*.sql holds the
// statements both dialects run alike, sql/postgres/*.sql and
// sql/sqlite/*.sql those each dialect runs its own way (see
// statements.go). The PostgreSQL driver's additions, each in a file of its
// own whose comment says what it buys: pgconn.go (settings per
// transaction, the lazy BEGIN), pgbatch.go (a transaction's writes in one
// round trip), pgprepared.go (WithPreparedStatements), pgfault.go (a
// connection whose read or write failed is dropped), pgcomments.go (the
// comments the driver misreads).
//
// Row structs with bun tags stay inside this package and are converted to
// domain types at the edge; driver errors are converted in one place
// (formatError).
package pipelinestore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
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
	w *pool
	// r runs reads: the same pool as w on PostgreSQL, a separate read-only
	// pool on SQLite, whose WAL lets readers run beside the writer.
	r       *pool
	dialect string
	q       *statements            // the dialect's named statements
	schema  string                 // PostgreSQL's current schema, which scopes advisory locks
	owned   bool                   // Open opened the pools, so Close closes them
	river   *river.Client[*sql.Tx] // inserts webhook messages (see queue.go)
	blobs   BlobStore              // documents' bytes; nil: in the database
	// dsn is PostgreSQL's DSN when Open opened the pool: the operator's
	// work connects with it, without the statement timeout (see
	// onOperatorDB).
	dsn        string
	roundTrips *atomic.Int64 // round trips to PostgreSQL, when Open made the pool

	mu     sync.Mutex
	closed bool
	bg     sync.WaitGroup // background sweeps of the rate limiter, folds of the counts

	folder    stageCountsFolder // PostgreSQL's stage counts (counts.go)
	largeJobs largeJobs         // whose searches are planned at each run (candidate.go)
}

var _ pipeline.Store = (*DB)(nil)

// Option configures Open.
type Option func(*options)

type options struct {
	maxConns         int
	sqlDB            *sql.DB
	hooks            []bun.QueryHook
	statementTimeout time.Duration
	sessions         bool
	largeJobSize     int64 // see largeJobs; 0 is largeJobSize
	blobs            BlobStore
}

// DefaultMaxConns is the PostgreSQL pool size when WithMaxConns is not
// given: enough connections for the database to stay busy while requests
// wait on it, and never fewer than 32.
func DefaultMaxConns() int { return max(32, 4*runtime.GOMAXPROCS(0)) }

// WithMaxConns sets how many connections the pool holds open: on
// PostgreSQL the whole pool, all of it kept when idle so that a burst does
// not reconnect; on SQLite the readers beside the one writer.
func WithMaxConns(n int) Option { return func(o *options) { o.maxConns = n } }

// WithSQLDB makes the store use an existing pool instead of opening one; the
// DSN still names the dialect. The store leaves the pool's settings alone
// and does not close it. On SQLite the one pool serves reads and writes, and
// should hold a single connection (SetMaxOpenConns(1)) so that writers
// queue rather than fail with "database is locked". On PostgreSQL the
// pool's transactions begin with a BEGIN of their own (a round trip more
// than on the store's own pool), and run-time parameters are whatever the
// pool's connections carry.
func WithSQLDB(db *sql.DB) Option { return func(o *options) { o.sqlDB = db } }

// WithStatementTimeout bounds how long the database itself works on, or
// waits for, one statement, so that a statement whose caller has given up
// (its context's deadline passed) does not go on holding locks and
// connections. It is a safety net under the deadline of the context, which
// the store honours on both databases. On PostgreSQL it sets
// statement_timeout (which also bounds waiting for a row lock) and
// idle_in_transaction_session_timeout (at least a second) in every
// transaction, and for every statement outside one, with SET LOCAL (never
// on the connection: see pgConn); Open's first query, Migrate, Seed and
// the purge of idempotency records, which may rightly take longer, run on
// connections of their own without it. On SQLite it is the busy timeout: how long a
// write waits for another process's lock on the file (default 10 s). A
// statement cut short by it is pipeline.ErrUnavailable. It does not apply
// to a pool given with WithSQLDB, whose settings are left alone. Zero: no
// timeout on PostgreSQL.
func WithStatementTimeout(d time.Duration) Option {
	return func(o *options) { o.statementTimeout = d }
}

// WithPreparedStatements lets the store keep state on PostgreSQL's server
// connections, for speed on a direct connection (or a session pooler):
// every statement of the request path, reads and a write transaction's
// statements alike, runs as a statement prepared on each connection and
// planned once there (plan_cache_mode=force_generic_plan), instead of
// parsed and planned at every run; run-time parameters, the statement
// timeout's included, are set on each connection when it opens. A write
// transaction's batch then goes as one simple query of EXECUTEs of its
// prepared statements (see batch). Never use
// it behind a transaction pooler (PgBouncer's pool_mode = transaction),
// which lends a connection's statements and settings to whichever client
// comes next: without it the store keeps nothing on a server connection
// (see pgConn). It does not apply to a pool given with WithSQLDB.
func WithPreparedStatements() Option { return func(o *options) { o.sessions = true } }

// WithQueryHook adds a Bun query hook, told of every statement the store
// sends (for tracing or logging).
func WithQueryHook(h bun.QueryHook) Option {
	return func(o *options) { o.hooks = append(o.hooks, h) }
}

// Open opens the database named by dsn: "postgres://…" or "postgresql://…"
// selects PostgreSQL; anything else is a SQLite file path, with an optional
// "sqlite:" prefix. It checks that the database answers but does not
// migrate.
func Open(ctx context.Context, dsn string, opts ...Option) (*DB, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.maxConns < 0 {
		return nil, fmt.Errorf("pipelinestore: invalid pool size %d", o.maxConns)
	}
	if o.statementTimeout < 0 {
		return nil, fmt.Errorf("pipelinestore: invalid statement timeout %s", o.statementTimeout)
	}
	var db *DB
	var err error
	if IsPostgres(dsn) {
		db, err = openPostgres(ctx, dsn, o)
	} else {
		db, err = openSQLite(ctx, strings.TrimPrefix(dsn, "sqlite:"), o)
	}
	if err != nil {
		return nil, err
	}
	db.blobs = o.blobs
	if db.river, err = db.newInserter(); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return db, nil
}

// IsPostgres reports whether dsn names a PostgreSQL database.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

func openPostgres(ctx context.Context, dsn string, o options) (*DB, error) {
	sqldb := o.sqlDB
	var roundTrips atomic.Int64
	if sqldb == nil {
		connector, err := pgConnector(dsn, timeoutParams(o.statementTimeout), o.sessions, &roundTrips)
		if err != nil {
			return nil, err
		}
		sqldb = sql.OpenDB(connector)
		n := cmp.Or(o.maxConns, DefaultMaxConns())
		sqldb.SetMaxOpenConns(n)
		sqldb.SetMaxIdleConns(n)
	}
	b := bun.NewDB(sqldb, pgdialect.New())
	p := newPool(b, true, o.hooks)
	p.sessions = o.sessions && o.sqlDB == nil
	db := &DB{w: p, r: p, dialect: DialectPostgres, q: p.q, owned: o.sqlDB == nil, roundTrips: &roundTrips}
	db.largeJobs.limit = o.largeJobSize
	if o.sqlDB == nil {
		db.dsn = dsn
	}
	// The probe is the operator's work: a statement timeout shorter than
	// a new connection's first statement must not fail Open.
	err := db.onOperatorDB(func(ob *bun.DB) error {
		return ob.QueryRowContext(ctx, "SELECT COALESCE(current_schema(), '')").Scan(&db.schema)
	})
	if err == nil && o.statementTimeout > 0 {
		// The pool's own settings are checked too: a value the server
		// refuses fails Open, not requests.
		err = b.PingContext(ctx)
	}
	if err != nil {
		if o.sqlDB == nil {
			b.Close()
		}
		return nil, fmt.Errorf("pipelinestore: connect to PostgreSQL: %w", err)
	}
	return db, nil
}

// milliseconds is d as a run-time parameter's value, at least 1.
func milliseconds(d time.Duration) string {
	return strconv.FormatInt(max(d.Milliseconds(), 1), 10)
}

// SQLite settings. The writer begins every transaction with BEGIN IMMEDIATE
// so that a transaction that reads then writes never has to upgrade its lock
// (which is what fails with SQLITE_BUSY despite busy_timeout); busy_timeout
// covers other processes on the same file.
const (
	// secure_delete: deleted content is overwritten with zeros, so that
	// an erasure leaves no trace in the file (privacy.md).
	sqliteWriter = "_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_pragma=secure_delete(1)&_txlock=immediate"
	sqliteReader = "_pragma=query_only(1)&_pragma=foreign_keys(1)"
	// sqliteBusyTimeout is the busy timeout without WithStatementTimeout.
	sqliteBusyTimeout = 10 * time.Second
)

func openSQLite(ctx context.Context, path string, o options) (*DB, error) {
	if o.sqlDB != nil {
		b := bun.NewDB(o.sqlDB, sqlitedialect.New())
		if err := b.PingContext(ctx); err != nil {
			return nil, fmt.Errorf("pipelinestore: open SQLite: %w", err)
		}
		p := newPool(b, false, o.hooks)
		return &DB{w: p, r: p, dialect: DialectSQLite, q: p.q}, nil
	}
	if path == "" || path == ":memory:" {
		return nil, fmt.Errorf("pipelinestore: invalid SQLite path %q", path)
	}
	// The writer connects first so that the file exists in WAL mode before
	// any reader opens it.
	busy := fmt.Sprintf("_pragma=busy_timeout(%d)&", max(cmp.Or(o.statementTimeout, sqliteBusyTimeout).Milliseconds(), 1))
	w, err := openSQLitePool(ctx, path, busy+sqliteWriter, 1)
	if err != nil {
		return nil, err
	}
	r, err := openSQLitePool(ctx, path, busy+sqliteReader, cmp.Or(o.maxConns, max(4, runtime.GOMAXPROCS(0))))
	if err != nil {
		w.Close()
		return nil, err
	}
	wp := newPool(w, false, o.hooks)
	return &DB{w: wp, r: newPool(r, false, o.hooks), dialect: DialectSQLite, q: wp.q, owned: true}, nil
}

func openSQLitePool(ctx context.Context, path, params string, conns int) (*bun.DB, error) {
	sqldb, err := sql.Open("sqlite", sqliteURI(path)+"?"+params)
	if err != nil {
		return nil, err
	}
	sqldb.SetMaxOpenConns(conns)
	sqldb.SetMaxIdleConns(conns)
	sqldb.SetConnMaxLifetime(0)
	b := bun.NewDB(sqldb, sqlitedialect.New())
	if err := b.PingContext(ctx); err != nil {
		b.Close()
		return nil, fmt.Errorf("pipelinestore: open SQLite %s: %w", path, err)
	}
	return b, nil
}

// sqliteURI is the SQLite URI of the file at path, whatever characters
// the path holds: ? and # would otherwise end it, and % start an escape.
func sqliteURI(path string) string {
	escaped := strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23").Replace(path)
	if strings.HasPrefix(escaped, "//") {
		// file://x would name the host x: an empty authority keeps the
		// path whole.
		return "file://" + escaped
	}
	return "file:" + escaped
}

// Close waits for background work, closes the prepared statements and,
// unless the pool was given with WithSQLDB, the database.
func (db *DB) Close() error {
	db.mu.Lock()
	db.closed = true
	db.mu.Unlock()
	db.bg.Wait()
	db.w.close()
	if db.r != db.w {
		db.r.close()
	}
	if !db.owned {
		return nil
	}
	var err error
	if db.r != db.w {
		err = db.r.bun.Close()
	}
	return errors.Join(err, db.w.bun.Close())
}

// Dialect returns "postgres" or "sqlite".
func (db *DB) Dialect() string { return db.dialect }

// read and write run statements on the pools of reads and writes.
func (db *DB) read() runner  { return runner{p: db.r} }
func (db *DB) write() runner { return runner{p: db.w} }

// Ping reports whether the database answers.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.w.bun.PingContext(ctx); err != nil {
		return formatError(err, "Database")
	}
	if db.r != db.w {
		return formatError(db.r.bun.PingContext(ctx), "Database")
	}
	return nil
}

// goBackground runs fn in a goroutine that Close waits for, and reports
// whether it did: after Close it does nothing.
func (db *DB) goBackground(fn func()) bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed {
		return false
	}
	db.bg.Add(1)
	go func() {
		defer db.bg.Done()
		fn()
	}()
	return true
}

// Write runs fn in one transaction, committed when fn returns nil and
// rolled back otherwise; fn's error is returned as is, except that a
// database that did not answer in time, the commit included, is
// pipeline.ErrUnavailable.
func (db *DB) Write(ctx context.Context, fn func(pipeline.Tx) error) error {
	if err := db.w.prepareAll(ctx); err != nil {
		return formatError(err, "Record")
	}
	pg := db.dialect == DialectPostgres
	var t *tx
	err := db.w.bun.RunInTx(ctx, nil, func(ctx context.Context, btx bun.Tx) error {
		t = &tx{run: runner{p: db.w, tx: &btx}, q: db.q, pg: pg, schema: db.schema, river: db.river, blobs: db.blobs}
		if pg {
			t.run.waiting = &batch{}
		}
		if err := fn(t); err != nil {
			// What waits in the batch is part of the write's checks (an
			// interview's insert is its check of double booking): a
			// write that ends otherwise, a held write's proposal too,
			// sends it before the rollback, so that its failure is the
			// answer, as when each statement went at once. Invalid
			// input (a bad reason) still comes first, as the API's
			// check order puts it.
			if ferr := t.run.flush(ctx); ferr != nil && pipeline.ErrorCode(err) != pipeline.EValidation {
				return ferr
			}
			return err
		}
		return formatError(t.enqueuePending(ctx), "Record")
	})
	if err != nil && t != nil && t.booking {
		err = bookingError(err)
	}
	if err == nil && t.countsChanged {
		db.appended()
	}
	if err == nil {
		db.afterCommit(ctx, t.committed)
	}
	return formatError(err, "Record")
}

// tx is the pipeline.Tx of a write transaction.
type tx struct {
	run    runner
	q      *statements
	pg     bool
	schema string
	river  *river.Client[*sql.Tx]
	// pending are the messages of the entries logged, to enqueue before
	// the commit.
	pending []pipeline.WebhookMessage
	// booking: an interview's insert or update waited in a batch, whose
	// deadlock with another booking is that booking's win (see
	// bookingError).
	booking bool
	// places are the positions the transaction's invitation mails took,
	// per change of an interview (see place).
	places map[mailChange]int
	// jobs are River jobs to insert before the commit, with the webhook
	// messages (see enqueuePending).
	jobs []river.InsertManyParams
	// countsChanged: the transaction appended deltas of the stages' counts
	// (PostgreSQL), to fold once it commits.
	countsChanged bool
	blobs         BlobStore
	// committed are what to do once the transaction has committed: remove
	// the bytes of deleted documents from the BlobStore.
	committed []func(context.Context) error
}

// afterCommit runs what a committed transaction left to do, even when the
// request that made it has gone: a failure leaves an orphan, which
// RemoveOrphans takes later.
func (db *DB) afterCommit(ctx context.Context, fns []func(context.Context) error) {
	if len(fns) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	for _, fn := range fns {
		_ = fn(ctx)
	}
}

var _ pipeline.Tx = (*tx)(nil)

// Pools returns the database/sql pools of the store by name, for their
// statistics: "postgres" on PostgreSQL; "sqlite_writer" (the one writer
// connection) and "sqlite_readers" on SQLite.
func (db *DB) Pools() map[string]*sql.DB {
	if db.dialect == DialectPostgres {
		return map[string]*sql.DB{"postgres": db.w.bun.DB}
	}
	if db.r == db.w {
		return map[string]*sql.DB{"sqlite": db.w.bun.DB}
	}
	return map[string]*sql.DB{"sqlite_writer": db.w.bun.DB, "sqlite_readers": db.r.bun.DB}
}
