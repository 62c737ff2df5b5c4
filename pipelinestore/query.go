package pipelinestore

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/uptrace/bun"
)

// pool is one database/sql pool with its Bun handle. The statements of the
// request path are written in each dialect's SQL files (see statements)
// and run by the runner, which Bun maps the rows of; the rarer statements
// (migrations, seeding, operator queries) go through Bun.
//
// On PostgreSQL a statement is sent as text, its arguments written in by
// the driver (see pgConn): nothing is prepared on a server connection,
// unless WithPreparedStatements asks for it. On SQLite, which runs in the
// process, the statements are prepared once per pool and then per
// connection.
type pool struct {
	bun   *bun.DB
	pg    bool
	q     *statements     // the dialect's named statements
	hooks []bun.QueryHook // also registered on bun, for the statements Bun runs
	// sessions: PostgreSQL's connections keep the statements prepared on
	// them (see WithPreparedStatements and pgConn.stmts).
	sessions bool

	stmts sync.Map // SQLite: query text as written → *sql.Stmt

	// preparing is held while the registry is prepared: a channel, so that
	// a request waiting for it gives up at its deadline.
	preparing chan struct{}
	prepared  bool // every statement of the registry is in stmts
}

// A SQLite statement is prepared on a pool, then on each connection the
// first time it runs there. Preparing on the pool takes a free connection,
// which a transaction must never wait for: it may hold the last one
// (SQLite's writer has only one). So Write prepares every statement a
// transaction may run before its first transaction begins: the named ones
// and those built (see built).
//
// built are the statements that Go builds rather than names (the candidate
// lists, a write's read of a candidate, an intake's read), for SQLite to
// prepare with the named ones.
var built []string

// prepared registers a statement that Go builds, for SQLite to prepare,
// and returns it.
func prepared(query string) string {
	built = append(built, query)
	return query
}

// prepareAll prepares every statement on a SQLite pool, once.
func (p *pool) prepareAll(ctx context.Context) error {
	if p.pg {
		return nil
	}
	select {
	case p.preparing <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-p.preparing }()
	if p.prepared {
		return nil
	}
	for _, q := range append(p.q.texts(), built...) {
		if _, err := p.stmt(ctx, q); err != nil {
			return fmt.Errorf("pipelinestore: prepare %q: %w", q, err)
		}
	}
	p.prepared = true
	return nil
}

func newPool(b *bun.DB, pg bool, hooks []bun.QueryHook) *pool {
	for _, h := range hooks {
		b.AddQueryHook(h)
	}
	q := sqliteSQL
	if pg {
		q = postgresSQL
	}
	return &pool{bun: b, pg: pg, q: q, hooks: hooks, preparing: make(chan struct{}, 1)}
}

// addHook adds a query hook to the pool, for what Bun runs and what it runs
// itself. It is not safe to call while queries run.
func (p *pool) addHook(h bun.QueryHook) {
	p.hooks = append(p.hooks, h)
	p.bun.AddQueryHook(h)
}

// stmt returns the statement of query, preparing it on first use.
func (p *pool) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if s, ok := p.stmts.Load(query); ok {
		return s.(*sql.Stmt), nil
	}
	s, err := p.bun.DB.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if prev, raced := p.stmts.LoadOrStore(query, s); raced {
		_ = s.Close()
		return prev.(*sql.Stmt), nil
	}
	return s, nil
}

// close closes the prepared statements.
func (p *pool) close() {
	p.stmts.Range(func(q, s any) bool {
		_ = s.(*sql.Stmt).Close()
		p.stmts.Delete(q)
		return true
	})
}

// runner runs the store's statements on a pool, or inside one of its
// transactions when tx is set.
type runner struct {
	p       *pool
	tx      *bun.Tx
	waiting *batch // see batch; nil outside a PostgreSQL transaction
}

// querier is what runs a statement: the pool or a transaction of it.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// on is where r's PostgreSQL statements run.
func (r runner) on() querier {
	if r.tx != nil {
		return r.tx.Tx
	}
	return r.p.bun.DB
}

// text reports whether r sends its statements as text: on PostgreSQL
// without WithPreparedStatements. Otherwise they run prepared, on the
// connection (PostgreSQL) or the pool (SQLite).
func (r runner) text() bool { return r.p.pg && !r.p.sessions }

// query runs a statement that returns rows: on PostgreSQL through the
// connection, which prepares it there with WithPreparedStatements (see
// pgConn.stmts); on SQLite as a statement prepared on the pool.
func (r runner) query(ctx context.Context, query string, args []any) (*sql.Rows, error) {
	if r.p.pg {
		return r.on().QueryContext(ctx, query, args...)
	}
	s, err := r.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
}

// prepared returns query's SQLite statement, bound to the transaction if
// any. A transaction's statements are all in the registry, prepared on the
// pool before the first transaction (see registry); one that is not is
// prepared for the transaction alone.
func (r runner) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	if r.tx == nil {
		return r.p.stmt(ctx, query)
	}
	s, ok := r.p.stmts.Load(query)
	if !ok {
		return r.tx.Tx.PrepareContext(ctx, query)
	}
	return r.tx.Tx.StmtContext(ctx, s.(*sql.Stmt)), nil
}

// get scans the first row of query into dest (a row struct or scalars); no
// row is sql.ErrNoRows.
func (r runner) get(ctx context.Context, query string, args []any, dest ...any) (err error) {
	if err := r.flush(ctx); err != nil {
		return err
	}
	ctx, done := r.trace(ctx, query, args)
	defer func() { done(nil, err) }()
	rows, err := r.query(ctx, query, args)
	if err != nil {
		return err
	}
	return r.scanOne(ctx, rows, dest...)
}

// scanOne scans the first of rows into dest and closes them; no row is
// sql.ErrNoRows.
func (r runner) scanOne(ctx context.Context, rows *sql.Rows, dest ...any) error {
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := r.p.bun.ScanRow(ctx, rows, dest...); err != nil {
		return err
	}
	return rows.Close()
}

// all scans every row of query into dest, a pointer to a slice.
func (r runner) all(ctx context.Context, query string, args []any, dest any) (err error) {
	if err := r.flush(ctx); err != nil {
		return err
	}
	ctx, done := r.trace(ctx, query, args)
	defer func() { done(nil, err) }()
	rows, err := r.query(ctx, query, args)
	if err != nil {
		return err
	}
	return r.p.bun.ScanRows(ctx, rows, dest)
}

// exec runs query for its effect.
func (r runner) exec(ctx context.Context, query string, args ...any) (res sql.Result, err error) {
	if err := r.flush(ctx); err != nil {
		return nil, err
	}
	ctx, done := r.trace(ctx, query, args)
	defer func() { done(res, err) }()
	if r.p.pg {
		return r.on().ExecContext(ctx, query, args...)
	}
	s, err := r.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(ctx, args...)
}

// trace tells the pool's query hooks about a statement, as Bun does for
// the statements it runs, and returns what to call when it is done.
func (r runner) trace(ctx context.Context, query string, args []any) (context.Context, func(sql.Result, error)) {
	if len(r.p.hooks) == 0 {
		return ctx, func(sql.Result, error) {}
	}
	e := &bun.QueryEvent{DB: r.p.bun, Query: query, QueryTemplate: query, QueryArgs: args, StartTime: time.Now()}
	for _, h := range r.p.hooks {
		ctx = h.BeforeQuery(ctx, e)
	}
	return ctx, func(res sql.Result, err error) {
		e.Result, e.Err = res, err
		for i := len(r.p.hooks) - 1; i >= 0; i-- {
			r.p.hooks[i].AfterQuery(ctx, e)
		}
	}
}

// args is a readable way to write a statement's arguments.
func args(a ...any) []any { return a }
