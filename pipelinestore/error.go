package pipelinestore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"os"
	"strings"

	"github.com/uptrace/bun/driver/pgdriver"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// formatError is the one place where driver errors become domain errors:
// a database that cannot be reached or does not answer in time is
// unavailable, no rows is not_found, a unique violation is conflict (but
// a taken email of a job's candidate is pipeline.ErrEmailTaken, for the
// domain to answer), an exclusion violation (the interviews' no double
// booking) is pipeline.ErrBooked, anything else is returned as is (an
// internal fault).
// what names the record for the not_found message.
func formatError(err error, what string) error {
	if err == nil {
		return nil
	}
	var perr *pipeline.Error
	if errors.As(err, &perr) {
		return err
	}
	if unavailable(err) {
		return pipeline.Unavailable(err)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return pipeline.Errorf(pipeline.ENotFound, "%s not found.", what)
	}
	if exclusionViolation(err) {
		return pipeline.ErrBooked
	}
	if uniqueViolation(err) {
		if candidateEmailViolation(err) {
			return pipeline.ErrEmailTaken
		}
		if what == "Record" {
			what = "A record of " + violatedTable(err)
		}
		return pipeline.Errorf(pipeline.EConflict, "%s already exists.", what)
	}
	return err
}

// candidateEmailViolation reports whether a unique violation is of a
// job's candidates' folded emails (candidates_job_email_key).
func candidateEmailViolation(err error) bool {
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		return pgErr.Field('n') == "candidates_job_email_key"
	}
	// "UNIQUE constraint failed: candidates.job_id, candidates.email_fold"
	return strings.Contains(err.Error(), "constraint failed: candidates.job_id, candidates.email_fold")
}

// violatedTable names the table of a unique violation and, on SQLite, its
// columns, for a conflict whose caller could not say which record it was:
// "tokens (tokens_hash_key)" on PostgreSQL (its constraint), "tokens
// (hash)" on SQLite (its columns).
func violatedTable(err error) string {
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		return pgErr.Field('t') + " (" + pgErr.Field('n') + ")"
	}
	// "UNIQUE constraint failed: tokens.hash, tokens.x (2067)"
	msg := err.Error()
	_, cols, ok := strings.Cut(msg, "constraint failed: ")
	if !ok {
		return "a table"
	}
	cols, _, _ = strings.Cut(cols, " (")
	table, _, _ := strings.Cut(cols, ".")
	var names []string
	for c := range strings.SplitSeq(cols, ", ") {
		_, name, _ := strings.Cut(c, ".")
		names = append(names, name)
	}
	return table + " (" + strings.Join(names, ", ") + ")"
}

// unavailable reports whether err says that the database could not be
// reached or did not answer in time, rather than that it refused the
// statement: the caller's deadline passed or it gave up (database/sql
// then rolls the transaction back, so later statements find it done), the
// connection failed, or the database cancelled the statement itself
// (statement, lock or idle-transaction timeout, shutdown, too many
// connections, SQLite's busy timeout or an interrupt), or it is a standby
// that refuses writes (a failover's new leader before its promotion ends).
func unavailable(err error) bool {
	for _, target := range []error{
		context.DeadlineExceeded, context.Canceled, os.ErrDeadlineExceeded,
		driver.ErrBadConn, sql.ErrConnDone, sql.ErrTxDone, io.EOF, io.ErrUnexpectedEOF,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		switch code := pgErr.Field('C'); {
		case strings.HasPrefix(code, "08"): // connection exception
			return true
		case code == "57014", code == "55P03", code == "25P03": // statement, lock, idle-in-transaction timeout
			return true
		case code == "57P01", code == "57P02", code == "57P03", code == "53300": // shutting down, starting, full
			return true
		case code == "25006": // read-only: a standby not yet promoted, reached during a failover
			return true
		}
		return false
	}
	var sqlErr *sqlite.Error
	if errors.As(err, &sqlErr) {
		switch sqlErr.Code() & 0xff { // the primary code of an extended one
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_INTERRUPT:
			return true
		}
	}
	return false
}

// bookingError is formatError of an error of a statement that books an
// interview's candidate or interviewers (it writes interviews or
// interview_interviewers, whose exclusion constraints refuse a double
// booking). Two such statements that overlap, running at once on
// PostgreSQL, may each wait in the exclusion check for the other's row,
// and PostgreSQL ends that deadlock by failing one (SQLSTATE 40P01): that
// one lost the race for the time, as if it had come second.
func bookingError(err error) error {
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) && pgErr.Field('C') == "40P01" {
		return pipeline.ErrBooked
	}
	return formatError(err, "Interview")
}

// exclusionViolation reports whether err is PostgreSQL's refusal of a row
// that an exclusion constraint excludes (SQLSTATE 23P01).
func exclusionViolation(err error) bool {
	var pgErr pgdriver.Error
	return errors.As(err, &pgErr) && pgErr.Field('C') == "23P01"
}

func uniqueViolation(err error) bool {
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		return pgErr.Field('C') == "23505"
	}
	var sqlErr *sqlite.Error
	if errors.As(err, &sqlErr) {
		c := sqlErr.Code()
		return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}

// expectRow turns an UPDATE or DELETE that matched no row into not_found.
func expectRow(res sql.Result, what string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return formatError(sql.ErrNoRows, what)
	}
	return nil
}
