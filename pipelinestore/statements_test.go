package pipelinestore

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// The store's files name every statement each dialect runs, and nothing
// else; a file that names one twice, one the store has not, or one only
// the other dialect runs is refused when the package loads.
func TestStatements_Files(t *testing.T) {
	for _, dialect := range []string{DialectPostgres, DialectSQLite} {
		s, err := loadStatements(sqlFiles, dialect)
		require.NoError(t, err)
		require.Equal(t, map[string]*statements{DialectPostgres: postgresSQL, DialectSQLite: sqliteSQL}[dialect], s)
	}
	require.NotEqual(t, postgresSQL.CandidateLocked, sqliteSQL.CandidateLocked, "PostgreSQL's locking read locks")
	require.Equal(t, sqliteSQL.Candidate, sqliteSQL.CandidateLocked, "SQLite's locking read is the read")

	whole := fstest.MapFS{}
	files, err := sqlFiles.ReadDir("sql/sqlite")
	require.NoError(t, err)
	for _, f := range files {
		b, err := sqlFiles.ReadFile("sql/sqlite/" + f.Name())
		require.NoError(t, err)
		whole["sql/sqlite/"+f.Name()] = &fstest.MapFile{Data: b}
	}
	with := func(name, text string) fstest.MapFS {
		fsys := fstest.MapFS{}
		for k, v := range whole {
			fsys[k] = v
		}
		fsys["sql/sqlite/extra.sql"] = &fstest.MapFile{Data: []byte("-- name: " + name + "\n" + text + ";\n")}
		return fsys
	}
	for _, c := range []struct {
		name string
		fsys fstest.MapFS
		err  string
	}{
		{"a statement written twice", with("Candidate", "SELECT 1"), "Candidate is written twice"},
		{"a statement the store has not", with("Nothing", "SELECT 1"), "Nothing is no statement of the store"},
		{"a statement PostgreSQL alone runs", with("ClaimKey", "SELECT 1"), "ClaimKey is run on postgres alone"},
		{"an empty statement", with("Nothing", ""), "Nothing is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := loadStatements(c.fsys, DialectSQLite)
			require.Error(t, err)
			require.Contains(t, err.Error(), c.err)
		})
	}
	t.Run("SQL before the first name", func(t *testing.T) {
		fsys := with("Nothing", "SELECT 1")
		fsys["sql/sqlite/extra.sql"] = &fstest.MapFile{Data: []byte("SELECT 1;\n")}
		_, err := loadStatements(fsys, DialectSQLite)
		require.ErrorContains(t, err, "SQL before the first name")
	})
	t.Run("a statement missing", func(t *testing.T) {
		fsys := fstest.MapFS{}
		for k, v := range whole {
			if k != "sql/sqlite/note.sql" {
				fsys[k] = v
			}
		}
		_, err := loadStatements(fsys, DialectSQLite)
		require.ErrorContains(t, err, "no statement InsertNote")
	})
}
