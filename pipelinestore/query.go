package pipelinestore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"
)

// pool is one database/sql pool with its Bun handle and the statements
// prepared on it. The statements of the request path are prepared once per
// connection and run with bound arguments, so that the database parses and
// plans each of them once instead of on every request. Bun maps their rows;
// the rarer statements (migrations, seeding, operator queries) go through
// Bun's query builder.
type pool struct {
	bun   *bun.DB
	pg    bool
	hooks []bun.QueryHook // also registered on bun, for the statements Bun runs

	stmts sync.Map // query text as written → *sql.Stmt

	// preparing is held while the registry is prepared: a channel, so that
	// a request waiting for it gives up at its deadline.
	preparing chan struct{}
	prepared  bool // every statement of the registry is in stmts
}

// A statement is prepared on a pool, then on each connection the first time
// it runs there. Preparing on the pool takes a free connection, which a
// transaction must never wait for: it may hold the last one (SQLite's
// writer has only one). So every statement a transaction runs is written
// down here, and Write prepares them all on the pool before its first
// transaction begins.
var registry []struct {
	query   string
	dialect string // "": both
}

func register(query, dialect string) string {
	registry = append(registry, struct {
		query   string
		dialect string
	}{query, dialect})
	return query
}

// prepared registers a statement of both dialects and returns it.
func prepared(query string) string { return register(query, "") }

// preparedPG registers a statement that only PostgreSQL runs.
func preparedPG(query string) string { return register(query, DialectPostgres) }

// preparedSQLite registers a statement that only SQLite runs.
func preparedSQLite(query string) string { return register(query, DialectSQLite) }

// lockable is a read that a transaction may also run to lock the rows it
// reads, which only PostgreSQL needs: SQLite's write transactions are
// serialized from their first statement (BEGIN IMMEDIATE on the one writer
// connection).
type lockable struct{ plain, locked string }

// preparedLockable registers a read and its locking form, query followed
// by clause.
func preparedLockable(query, clause string) lockable {
	return lockable{plain: prepared(query), locked: preparedPG(query + clause)}
}

// prepareAll prepares the registry's statements on the pool, once.
func (p *pool) prepareAll(ctx context.Context) error {
	select {
	case p.preparing <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-p.preparing }()
	if p.prepared {
		return nil
	}
	dialect := DialectSQLite
	if p.pg {
		dialect = DialectPostgres
	}
	for _, r := range registry {
		if r.dialect != "" && r.dialect != dialect {
			continue
		}
		if _, err := p.stmt(ctx, r.query); err != nil {
			return fmt.Errorf("pipelinestore: prepare %q: %w", r.query, err)
		}
	}
	p.prepared = true
	return nil
}

func newPool(b *bun.DB, pg bool, hooks []bun.QueryHook) *pool {
	for _, h := range hooks {
		b.AddQueryHook(h)
	}
	return &pool{bun: b, pg: pg, hooks: hooks, preparing: make(chan struct{}, 1)}
}

// addHook adds a query hook to the pool, for what Bun runs and what it runs
// itself. It is not safe to call while queries run.
func (p *pool) addHook(h bun.QueryHook) {
	p.hooks = append(p.hooks, h)
	p.bun.AddQueryHook(h)
}

// stmt returns the prepared statement of query, preparing it on first use.
// Queries are written with PostgreSQL's $1 placeholders; SQLite reads the
// same numbered parameters as ?1.
func (p *pool) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if s, ok := p.stmts.Load(query); ok {
		return s.(*sql.Stmt), nil
	}
	s, err := p.bun.DB.PrepareContext(ctx, p.dialectText(query))
	if err != nil {
		return nil, err
	}
	if prev, raced := p.stmts.LoadOrStore(query, s); raced {
		_ = s.Close()
		return prev.(*sql.Stmt), nil
	}
	return s, nil
}

// dialectText is a query as the pool's database reads it: SQLite takes
// PostgreSQL's numbered parameters $n as ?n.
func (p *pool) dialectText(query string) string {
	if p.pg {
		return query
	}
	return strings.ReplaceAll(query, "$", "?")
}

// close closes the prepared statements.
func (p *pool) close() {
	p.stmts.Range(func(q, s any) bool {
		_ = s.(*sql.Stmt).Close()
		p.stmts.Delete(q)
		return true
	})
}

// runner runs prepared statements on a pool, or inside one of its
// transactions when tx is set.
type runner struct {
	p     *pool
	tx    *bun.Tx
	raw   bool   // see planned
	later *batch // see deferred; nil outside a PostgreSQL transaction
}

// batch is a transaction's writes, waiting to be sent together in one
// round trip. At most one of them returns rows, which scan reads.
type batch struct {
	stmts []string // as written, each numbering its parameters from $1
	nargs []int    // each statement's number of arguments
	args  []any    // every statement's, in order
	scan  func(context.Context, *sql.Rows) error
}

func (b *batch) reset() { b.stmts, b.nargs, b.args, b.scan = nil, nil, nil, nil }

// text is the batch as one simple query: its statements, their parameters
// numbered through.
func (b *batch) text() string {
	var sb strings.Builder
	offset := 0
	for i, q := range b.stmts {
		if i > 0 {
			sb.WriteString(";\n")
		}
		renumber(&sb, q, '$', offset)
		offset += b.nargs[i]
	}
	return sb.String()
}

// renumber writes q to sb with each parameter $n written as mark and
// n+shift.
func renumber(sb *strings.Builder, q string, mark byte, shift int) {
	sb.Grow(len(q) + 8)
	for {
		i := strings.IndexByte(q, '$')
		if i < 0 {
			sb.WriteString(q)
			return
		}
		j := i + 1
		for j < len(q) && '0' <= q[j] && q[j] <= '9' {
			j++
		}
		sb.WriteString(q[:i])
		if j == i+1 {
			sb.WriteByte('$')
		} else {
			n, _ := strconv.Atoi(q[i+1 : j])
			sb.WriteByte(mark)
			sb.WriteString(strconv.Itoa(n + shift))
		}
		q = q[j:]
	}
}

// batchKey is the context key under which flush hands the batch it sends
// to the connection, which may send it as EXECUTEs of its statements
// (lazyConn.batchText).
type batchKey struct{}

// deferred runs a write that returns nothing. Inside a PostgreSQL
// transaction it is sent with the transaction's next statement, or before
// the commit, together with the other writes waiting: one round trip for
// the change, its activity entry and its idempotency record, and row locks
// taken as late as the commit allows. A failure then fails that statement,
// or the commit, and the transaction as a whole.
func (r runner) deferred(ctx context.Context, query string, args ...any) error {
	if r.later == nil {
		_, err := r.exec(ctx, query, args...)
		return err
	}
	r.later.stmts = append(r.later.stmts, query)
	r.later.nargs = append(r.later.nargs, len(args))
	r.later.args = append(r.later.args, args...)
	return nil
}

// deferredReturning is deferred for a write that returns rows, which scan
// reads when the batch is sent; only inside a PostgreSQL transaction.
func (r runner) deferredReturning(ctx context.Context, query string, scan func(context.Context, *sql.Rows) error, args ...any) error {
	if r.later.scan != nil {
		if err := r.flush(ctx); err != nil {
			return err
		}
	}
	if err := r.deferred(ctx, query, args...); err != nil {
		return err
	}
	r.later.scan = scan
	return nil
}

// flush sends the waiting writes as one simple query, whose arguments the
// driver writes into the text; the rows of the one that returns some go
// to its scan.
func (r runner) flush(ctx context.Context) (err error) {
	if r.later == nil || len(r.later.stmts) == 0 {
		return nil
	}
	b := *r.later
	r.later.reset()
	query := b.text()
	ctx, done := r.trace(ctx, query, b.args)
	defer func() { done(nil, err) }()
	sending := context.WithValue(ctx, batchKey{}, &b)
	if b.scan == nil {
		_, err = r.tx.Tx.ExecContext(sending, query, b.args...)
		return err
	}
	rows, err := r.tx.Tx.QueryContext(sending, query, b.args...)
	if err != nil {
		return err
	}
	return b.scan(ctx, rows)
}

// planned returns a runner whose statements PostgreSQL plans for their
// arguments on every run instead of once: the plan of a substring search
// depends on the pattern (a rare name uses the trigram index, a common
// one may not), which a prepared statement's generic plan cannot know.
func (r runner) planned() runner {
	r.raw = r.p.pg
	return r
}

// rawText is query for Bun to format with its arguments: $n becomes Bun's
// zero-based ?n-1.
func (runner) rawText(query string) string {
	var sb strings.Builder
	renumber(&sb, query, '?', -1)
	return sb.String()
}

// rawQuery is query run through Bun, which formats its arguments into it.
func (r runner) rawQuery(query string, args []any) *bun.RawQuery {
	text := r.rawText(query)
	if r.tx != nil {
		return r.tx.NewRaw(text, args...)
	}
	return r.p.bun.NewRaw(text, args...)
}

// prepared returns query's statement, bound to the transaction if any.
func (r runner) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	if r.tx == nil {
		return r.p.stmt(ctx, query)
	}
	s, ok := r.p.stmts.Load(query)
	if !ok {
		// Not in the registry: prepared for this transaction alone, on its
		// own connection.
		return r.tx.Tx.PrepareContext(ctx, r.p.dialectText(query))
	}
	return r.tx.Tx.StmtContext(ctx, s.(*sql.Stmt)), nil
}

// get scans the first row of query into dest (a row struct or scalars); no
// row is sql.ErrNoRows.
func (r runner) get(ctx context.Context, query string, args []any, dest ...any) (err error) {
	if err := r.flush(ctx); err != nil {
		return err
	}
	if r.raw {
		return r.rawQuery(query, args).Scan(ctx, dest...)
	}
	ctx, done := r.trace(ctx, query, args)
	defer func() { done(nil, err) }()
	s, err := r.prepared(ctx, query)
	if err != nil {
		return err
	}
	rows, err := s.QueryContext(ctx, args...)
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
	if r.raw {
		return r.rawQuery(query, args).Scan(ctx, dest)
	}
	ctx, done := r.trace(ctx, query, args)
	defer func() { done(nil, err) }()
	s, err := r.prepared(ctx, query)
	if err != nil {
		return err
	}
	rows, err := s.QueryContext(ctx, args...)
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
