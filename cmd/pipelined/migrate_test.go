package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

type migrateStatus struct {
	Dialect string
	Current bool
	Applied []struct {
		Name      string
		AppliedAt *string `json:"applied_at"`
	}
	Pending []struct{ Name string }
}

func TestMigrate(t *testing.T) {
	eachCase(t, "migrate and migrate status", func(t *testing.T, m *Main) {
		if !pipelinestore.IsPostgres(m.env["PIPELINE_DB"]) {
			// No file yet: status reads only, so it creates none.
			_, stderr, err := m.Run("", "migrate", "status")
			require.Error(t, err)
			assert.Equal(t, 1, exitStatus(err))
			assert.Contains(t, stderr, "no SQLite database at "+m.env["PIPELINE_DB"])
			assert.Contains(t, stderr, `run "pipelined migrate"`)
			assert.NoFileExists(t, m.env["PIPELINE_DB"])
		} else {
			out := m.Must("migrate", "status")
			var st migrateStatus
			require.NoError(t, json.Unmarshal([]byte(out), &st))
			assert.False(t, st.Current)
			assert.Empty(t, st.Applied)
			require.NotEmpty(t, st.Pending)
			assert.Equal(t, "20260101000000_init", st.Pending[0].Name)
			var raw struct{ Pending []map[string]any }
			require.NoError(t, json.Unmarshal([]byte(out), &raw))
			for _, p := range raw.Pending {
				assert.Equal(t, []string{"name"}, slices.Collect(maps.Keys(p)), "a pending migration is {name}")
			}
			assert.Equal(t, 0, migrationRows(t, m), "status changed nothing")
		}

		var applied struct{ Applied []struct{ Name string } }
		require.NoError(t, json.Unmarshal([]byte(m.Must("migrate")), &applied))
		require.NotEmpty(t, applied.Applied)

		var st migrateStatus
		require.NoError(t, json.Unmarshal([]byte(m.Must("migrate", "status")), &st))
		assert.True(t, st.Current)
		assert.Empty(t, st.Pending)
		require.Len(t, st.Applied, len(applied.Applied))
		assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`, *st.Applied[0].AppliedAt)

		require.NoError(t, json.Unmarshal([]byte(m.Must("migrate")), &applied))
		assert.Empty(t, applied.Applied, "nothing left to apply")
	})
	eachCase(t, "PIPELINE_AUTO_MIGRATE=false refuses a schema behind", func(t *testing.T, m *Main) {
		m.env["PIPELINE_AUTO_MIGRATE"] = "false"
		for _, args := range [][]string{{"serve"}, {"seed", "testdata/seed.json"}, {"team", "create", "--key", "a", "--name", "A"}} {
			stdout, stderr, err := m.Run("", args...)
			require.Error(t, err, args)
			assert.Equal(t, 1, exitStatus(err), args)
			assert.Empty(t, stdout, args)
			assert.Contains(t, stderr, "the database schema is behind", args)
			assert.Contains(t, stderr, `run "pipelined migrate" first`, args)
		}
		var st migrateStatus
		require.NoError(t, json.Unmarshal([]byte(m.Must("migrate", "status")), &st))
		assert.Empty(t, st.Applied, "nothing was migrated")

		m.Must("migrate") // whatever PIPELINE_AUTO_MIGRATE says
		m.Seed("testdata/seed.json")
		m.Serve()
	})
}

// TestMigrate_Reads: decisions §8, the commands that only read never
// change the schema nor create a SQLite file.
func TestMigrate_Reads(t *testing.T) {
	// Decisions §8: the commands that only read never change the schema;
	// on a schema that is behind they refuse and name pipelined migrate,
	// whatever PIPELINE_AUTO_MIGRATE says. The commands that write still
	// migrate first.
	eachCase(t, "reading commands never migrate", func(t *testing.T, m *Main) {
		m.Must("migrate")
		all := migrationRows(t, m)
		forgetLastMigration(t, m)
		for _, auto := range []string{"", "true", "false"} {
			m.env["PIPELINE_AUTO_MIGRATE"] = auto
			for _, args := range [][]string{{"activity"}, {"team", "list"}, {"user", "list"}, {"token", "list", "--team", "acme"}} {
				stdout, stderr, err := m.Run("", args...)
				require.Error(t, err, args)
				assert.Equal(t, 1, exitStatus(err), args)
				assert.Empty(t, stdout, args)
				assert.Contains(t, stderr, "the database schema is behind: 1 of", args)
				assert.Contains(t, stderr, `run "pipelined migrate" first`, args)
			}
			var st migrateStatus
			require.NoError(t, json.Unmarshal([]byte(m.Must("migrate", "status")), &st), auto)
			assert.Len(t, st.Pending, 1, auto)
			assert.Equal(t, all-1, migrationRows(t, m), "PIPELINE_AUTO_MIGRATE=%q: nothing migrated", auto)
		}
		m.env["PIPELINE_AUTO_MIGRATE"] = ""
		m.Must("team", "create", "--key", "acme", "--name", "Acme")
		assert.Equal(t, all, migrationRows(t, m), "a writing command migrates first")
		assert.Len(t, jsonLines(t, m.Must("team", "list")), 1)
	})
	t.Run("reading commands create no SQLite file", func(t *testing.T) {
		t.Parallel()
		for _, args := range [][]string{{"activity"}, {"team", "list"}, {"user", "list"}, {"token", "list", "--team", "acme"}, {"migrate", "status"}} {
			m := newMain(t, filepath.Join(t.TempDir(), "pipeline.db"))
			_, stderr, err := m.Run("", args...)
			assert.Equal(t, 1, exitStatus(err), args)
			assert.Contains(t, stderr, "no SQLite database at", args)
			assert.NoFileExists(t, m.env["PIPELINE_DB"], args)
		}
	})
}

// migrationRows counts the store's applied migrations as the database
// records them.
func migrationRows(t *testing.T, m *Main) int {
	t.Helper()
	var n int
	err := rawDB(t, m).QueryRow(`SELECT count(*) FROM bun_migrations`).Scan(&n)
	if err != nil && strings.Contains(err.Error(), "bun_migrations") {
		return 0 // never migrated
	}
	require.NoError(t, err)
	return n
}

// forgetLastMigration makes the schema one migration behind, as a newer
// binary would find it: the last migration is undone with its down SQL,
// and its record goes.
func forgetLastMigration(t *testing.T, m *Main) {
	t.Helper()
	dialect := "sqlite"
	if pipelinestore.IsPostgres(m.env["PIPELINE_DB"]) {
		dialect = "postgres"
	}
	downs, err := filepath.Glob(filepath.Join("..", "..", "pipelinestore", "migrations", dialect, "*.down.sql"))
	require.NoError(t, err)
	require.NotEmpty(t, downs)
	slices.Sort(downs)
	down, err := os.ReadFile(downs[len(downs)-1])
	require.NoError(t, err)
	db := rawDB(t, m)
	_, err = db.Exec(string(down))
	require.NoError(t, err, downs[len(downs)-1])
	_, err = db.Exec(`DELETE FROM bun_migrations WHERE id = (SELECT max(id) FROM bun_migrations)`)
	require.NoError(t, err)
}

// rawDB opens m's database directly, closed when the test ends.
func rawDB(t *testing.T, m *Main) *sql.DB {
	t.Helper()
	dsn := m.env["PIPELINE_DB"]
	var db *sql.DB
	if pipelinestore.IsPostgres(dsn) {
		db = sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
	} else {
		var err error
		db, err = sql.Open("sqlite", "file:"+dsn)
		require.NoError(t, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestMigrate_ReadOnlyRole: a PostgreSQL role granted only USAGE on the
// schema and SELECT on its tables runs the commands that read, and no
// more.
func TestMigrate_ReadOnlyRole(t *testing.T) {
	t.Parallel()
	dsn := storetest.PostgresSchemaDSN(t)
	owner := newMain(t, dsn)
	seeded := owner.Seed("testdata/seed.json")
	tok := owner.CreateToken("olivia@acme.test", "mover", "candidates:write")
	srv := owner.Serve()
	move := "/api/v1/jobs/" + itoa(seeded.Jobs["backend"]) + "/candidates/" + itoa(seeded.Candidates["ada"]) + "/stage"
	status, body := srv.Do("POST", move, tok.Token, `{"stage": `+itoa(seeded.Stages["backend"]["Interview"])+`}`)
	require.Equal(t, 200, status, body)

	reader := newMain(t, readOnlyRole(t, dsn))
	lines := writeEntries(t, reader, "--team", "acme")
	require.Len(t, lines, 1)
	assert.Equal(t, "candidate.stage_changed", lines[0]["action"])
	assert.Len(t, jsonLines(t, reader.Must("team", "list")), 1)
	assert.Len(t, jsonLines(t, reader.Must("user", "list")), 2)
	assert.Len(t, jsonLines(t, reader.Must("token", "list", "--team", "acme")), 2)
	assert.Contains(t, reader.Must("migrate", "status"), `"current":true`)

	for _, args := range [][]string{{"token", "revoke", itoa(tok.ID)}, {"team", "create", "--key", "b", "--name", "B"}} {
		_, stderr, err := reader.Run("", args...)
		require.Error(t, err, args)
		assert.Contains(t, stderr, "permission denied", args)
	}
}

// readOnlyRole creates a login role that may only read the schema of dsn,
// dropped when the test ends, and returns dsn as that role.
func readOnlyRole(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	schema := u.Query().Get("search_path")
	role := "pipeline_reader_" + randomHex(t)
	admin := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(storetest.PostgresDSN(t))))
	t.Cleanup(func() { admin.Close() })
	ctx := context.Background()
	for _, q := range []string{
		"CREATE ROLE " + role + " LOGIN",
		"GRANT USAGE ON SCHEMA " + schema + " TO " + role,
		"GRANT SELECT ON ALL TABLES IN SCHEMA " + schema + " TO " + role,
	} {
		_, err := admin.ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	t.Cleanup(func() {
		for _, q := range []string{"DROP OWNED BY " + role, "DROP ROLE " + role} {
			if _, err := admin.ExecContext(ctx, q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	})
	u.User = url.User(role)
	return u.String()
}

func randomHex(t *testing.T) string {
	b := make([]byte, 6)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return hex.EncodeToString(b)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
