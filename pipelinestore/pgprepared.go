package pipelinestore

import (
	"context"
	"database/sql/driver"
	"errors"
	"strconv"
	"strings"
)

// Prepared statements on PostgreSQL (WithPreparedStatements)
//
// With WithPreparedStatements, which serve uses on a direct connection
// (not behind a transaction pooler: PIPELINE_DB_POOLER), each connection
// prepares a statement the first time it runs there and then binds and
// executes it, and a batch goes as one simple query of EXECUTEs of its
// prepared statements. The server then parses and plans each statement
// once per connection instead of at every run.
//
// What it buys, measured by the project's benchmark against the same
// server with the statements sent as text (PIPELINE_DB_POOLER=transaction,
// as behind a pooler), in one run of alternating builds on 2026-11-27
// (cmd/pipelinebench/README.md, "The driver's additions, one by one"):
// the writes went from 0.39–0.73× of the baseline to 0.74–1.11×, reads of
// a job from 0.75× to 1.44×, and CPU per write (server and PostgreSQL)
// fell by a third to a half.

// perRun holds the statements that PostgreSQL plans at each run; see
// plannedPerRun.
var perRun = map[string]bool{}

// plannedPerRun registers a statement whose best plan depends on its
// arguments, and returns it. It runs as text with its arguments written
// in, so that PostgreSQL plans each run for them, even with
// WithPreparedStatements, whose generic plans fit no argument in
// particular.
func plannedPerRun(query string) string {
	perRun[query] = true
	return query
}

// maxConnStmts bounds the statements a connection keeps prepared. The
// store's statements are far fewer; past it a statement runs as text.
const maxConnStmts = 1000

// stmt returns query's statement prepared on the connection, preparing it
// on its first run there; nil when it runs as text: without
// WithPreparedStatements, for a statement with no arguments (the
// connection's own commands, and the statements Bun writes its arguments
// into), for one planned per run, and past maxConnStmts.
func (c *pgConn) stmt(ctx context.Context, query string, args []driver.NamedValue) (pgStmt, error) {
	if c.stmts == nil || len(args) == 0 || perRun[query] {
		return pgStmt{}, nil
	}
	if s, ok := c.stmts[query]; ok {
		return s, nil
	}
	if len(c.stmts) >= maxConnStmts {
		return pgStmt{}, nil
	}
	s, err := c.PrepareContext(ctx, query)
	if err != nil {
		return pgStmt{}, err
	}
	ps := s.(pgStmt)
	c.stmts[query] = ps
	return ps, nil
}

// errUnprepared is batchText's refusal of a batch with a statement that
// runs as text (see stmt): the batch is then sent one statement at a time.
var errUnprepared = errors.New("pipelinestore: a statement of the batch is not prepared")

// batchKey is the context key of the batch that a statement sent by
// runner.flush is the text of.
type batchKey struct{}

// batchText is, when ctx carries the batch (see runner.sendPrepared), the
// batch as one simple query of EXECUTEs of its statements prepared on the
// connection (preparing those that are not yet): one round trip for all,
// each run by the plan cached on the connection. It fails with
// errUnprepared when a statement runs as text (see stmt). The driver
// writes the arguments into the query.
func (c *pgConn) batchText(ctx context.Context, args []driver.NamedValue) (string, bool, error) {
	b, ok := ctx.Value(batchKey{}).(*batch)
	if !ok {
		return "", false, nil
	}
	if c.stmts == nil {
		return "", false, errUnprepared
	}
	var sb strings.Builder
	at := 0
	for i, q := range b.stmts {
		s, err := c.stmt(ctx, q, args[at:at+b.nargs[i]])
		if err != nil {
			return "", false, err
		}
		if s.Stmt == nil {
			return "", false, errUnprepared
		}
		if i > 0 {
			sb.WriteString(";\n")
		}
		writeExecute(&sb, s.name, at+1, b.nargs[i])
		at += b.nargs[i]
	}
	return sb.String(), true, nil
}

func (c *pgConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// PrepareContext prepares a statement on the connection: only with
// WithPreparedStatements (a statement prepared on one server connection is
// unknown on the others a pooler lends), and for code given the pool. It
// sends a waiting opening first, so that the statement runs inside its
// transaction.
func (c *pgConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if err := c.sendOpening(ctx); err != nil {
		return nil, err
	}
	c.roundTrips.Add(1)
	// The driver names the statement by its count on the connection,
	// failed attempts included (it counts none on a closed connection,
	// which is not used again).
	name := `"pgdriver-` + strconv.Itoa(c.prepares) + `"`
	c.prepares++
	s, err := c.Conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return pgStmt{Stmt: s, c: c, name: name}, nil
}

// pgStmt is a statement prepared on a pgConn, whose runs count as round
// trips. A run inside a transaction that waits to begin goes with its
// opening, as an EXECUTE of the statement in the same simple query: the
// statement may have been prepared on the connection by an earlier
// transaction.
type pgStmt struct {
	driver.Stmt
	c    *pgConn
	name string // the server's name of the statement, quoted for SQL
}

var (
	_ driver.StmtExecContext  = pgStmt{}
	_ driver.StmtQueryContext = pgStmt{}
)

func (s pgStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.c.roundTrips.Add(1)
	if s.c.opening != "" {
		return s.c.Conn.ExecContext(ctx, s.c.prefix()+executeText(s.name, len(args)), args)
	}
	return s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (s pgStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.c.roundTrips.Add(1)
	if s.c.opening != "" {
		return s.c.Conn.QueryContext(ctx, s.c.prefix()+executeText(s.name, len(args)), args)
	}
	return s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
}

// executeText is the SQL that runs the prepared statement name with n
// arguments, which the driver writes in for $1 … $n.
func executeText(name string, n int) string {
	var sb strings.Builder
	writeExecute(&sb, name, 1, n)
	return sb.String()
}

// writeExecute writes to sb the EXECUTE of the prepared statement name
// with n arguments, the driver's $first and those after it.
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
