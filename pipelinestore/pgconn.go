package pipelinestore

import (
	"context"
	"database/sql/driver"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"
)

// PostgreSQL connections keep no state of the store between transactions,
// so that the store runs the same behind a transaction pooler (PgBouncer's
// pool_mode = transaction), which lends each transaction whichever server
// connection is free, as on a direct connection:
//
//   - Nothing is prepared: pgdriver writes a statement's arguments into its
//     text and sends it as a simple query, which the server parses and
//     plans at each run.
//   - Run-time parameters (the DSN's own, such as search_path or
//     application_name, and the statement timeout of WithStatementTimeout)
//     are not set on the session after connecting, as the driver would, on
//     the one server connection a pooler happened to lend (and then to
//     other clients): each transaction sets them with SET LOCAL, in the
//     same round trip as its BEGIN; a statement outside a transaction sets
//     them in front of itself, in the same simple query, which PostgreSQL
//     runs as one implicit transaction.
//   - Locks are taken for a transaction (pg_try_advisory_xact_lock, FOR NO
//     KEY UPDATE), never for the session; migrations are serialized by a
//     lock that an open transaction holds (see lockMigrations).
//
// WithPreparedStatements turns such state on, for a direct connection:
// then the statements are prepared on each connection (a transaction
// still begins lazily: its BEGIN goes before its first statement, see
// pgStmt) and the run-time parameters are set on it when it opens.

// settingName is the form of a run-time parameter's name (a placeholder
// for an extension's, such as pg_trgm.similarity_threshold, included).
var settingName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)

// settings is the SET LOCAL statements of the run-time parameters params,
// in name order, each value one literal (as the driver would SET it on
// connecting), followed by a newline each.
func settings(params map[string]string) (string, error) {
	names := make([]string, 0, len(params))
	for name := range params {
		names = append(names, name)
	}
	slices.Sort(names)
	var sb strings.Builder
	for _, name := range names {
		if !settingName.MatchString(name) {
			return "", fmt.Errorf("pipelinestore: invalid run-time parameter %q in the PostgreSQL DSN", name)
		}
		sb.WriteString("SET LOCAL " + name + " TO '" + strings.ReplaceAll(params[name], "'", "''") + "';\n")
	}
	return sb.String(), nil
}

// timeoutParams are the run-time parameters of WithStatementTimeout.
func timeoutParams(timeout time.Duration) map[string]string {
	if timeout <= 0 {
		return nil
	}
	// A transaction idles only while Go runs between its statements; the
	// idle timeout ends one whose client vanished (its process stuck, its
	// network cut) and left locks held, with a floor that a pause of the
	// process does not reach.
	return map[string]string{
		"statement_timeout":                   milliseconds(timeout),
		"idle_in_transaction_session_timeout": milliseconds(max(timeout, time.Second)),
	}
}

// pgConnector makes the store's connections to PostgreSQL: pgdriver's,
// which set the DSN's run-time parameters and those of extra in every
// transaction rather than when connecting (a parameter of the DSN wins),
// and count their round trips in roundTrips. With sessions (see
// WithPreparedStatements) the parameters are set on the connection when
// it opens instead, plan_cache_mode=force_generic_plan with them. It
// turns the driver's panic on a malformed DSN into an error.
func pgConnector(dsn string, extra map[string]string, sessions bool, roundTrips *atomic.Int64) (c driver.Connector, err error) {
	defer func() {
		if p := recover(); p != nil {
			c, err = nil, fmt.Errorf("pipelinestore: invalid PostgreSQL DSN: %v", p)
		}
	}()
	params := map[string]string{}
	for k, v := range extra {
		params[k] = v
	}
	if sessions {
		// The prepared reads are built to walk an index whatever their
		// arguments (TestStore_ListPlans); left to choose, PostgreSQL may
		// plan a list anew on every execution instead.
		params["plan_cache_mode"] = "force_generic_plan"
	}
	takeParams := func(conf *pgdriver.Config) {
		for k, v := range conf.ConnParams {
			params[k] = fmt.Sprint(v)
		}
		conf.ConnParams = nil
		if sessions {
			conf.ConnParams = map[string]any{}
			for k, v := range params {
				conf.ConnParams[k] = v
			}
			clear(params)
		}
	}
	// The driver's own tracing is off: no tracer is installed, and the
	// spans cost time on every query. Query hooks see every statement.
	pc := pgdriver.NewConnector(pgdriver.WithDSN(dsn), takeParams, pgdriver.WithTracing(false),
		withFaultConns, pgdriver.WithResetSessionFunc(resetSession))
	set, err := settings(params)
	if err != nil {
		return nil, err
	}
	return connector{Connector: pc, settings: set, roundTrips: roundTrips, prepare: sessions}, nil
}

// connector makes the store's pgConns.
type connector struct {
	*pgdriver.Connector
	settings   string
	roundTrips *atomic.Int64
	prepare    bool // see pgConn.stmts
}

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	pc := &pgConn{Conn: cn.(*pgdriver.Conn), settings: c.settings, roundTrips: c.roundTrips}
	if c.prepare {
		pc.stmts = map[string]pgStmt{}
	}
	return pc, nil
}

// pgConn is a driver connection that sets the store's run-time parameters
// in each transaction, and outside one in front of each statement (see
// above): what a transaction pooler needs, checked by TestDB_LazyBegin and
// TestDB_TransactionSettings, and by the whole store suite that .ci/run
// runs again through PgBouncer in transaction mode. A transaction of the
// default isolation begins lazily: its BEGIN and settings go with its
// first statement, in one simple query, and a transaction that sent
// nothing ends without a word. database/sql uses a connection from one
// goroutine at a time.
//
// What it buys: a round trip of every write, whose BEGIN travels with its
// first statement, as the benchmark's baseline's does. Measured on
// 2026-11-27 with a write's COMMIT in its last batch as well (gone since:
// River inserts its jobs after the last batch), every write ran 2–27
// points closer to the baseline at one connection than without the two;
// at 32 neither showed beyond the rounds' spread (cmd/pipelinebench/README.md,
// "BEGIN and COMMIT with the statements beside them").
type pgConn struct {
	*pgdriver.Conn
	settings   string        // SET LOCAL statements, or ""
	roundTrips *atomic.Int64 // round trips to the server, each a message and its answer
	inTx       bool          // a transaction is open, or waits to be
	opening    string        // the waiting transaction's BEGIN and settings, or ""
	// stmts are the statements prepared on the connection by their text,
	// with WithPreparedStatements (else nil): a statement with arguments
	// is prepared the first time it runs on the connection, then bound
	// and executed, as a client's statement cache does.
	stmts map[string]pgStmt
	// prepares counts the statements prepared on the connection, as the
	// driver does to name them ("pgdriver-N", see pgStmt.name).
	prepares int
}

var (
	_ driver.ConnBeginTx        = (*pgConn)(nil)
	_ driver.ExecerContext      = (*pgConn)(nil)
	_ driver.QueryerContext     = (*pgConn)(nil)
	_ driver.ConnPrepareContext = (*pgConn)(nil)
	_ driver.SessionResetter    = (*pgConn)(nil)
	_ driver.Validator          = (*pgConn)(nil)
	_ driver.Pinger             = (*pgConn)(nil)
)

func (c *pgConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx begins a transaction of the default isolation lazily; others at
// once, with their settings.
func (c *pgConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if !c.IsValid() {
		return nil, driver.ErrBadConn // database/sql takes another
	}
	if opts.Isolation != driver.IsolationLevel(0) || opts.ReadOnly {
		t, err := c.Conn.BeginTx(ctx, opts)
		if err == nil && c.settings != "" {
			c.roundTrips.Add(1)
			if _, err = c.Conn.ExecContext(ctx, c.settings, nil); err != nil {
				_ = t.Rollback()
			}
		}
		// (the driver's t ends with a COMMIT or ROLLBACK, as pgTx does)
		if err != nil {
			return nil, err
		}
		c.roundTrips.Add(1)
		c.inTx = true
		return pgTx{c}, nil
	}
	c.inTx, c.opening = true, "BEGIN;\n"+c.settings
	return pgTx{c}, nil
}

// prefix is what goes in front of the next statement: the waiting
// transaction's opening, or outside a transaction the settings.
func (c *pgConn) prefix() string {
	if !c.inTx {
		return c.settings
	}
	p := c.opening
	c.opening = ""
	return p
}

// sendOpening sends a waiting transaction's opening on its own.
func (c *pgConn) sendOpening(ctx context.Context) error {
	if c.opening == "" {
		return nil
	}
	c.roundTrips.Add(1)
	_, err := c.Conn.ExecContext(ctx, c.prefix(), nil)
	return err
}

func (c *pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if text, ok, err := c.batchText(ctx, args); err != nil || ok {
		if err != nil {
			return nil, err
		}
		c.roundTrips.Add(1)
		return c.Conn.ExecContext(ctx, c.prefix()+text, args)
	}
	s, err := c.stmt(ctx, query, args)
	if err != nil {
		return nil, err
	}
	if s.Stmt != nil {
		return s.ExecContext(ctx, args)
	}
	c.roundTrips.Add(1)
	return c.Conn.ExecContext(ctx, c.prefix()+withoutComments(query, args), args)
}

func (c *pgConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if text, ok, err := c.batchText(ctx, args); err != nil || ok {
		if err != nil {
			return nil, err
		}
		c.roundTrips.Add(1)
		return c.Conn.QueryContext(ctx, c.prefix()+text, args)
	}
	s, err := c.stmt(ctx, query, args)
	if err != nil {
		return nil, err
	}
	if s.Stmt != nil {
		return s.QueryContext(ctx, args)
	}
	c.roundTrips.Add(1)
	return c.Conn.QueryContext(ctx, c.prefix()+withoutComments(query, args), args)
}

// ResetSession runs before the connection is handed out again, when no
// transaction of it can be open.
func (c *pgConn) ResetSession(ctx context.Context) error {
	c.inTx, c.opening = false, ""
	return c.Conn.ResetSession(ctx)
}

// pgTx ends a transaction of a pgConn: one that sent nothing has nothing
// to end.
type pgTx struct{ c *pgConn }

func (t pgTx) Commit() error   { return t.end("COMMIT") }
func (t pgTx) Rollback() error { return t.end("ROLLBACK") }

func (t pgTx) end(command string) error {
	c := t.c
	c.inTx = false
	if c.opening != "" {
		c.opening = ""
		return nil
	}
	c.roundTrips.Add(1)
	_, err := c.Conn.ExecContext(context.Background(), command, nil)
	return err
}
