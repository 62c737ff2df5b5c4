package pipelinestore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// Batching on PostgreSQL
//
// A write transaction's round trips are most of its time on PostgreSQL,
// so the transaction sends its writes together. What it buys, measured by
// the project's benchmark against the same server sending each write on
// its own, in one run of alternating builds on 2026-11-27
// (cmd/pipelinebench/README.md, "The driver's additions, one by one"):
// schedule 0.75/0.74× of the baseline against 0.66/0.69×, move 0.89/0.90×
// against 0.76/0.89×, message 0.85/0.96× against 0.83/0.78×, and 5–20%
// less CPU per move, intake, message and schedule; a note, whose batch is
// its activity entry alone, gains nothing. Everything here stays
// inside one transaction and keeps no state on the server connection, so
// it works the same behind a transaction pooler.
//
// The store's code sees the batch through runner's methods of batcher:
//
//   - deferred(ctx, query, args...) runs a write that returns nothing.
//     Inside a PostgreSQL transaction it waits in the transaction's batch;
//     elsewhere (SQLite, outside a transaction) it runs at once.
//   - deferredReturning(ctx, query, scan, args...) is deferred for a write
//     that returns rows, which scan reads when the batch is sent; only
//     inside a PostgreSQL transaction. A batch holds at most one such
//     write: a second sends the first batch.
//   - flush(ctx) sends the batch. get, all and exec call it first, so a
//     write waiting always runs before any later statement of its
//     transaction, and Write calls it before the commit.
//   - takeAlone(query) takes the batch back when it is query alone, for
//     the caller to send in a statement of its own making (a key's claim
//     made by the locking read that follows it: see ClaimCandidate).
//
// With WithPreparedStatements, as serve runs on a direct connection, each
// statement is prepared on the connection and the batch goes as one
// simple query of EXECUTEs of them (see pgConn.batchText), the arguments
// written in by the driver: one round trip, none of its statements parsed
// or planned again, and no statement's text touched. PostgreSQL runs them
// in order and stops at the first error, which fails the batch and, with
// it, the transaction. So a change, its activity entry and its idempotency
// record cost one round trip, and the rows they lock stay locked for as
// short a time as the commit allows.
//
// Sent as text (behind a transaction pooler, where nothing is prepared),
// the batch's statements go one by one: joined into one query, their
// parameters would have to be numbered anew in their text. Only the
// prepared batch was measured (above).
//
// What a write waits for is not seen until the batch is sent: a unique
// violation or a missing row in a waiting write is reported by the next
// statement, or by the commit, and fails the transaction as a whole; a
// write that ends with an error sends its batch before the rollback (see
// DB.Write), so that a proposal is judged by what it would write. A
// write whose result the caller needs at once (an insert returning its
// id) uses exec or get instead.
//
// So a prepared transaction whose first statement is a read and whose
// writes all wait costs three round trips: BEGIN with the read (see
// pgConn), the batch, COMMIT. The COMMIT does not go with the last batch:
// that batch holds the activity entry, whose rows name the webhook
// messages River inserts before the commit, or River's insert follows it.

// batcher is the batching of a write transaction, as the store's code
// uses it (see above).
type batcher interface {
	deferred(ctx context.Context, query string, args ...any) error
	deferredReturning(ctx context.Context, query string, scan func(context.Context, *sql.Rows) error, args ...any) error
	flush(ctx context.Context) error
	takeAlone(query string) bool
}

var _ batcher = runner{}

// batch is a transaction's writes waiting to be sent together. At most one
// of them returns rows, which scan reads.
type batch struct {
	stmts  []string // each numbering its parameters from $1
	nargs  []int    // each statement's number of arguments
	args   []any    // every statement's, in order
	scan   func(context.Context, *sql.Rows) error
	scanAt int // the index of the statement whose rows scan reads
	// books: the batch holds an interview's insert or update that books
	// its times, which a clash fails (see tx.deferBooking).
	books bool
}

func (b *batch) reset() { *b = batch{} }

// deferred runs a write that returns nothing, in a PostgreSQL transaction
// with the transaction's next statement (see batch).
func (r runner) deferred(ctx context.Context, query string, args ...any) error {
	if r.waiting == nil {
		_, err := r.exec(ctx, query, args...)
		return err
	}
	r.waiting.stmts = append(r.waiting.stmts, query)
	r.waiting.nargs = append(r.waiting.nargs, len(args))
	r.waiting.args = append(r.waiting.args, args...)
	return nil
}

// deferredReturning is deferred for a write that returns rows, which scan
// reads when the batch is sent; only inside a PostgreSQL transaction.
func (r runner) deferredReturning(ctx context.Context, query string, scan func(context.Context, *sql.Rows) error, args ...any) error {
	if r.waiting.scan != nil {
		if err := r.flush(ctx); err != nil {
			return err
		}
	}
	if err := r.deferred(ctx, query, args...); err != nil {
		return err
	}
	r.waiting.scan, r.waiting.scanAt = scan, len(r.waiting.stmts)-1
	return nil
}

// flush sends the waiting writes as one simple query; the rows of the one
// that returns some go to its scan.
func (r runner) flush(ctx context.Context) error {
	if r.waiting == nil || len(r.waiting.stmts) == 0 {
		return nil
	}
	b := *r.waiting
	r.waiting.reset()
	if r.text() {
		return r.sendEach(ctx, b)
	}
	err := r.sendPrepared(ctx, &b)
	if errors.Is(err, errUnprepared) {
		return r.sendEach(ctx, b)
	}
	return err
}

// sendPrepared sends the batch as one simple query of EXECUTEs of its
// statements prepared on the connection (see pgConn.batchText); the
// query hooks see the statements joined. It fails with errUnprepared,
// having sent nothing, when one of them cannot be prepared.
func (r runner) sendPrepared(ctx context.Context, b *batch) (err error) {
	query := strings.Join(b.stmts, ";\n")
	ctx, done := r.trace(ctx, query, b.args)
	defer func() { done(nil, err) }()
	ctx = context.WithValue(ctx, batchKey{}, b)
	if b.scan == nil {
		_, err = r.tx.Tx.ExecContext(ctx, query, b.args...)
		return err
	}
	rows, err := r.tx.Tx.QueryContext(ctx, query, b.args...)
	if err != nil {
		return err
	}
	return b.scan(ctx, rows)
}

// sendEach sends the batch's statements one by one, as text: joined, their
// parameters would have to be numbered anew in their text.
func (r runner) sendEach(ctx context.Context, b batch) error {
	at := 0
	for i, q := range b.stmts {
		a := b.args[at : at+b.nargs[i]]
		at += b.nargs[i]
		if b.scan != nil && i == b.scanAt {
			if err := r.scanQuery(ctx, q, a, b.scan); err != nil {
				return err
			}
			continue
		}
		if _, err := r.exec(ctx, q, a...); err != nil {
			return err
		}
	}
	return nil
}

// scanQuery runs query and hands its rows to scan.
func (r runner) scanQuery(ctx context.Context, query string, args []any, scan func(context.Context, *sql.Rows) error) (err error) {
	ctx, done := r.trace(ctx, query, args)
	defer func() { done(nil, err) }()
	rows, err := r.query(ctx, query, args)
	if err != nil {
		return err
	}
	return scan(ctx, rows)
}

// takeAlone empties the batch and reports true when it holds query alone;
// else it leaves the batch as it is.
func (r runner) takeAlone(query string) bool {
	if r.waiting == nil || len(r.waiting.stmts) != 1 || r.waiting.stmts[0] != query {
		return false
	}
	r.waiting.reset()
	return true
}
