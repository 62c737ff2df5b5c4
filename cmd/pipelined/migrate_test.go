package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun/driver/pgdriver"

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
		var st migrateStatus
		require.NoError(t, json.Unmarshal([]byte(m.Must("migrate", "status")), &st))
		assert.False(t, st.Current)
		assert.Empty(t, st.Applied)
		require.NotEmpty(t, st.Pending)
		assert.Equal(t, "20260101000000_init", st.Pending[0].Name)
		pending := len(st.Pending)

		var applied struct{ Applied []struct{ Name string } }
		require.NoError(t, json.Unmarshal([]byte(m.Must("migrate")), &applied))
		assert.Len(t, applied.Applied, pending)

		require.NoError(t, json.Unmarshal([]byte(m.Must("migrate", "status")), &st))
		assert.True(t, st.Current)
		assert.Empty(t, st.Pending)
		require.Len(t, st.Applied, pending)
		assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`, *st.Applied[0].AppliedAt)

		require.NoError(t, json.Unmarshal([]byte(m.Must("migrate")), &applied))
		assert.Empty(t, applied.Applied, "nothing left to apply")
	})
	eachCase(t, "PIPELINE_AUTO_MIGRATE=false refuses a schema behind", func(t *testing.T, m *Main) {
		m.env["PIPELINE_AUTO_MIGRATE"] = "false"
		for _, args := range [][]string{{"serve"}, {"seed", "testdata/seed.json"}, {"team", "create", "--key", "a", "--name", "A"}, {"activity"}} {
			stdout, stderr, err := m.Run("", args...)
			require.Error(t, err, args)
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
	// A reading command on a fresh database, as the operator contract
	// says: it migrates, then finds nothing.
	for _, args := range [][]string{{"activity"}, {"team", "list"}, {"user", "list"}} {
		eachCase(t, strings.Join(args, " ")+" migrates first by default", func(t *testing.T, m *Main) {
			assert.Empty(t, m.Must(args...))
			var st migrateStatus
			require.NoError(t, json.Unmarshal([]byte(m.Must("migrate", "status")), &st))
			assert.True(t, st.Current)
		})
	}
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
	lines := jsonLines(t, reader.Must("activity", "--team", "acme"))
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
