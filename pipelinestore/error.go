package pipelinestore

import (
	"database/sql"
	"errors"
	"strings"

	"github.com/uptrace/bun/driver/pgdriver"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// formatError is the one place where driver errors become domain errors:
// no rows is not_found, a unique violation is conflict, anything else is
// returned as is (an internal fault). what names the record for the
// not_found message.
func formatError(err error, what string) error {
	if err == nil {
		return nil
	}
	var perr *pipeline.Error
	if errors.As(err, &perr) {
		return err
	}
	if errors.Is(err, sql.ErrNoRows) {
		return pipeline.Errorf(pipeline.ENotFound, "%s not found.", what)
	}
	if uniqueViolation(err) {
		if what == "Record" {
			what = "A record of " + violatedTable(err)
		}
		return pipeline.Errorf(pipeline.EConflict, "%s already exists.", what)
	}
	return err
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
