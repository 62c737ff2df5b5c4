package pipelinestore

import (
	"context"
	"database/sql/driver"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"
)

// faultConn is a network connection to PostgreSQL that remembers a failed
// read or write. After one, the driver may have left a reply unread (a
// statement that timed out is still answered when the server comes back),
// and the next statement on the connection would read that reply as its
// own; the driver closes such a connection itself on some paths but not on
// all (prepared statements, preparing). See resetSession.
type faultConn struct {
	net.Conn
	failed atomic.Bool
}

func (c *faultConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err != nil {
		c.failed.Store(true)
	}
	return n, err
}

func (c *faultConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if err != nil {
		c.failed.Store(true)
	}
	return n, err
}

// withFaultConns makes the driver dial faultConns.
func withFaultConns(conf *pgdriver.Config) {
	dial := conf.Dialer
	conf.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &faultConn{Conn: c}, nil
	}
}

// resetSession runs before database/sql hands out a connection it has
// handed out before: one whose network connection failed is discarded
// (driver.ErrBadConn), and database/sql takes or opens another. It is
// closed here first: database/sql then closes its prepared statements,
// which on an open connection would each wait for the server's answer.
func resetSession(_ context.Context, cn *pgdriver.Conn) error {
	c := cn.Conn()
	if t, ok := c.(interface{ NetConn() net.Conn }); ok { // under TLS
		c = t.NetConn()
	}
	if f, ok := c.(*faultConn); ok && f.failed.Load() {
		_ = cn.Close()
		return driver.ErrBadConn
	}
	return nil
}

// lazyConnector makes connections whose transactions begin lazily (see
// lazyConn), and counts their round trips in trips.
type lazyConnector struct {
	*pgdriver.Connector
	trips *atomic.Int64
}

func (c lazyConnector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &lazyConn{Conn: cn.(*pgdriver.Conn), trips: c.trips}, nil
}

// lazyConn is a driver connection whose transactions send their BEGIN with
// their first statement, in one simple query ("BEGIN; SELECT ..."): a
// round trip less for every transaction. A first statement that is
// prepared goes as "BEGIN; EXECUTE name(...)" of the same query prepared in
// SQL on the connection (see execute), or else after a BEGIN of its own, so
// that no statement of a transaction ever runs outside it. database/sql
// uses a connection from one goroutine at a time.
type lazyConn struct {
	*pgdriver.Conn
	begin bool          // a BEGIN waits to be sent
	trips *atomic.Int64 // round trips to the server, each a message and its answer
	// named are the statements prepared in SQL (PREPARE) on the
	// connection, by query: their names, or "" for one that could not be.
	named    map[string]string
	prepares int // PREPAREs sent, which number the names
}

// sqlName returns the name of query prepared in SQL on the connection,
// sending the PREPARE at the query's first use there. It is "" when the
// query cannot be: the connection keeps maxNamed already, or the PREPARE
// failed (err; inside a transaction that failure ends it). Only the
// server's refusal is remembered: a PREPARE cut off by a deadline or the
// network is tried again, under a fresh name, at the next use.
func (c *lazyConn) sqlName(ctx context.Context, query string) (string, error) {
	if name, known := c.named[query]; known {
		return name, nil
	}
	if c.prepares >= maxNamed {
		return "", nil
	}
	if c.named == nil {
		c.named = map[string]string{}
	}
	c.prepares++
	name := "pipeline_" + strconv.Itoa(c.prepares)
	c.trips.Add(1)
	if _, err := c.Conn.ExecContext(ctx, "PREPARE "+name+" AS "+query, nil); err != nil {
		var refused pgdriver.Error
		if errors.As(err, &refused) {
			c.named[query] = ""
		}
		return "", err
	}
	c.named[query] = name
	return name, nil
}

// executeText runs the statement prepared as name with n arguments, the
// driver's $first and those after it.
func executeText(name string, first, n int) string {
	var sb strings.Builder
	writeExecute(&sb, name, first, n)
	return sb.String()
}

// writeExecute writes executeText(name, first, n) to sb.
func writeExecute(sb *strings.Builder, name string, first, n int) {
	sb.WriteString("EXECUTE ")
	sb.WriteString(name)
	for i := range n {
		if i == 0 {
			sb.WriteByte('(')
		} else {
			sb.WriteString(", ")
		}
		sb.WriteByte('$') // the driver writes the argument's text here
		sb.WriteString(strconv.Itoa(first + i))
	}
	if n > 0 {
		sb.WriteByte(')')
	}
}

// batchText is query, or, when ctx carries the batch that query is the
// text of (runner.flush), the batch's statements as EXECUTEs of them
// prepared in SQL, each planned once per connection rather than at every
// run. The driver writes the arguments into either text alike.
func (c *lazyConn) batchText(ctx context.Context, query string) (string, error) {
	b, ok := ctx.Value(batchKey{}).(*batch)
	if !ok {
		return query, nil
	}
	var sb strings.Builder
	sb.Grow(64 * len(b.stmts))
	first := 1
	for i, q := range b.stmts {
		name, err := c.sqlName(ctx, q)
		if err != nil && !c.begin {
			return "", err // which aborted the transaction
		}
		if name == "" {
			return query, nil
		}
		if i > 0 {
			sb.WriteString(";\n")
		}
		writeExecute(&sb, name, first, b.nargs[i])
		first += b.nargs[i]
	}
	return sb.String(), nil
}

var (
	_ driver.ConnBeginTx        = (*lazyConn)(nil)
	_ driver.ExecerContext      = (*lazyConn)(nil)
	_ driver.QueryerContext     = (*lazyConn)(nil)
	_ driver.ConnPrepareContext = (*lazyConn)(nil)
	_ driver.SessionResetter    = (*lazyConn)(nil)
	_ driver.Validator          = (*lazyConn)(nil)
	_ driver.Pinger             = (*lazyConn)(nil)
)

func (c *lazyConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx begins a transaction of the default isolation lazily; others at
// once.
func (c *lazyConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if opts.Isolation != driver.IsolationLevel(0) || opts.ReadOnly {
		return c.Conn.BeginTx(ctx, opts)
	}
	if !c.IsValid() {
		return nil, driver.ErrBadConn // database/sql takes another
	}
	c.begin = true
	return lazyTx{c}, nil
}

// sendBegin sends a BEGIN still waiting.
func (c *lazyConn) sendBegin(ctx context.Context) error {
	if !c.begin {
		return nil
	}
	c.begin = false
	c.trips.Add(1)
	_, err := c.Conn.ExecContext(ctx, "BEGIN", nil)
	return err
}

// opening is query with the waiting BEGIN in front of it, if there is one.
func (c *lazyConn) opening(query string) string {
	if !c.begin {
		return query
	}
	c.begin = false
	return "BEGIN;\n" + query
}

func (c *lazyConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	query, err := c.batchText(ctx, query)
	if err != nil {
		return nil, err
	}
	c.trips.Add(1)
	return c.Conn.ExecContext(ctx, c.opening(query), args)
}

func (c *lazyConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	query, err := c.batchText(ctx, query)
	if err != nil {
		return nil, err
	}
	c.trips.Add(1)
	return c.Conn.QueryContext(ctx, c.opening(query), args)
}

func (c *lazyConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *lazyConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	c.trips.Add(1)
	s, err := c.Conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return lazyStmt{Stmt: s, c: c, query: query}, nil
}

// maxNamed bounds the statements a connection prepares in SQL: the store's
// own are a few dozen, and a statement made up for one transaction must not
// make the server keep one more for the life of the connection.
const maxNamed = 128

// execute returns the simple query that runs a prepared query with args
// by name, "EXECUTE name(...)", so that a waiting BEGIN can go with it
// while its plan stays cached (see sqlName). ok is false when the query
// cannot go that way: it could not be prepared so, or an argument is of a
// type whose text form the driver writes for another (bytes as bytea),
// which the driver's own binding avoids.
func (c *lazyConn) execute(ctx context.Context, query string, args []driver.NamedValue) (text string, ok bool) {
	for _, a := range args {
		switch a.Value.(type) {
		case nil, int64, bool, string, time.Time:
		default:
			return "", false
		}
	}
	// No transaction has begun: a failed PREPARE costs nothing more.
	name, _ := c.sqlName(ctx, query)
	if name == "" {
		return "", false
	}
	return executeText(name, 1, len(args)), true
}

// ResetSession runs before the connection is handed out again, when no
// transaction of it can be open.
func (c *lazyConn) ResetSession(ctx context.Context) error {
	c.begin = false
	return c.Conn.ResetSession(ctx)
}

// lazyTx ends a transaction of a lazyConn: one that sent nothing has
// nothing to end.
type lazyTx struct{ c *lazyConn }

func (t lazyTx) Commit() error   { return t.end("COMMIT") }
func (t lazyTx) Rollback() error { return t.end("ROLLBACK") }

func (t lazyTx) end(command string) error {
	if t.c.begin {
		t.c.begin = false
		return nil
	}
	t.c.trips.Add(1)
	_, err := t.c.Conn.ExecContext(context.Background(), command, nil)
	return err
}

// lazyStmt is a prepared statement of a lazyConn: it sends a waiting BEGIN
// first.
type lazyStmt struct {
	driver.Stmt
	c     *lazyConn
	query string
}

var (
	_ driver.StmtExecContext  = lazyStmt{}
	_ driver.StmtQueryContext = lazyStmt{}
)

func (s lazyStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if s.c.begin {
		if text, ok := s.c.execute(ctx, s.query, args); ok {
			return s.c.ExecContext(ctx, text, args)
		}
	}
	if err := s.c.sendBegin(ctx); err != nil {
		return nil, err
	}
	s.c.trips.Add(1)
	return s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (s lazyStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if s.c.begin {
		if text, ok := s.c.execute(ctx, s.query, args); ok {
			return s.c.QueryContext(ctx, text, args)
		}
	}
	if err := s.c.sendBegin(ctx); err != nil {
		return nil, err
	}
	s.c.trips.Add(1)
	return s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
}
