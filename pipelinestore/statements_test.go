package pipelinestore

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The store's files name every statement each dialect runs, and nothing
// else, each once: in sql/common when both run it alike, else in the
// dialect's own folder. A file that names one twice, in one folder or in
// sql/common and a dialect's, one the store has not, or one only the other
// dialect runs is refused when the package loads, and so is a dialect
// missing one it runs.
func TestStatements_Files(t *testing.T) {
	for _, dialect := range []string{DialectPostgres, DialectSQLite} {
		s, err := loadStatements(sqlFiles, dialect)
		require.NoError(t, err)
		require.Equal(t, map[string]*statements{DialectPostgres: postgresSQL, DialectSQLite: sqliteSQL}[dialect], s)
	}
	require.NotEqual(t, postgresSQL.JobLocked, sqliteSQL.JobLocked, "PostgreSQL's locking read locks")
	require.Equal(t, postgresSQL.Job, sqliteSQL.Job, "a statement of sql/common is both dialects'")

	whole := fstest.MapFS{}
	for _, dir := range []string{"sql/common", "sql/postgres", "sql/sqlite"} {
		files, err := sqlFiles.ReadDir(dir)
		require.NoError(t, err)
		for _, f := range files {
			b, err := sqlFiles.ReadFile(dir + "/" + f.Name())
			require.NoError(t, err)
			whole[dir+"/"+f.Name()] = &fstest.MapFile{Data: b}
		}
	}
	with := func(file, name, text string) fstest.MapFS {
		fsys := fstest.MapFS{}
		for k, v := range whole {
			fsys[k] = v
		}
		fsys[file] = &fstest.MapFile{Data: []byte("-- name: " + name + "\n" + text + ";\n")}
		return fsys
	}
	without := func(file string) fstest.MapFS {
		fsys := fstest.MapFS{}
		for k, v := range whole {
			if k != file {
				fsys[k] = v
			}
		}
		return fsys
	}
	moved := func(file, to string) fstest.MapFS {
		fsys := without(file)
		fsys[to] = whole[file]
		return fsys
	}
	for _, c := range []struct {
		name string
		fsys fstest.MapFS
		err  string
	}{
		{"a statement written twice", with("sql/sqlite/extra.sql", "JobLocked", "SELECT 1"), "JobLocked is written twice"},
		{"a common statement written twice", with("sql/common/extra.sql", "Job", "SELECT 1"), "Job is written twice"},
		{"a common statement written for the dialect too", with("sql/sqlite/extra.sql", "Job", "SELECT 1"), "Job is written in sql/common/job.sql as well"},
		{"a statement the store has not", with("sql/sqlite/extra.sql", "Nothing", "SELECT 1"), "Nothing is no statement of the store"},
		{"a common statement the store has not", with("sql/common/extra.sql", "Nothing", "SELECT 1"), "Nothing is no statement of the store"},
		{"a statement PostgreSQL alone runs", with("sql/sqlite/extra.sql", "ClaimKey", "SELECT 1"), "ClaimKey is run on postgres alone"},
		{"a statement PostgreSQL alone runs in sql/common", with("sql/common/extra.sql", "ClaimKey", "SELECT 1"), "sql/common/extra.sql: ClaimKey is run on postgres alone"},
		{"a statement SQLite alone runs in sql/common", moved("sql/sqlite/activity.sql", "sql/common/extra.sql"), "sql/common/extra.sql: SelectingWebhooks is run on sqlite alone"},
		{"an empty statement", with("sql/sqlite/extra.sql", "Nothing", ""), "Nothing is empty"},
		{"a common statement missing", without("sql/common/note.sql"), "sql/sqlite: no statement InsertNote"},
		{"a statement of the dialect missing", without("sql/sqlite/webhook.sql"), "sql/sqlite: no statement WebhookLocked"},
		{"a statement of an aggregate's own struct missing", without("sql/common/tag.sql"), "sql/sqlite: no statement InsertTag"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := loadStatements(c.fsys, DialectSQLite)
			require.ErrorContains(t, err, c.err)
		})
	}
	t.Run("SQL before the first name", func(t *testing.T) {
		fsys := with("sql/sqlite/extra.sql", "Nothing", "SELECT 1")
		fsys["sql/sqlite/extra.sql"] = &fstest.MapFile{Data: []byte("SELECT 1;\n")}
		_, err := loadStatements(fsys, DialectSQLite)
		require.ErrorContains(t, err, "SQL before the first name")
	})
	t.Run("a statement PostgreSQL missing", func(t *testing.T) {
		fsys := without("sql/common/note.sql")
		_, err := loadStatements(fsys, DialectPostgres)
		require.ErrorContains(t, err, "sql/postgres: no statement InsertNote")
	})
}

// A statement both dialects' folders write alike belongs in sql/common.
func TestStatements_WrittenOnce(t *testing.T) {
	postgres, err := readStatements(sqlFiles, DialectPostgres)
	require.NoError(t, err)
	sqlite, err := readStatements(sqlFiles, DialectSQLite)
	require.NoError(t, err)
	for name, p := range postgres {
		if s, ok := sqlite[name]; ok {
			assert.NotEqual(t, p.text, s.text, "%s is written alike in %s and %s: it belongs in sql/common", name, p.file, s.file)
		}
	}
}

// A statement that includes the visibility rule runs the text it ran when
// the rule was pasted into it: these are the texts of 198b617, before the
// rule became a fragment.
func TestStatements_Visible(t *testing.T) {
	require.Equal(t, `SELECT count(*) FROM (SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at FROM jobs AS j
	WHERE j.team_id IN (SELECT m.team_id FROM memberships AS m WHERE m.user_id = $1)
	AND j.status = $2 AND EXISTS (SELECT 1 FROM memberships AS vm
	WHERE vm.team_id = j.team_id AND vm.user_id = $1
	AND (vm.role IN ('owner', 'admin') OR j.owner_id = $1
		OR EXISTS (SELECT 1 FROM job_assignees AS va WHERE va.job_id = j.id AND va.user_id = $1)))) AS j`, sqliteSQL.JobsCount)
	require.Equal(t, `SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at FROM jobs AS j WHERE j.id = $1 AND EXISTS (SELECT 1 FROM memberships AS vm
	WHERE vm.team_id = j.team_id AND vm.user_id = $2
	AND (vm.role IN ('owner', 'admin') OR j.owner_id = $2
		OR EXISTS (SELECT 1 FROM job_assignees AS va WHERE va.job_id = j.id AND va.user_id = $2))) AND pipeline_lock_record('job', $1) FOR NO KEY UPDATE OF j`, postgresSQL.JobLocked)
	notesCount := `SELECT c.notes_count FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE c.id = $1 AND c.job_id = $2 AND EXISTS (SELECT 1 FROM memberships AS vm
	WHERE vm.team_id = j.team_id AND vm.user_id = $3
	AND (vm.role IN ('owner', 'admin') OR j.owner_id = $3
		OR EXISTS (SELECT 1 FROM job_assignees AS va WHERE va.job_id = j.id AND va.user_id = $3)))`
	require.Equal(t, notesCount, postgresSQL.NotesCount)
	require.Equal(t, notesCount, sqliteSQL.NotesCount)

	t.Run("the rule is written once", func(t *testing.T) {
		files, err := fs.Glob(sqlFiles, "sql/*/*.sql")
		require.NoError(t, err)
		require.NotEmpty(t, files)
		for _, file := range files {
			b, err := sqlFiles.ReadFile(file)
			require.NoError(t, err)
			assert.NotContains(t, string(b), "memberships AS vm", "%s pastes the visibility rule: write {{visible $n}}", file)
		}
	})
	for _, c := range []struct{ name, text, err string }{
		{"a misspelled placeholder", "SELECT 1 FROM jobs AS j WHERE {{visibl $1}}", "{{visibl $1}} is no placeholder"},
		{"a placeholder without its parameter", "SELECT 1 FROM jobs AS j WHERE {{visible}}", "{{visible}} is no placeholder"},
		{"an unclosed placeholder", "SELECT 1 FROM jobs AS j WHERE {{visible $1", "{{visible $1 is no placeholder"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := parseStatements("sqlite", "sql/sqlite/extra.sql", "-- name: Nothing\n"+c.text+";\n", map[string]statement{})
			require.ErrorContains(t, err, "sql/sqlite/extra.sql: Nothing: "+c.err)
		})
	}
}
