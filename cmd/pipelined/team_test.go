package main

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSeed_ExistingRecords: seeding a team key or an email that exists
// fails, loads nothing and names the record.
func TestSeed_ExistingRecords(t *testing.T) {
	t.Parallel()
	eachCase(t, "a team key", func(t *testing.T, m *Main) {
		m.Seed("testdata/seed.json")
		stdout, stderr, err := m.Run("", "seed", "testdata/seed.json")
		require.Error(t, err)
		assert.Empty(t, stdout)
		assert.Equal(t, "pipelined: conflict: Team acme (teams[0].key) already exists.\n", stderr)
		assert.Len(t, jsonLines(t, m.Must("team", "list")), 1, "no second team")
	})
	eachCase(t, "an email", func(t *testing.T, m *Main) {
		m.Seed("testdata/seed.json")
		_, stderr, err := m.Run("", "seed", "testdata/conflict.json")
		require.Error(t, err)
		assert.Equal(t, "pipelined: conflict: User olivia@acme.test (users[1].email) already exists.\n", stderr)
		assert.Len(t, jsonLines(t, m.Must("team", "list")), 1, "beta was rolled back")
	})
	eachCase(t, "a key made by team create", func(t *testing.T, m *Main) {
		m.Must("team", "create", "--key", "acme", "--name", "Acme Two")
		_, stderr, err := m.Run("", "seed", "testdata/seed.json")
		require.Error(t, err)
		assert.Contains(t, stderr, "Team acme (teams[0].key) already exists.")
	})
}

func TestTeam(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		m.Must("migrate")
		assert.Empty(t, m.Must("team", "list"))
		out := m.Must("team", "create", "--key", "acme", "--name", "Acme", "--job-limit", "2")
		assert.JSONEq(t, `{"id":1,"key":"acme","name":"Acme","job_limit":2,"retention_days":0,"retention_days_in_effect":0,"retention_effective_at":null}`, out)
		m.Must("team", "create", "--key", "globex", "--name", "Globex")
		lines := jsonLines(t, m.Must("team", "list"))
		require.Len(t, lines, 2)
		assert.Equal(t, map[string]any{"id": float64(2), "key": "globex", "name": "Globex", "job_limit": nil,
			"retention_days": float64(0), "retention_days_in_effect": float64(0), "retention_effective_at": nil}, lines[1])

		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"--key", "acme", "--name", "Again"}, "pipelined: conflict: Team acme already exists."},
			{[]string{"--key", "42", "--name", "Numbers"}, "key: The key may not be a number"},
			{[]string{"--key", "two words", "--name", "Spaces"}, "key: The key must be 1 to 64 characters without spaces."},
			{[]string{"--key", "blank", "--name", " "}, "name: The name field is required."},
			{[]string{"--key", "neg", "--name", "Neg", "--job-limit", "-1"}, "job_limit: The job limit may not be negative."},
		} {
			stdout, stderr, err := m.Run("", append([]string{"team", "create"}, tc.args...)...)
			assert.Error(t, err, tc.args)
			assert.Empty(t, stdout, tc.args)
			assert.Contains(t, stderr, tc.want, tc.args)
		}
		assert.Len(t, jsonLines(t, m.Must("team", "list")), 2)
	})
}

// userLine decodes one user line of the user commands.
func userLine(t *testing.T, out string) map[string]any {
	t.Helper()
	var u map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &u), out)
	return u
}

func TestUser(t *testing.T) {
	t.Parallel()
	eachCase(t, "add to an existing team", func(t *testing.T, m *Main) {
		seeded := m.Seed("testdata/seed.json")
		m.Seed("testdata/globex.json")
		// olivia joins globex as a member: she reaches its jobs she is
		// assigned to, none yet; then as its admin, all of them.
		u := userLine(t, m.Must("user", "add", "--email", "olivia@acme.test", "--team", "globex", "--role", "member"))
		assert.Equal(t, float64(seeded.Users["olivia"]), u["id"])
		assert.Equal(t, float64(seeded.Teams["acme"]), u["current_team_id"], "an existing user keeps the current team")
		assert.Equal(t, []any{
			map[string]any{"id": float64(1), "key": "acme", "role": "owner"},
			map[string]any{"id": float64(2), "key": "globex", "role": "member"},
		}, u["teams"])
		tok := m.CreateToken("olivia@acme.test", "reader", "jobs:read")
		srv := m.Serve()
		count := func() int {
			status, body := srv.Do("GET", "/api/v1/jobs", tok.Token, "")
			require.Equal(t, http.StatusOK, status, body)
			var list struct{ Meta struct{ Total int } }
			require.NoError(t, json.Unmarshal([]byte(body), &list))
			return list.Meta.Total
		}
		assert.Equal(t, 1, count(), "acme's job")
		u = userLine(t, m.Must("user", "set-role", "--email", "olivia@acme.test", "--team", "2", "--role", "admin"))
		assert.Equal(t, "admin", u["teams"].([]any)[1].(map[string]any)["role"])
		assert.Equal(t, 2, count(), "and globex's, as its admin")

		u = userLine(t, m.Must("user", "remove", "--email", "olivia@acme.test", "--team", "globex"))
		assert.Len(t, u["teams"], 1)
		assert.Equal(t, 1, count(), "off globex")
	})
	eachCase(t, "add a new user", func(t *testing.T, m *Main) {
		m.Seed("testdata/seed.json")
		u := userLine(t, m.Must("user", "add", "--email", "ann@acme.test", "--name", "Ann Admin", "--team", "acme", "--role", "admin"))
		assert.Equal(t, "Ann Admin", u["name"])
		assert.Equal(t, float64(1), u["current_team_id"], "the team becomes the current one")
		tok := m.CreateToken("ann@acme.test", "ann", "jobs:read")
		assert.Equal(t, int64(1), tok.TeamID)
		lines := jsonLines(t, m.Must("user", "list", "--team", "acme"))
		require.Len(t, lines, 3)
		assert.Equal(t, "ann@acme.test", lines[2]["email"])
	})
	eachCase(t, "refusals name what is wrong", func(t *testing.T, m *Main) {
		m.Seed("testdata/seed.json")
		m.Seed("testdata/globex.json")
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"add", "--email", "olivia@acme.test", "--team", "acme", "--role", "admin"}, "conflict: Membership of olivia@acme.test in team acme already exists."},
			{[]string{"add", "--email", "new@acme.test", "--team", "acme", "--role", "member"}, "name: The name field is required for a new user."},
			{[]string{"add", "--email", "mia@acme.test", "--name", "Someone Else", "--team", "globex", "--role", "member"}, "name: The user mia@acme.test exists and is called Mia Member"},
			{[]string{"add", "--email", "mia@acme.test", "--team", "acme", "--role", "boss"}, "role: The role must be owner, admin or member."},
			{[]string{"add", "--email", "mia@acme.test", "--team", "nowhere", "--role", "member"}, "not_found: Team nowhere not found."},
			{[]string{"set-role", "--email", "olivia@acme.test", "--team", "acme", "--role", "admin"}, "role: Team acme would have no owner."},
			{[]string{"set-role", "--email", "mia@acme.test", "--team", "globex", "--role", "admin"}, "not_found: Membership of mia@acme.test in team globex not found."},
			{[]string{"set-role", "--email", "nobody@acme.test", "--team", "acme", "--role", "admin"}, "not_found: User nobody@acme.test not found."},
			{[]string{"remove", "--email", "mia@acme.test", "--team", "acme"}, "team: This is the only team of mia@acme.test: a user needs one."},
			{[]string{"remove", "--email", "olivia@acme.test", "--team", "acme"}, "role: Team acme would have no owner."},
		} {
			stdout, stderr, err := m.Run("", append([]string{"user"}, tc.args...)...)
			assert.Error(t, err, tc.args)
			assert.Empty(t, stdout, tc.args)
			assert.Contains(t, stderr, tc.want, tc.args)
		}
		assert.Len(t, jsonLines(t, m.Must("user", "list")), 3, "nothing changed")
	})
}

// TestActivity_Window: --since-id and --limit page through the log.
func TestActivity_Window(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		m.Seed("testdata/seed.json")
		tok := m.CreateToken("olivia@acme.test", "opener", "jobs:write")
		srv := m.Serve()
		for _, title := range []string{"One", "Two", "Three"} {
			status, body := srv.Do("POST", "/api/v1/jobs", tok.Token, `{"title":"`+title+`"}`)
			require.Equal(t, http.StatusCreated, status, body)
		}
		all := jsonLines(t, m.Must("activity"))
		require.Len(t, all, 4, "the token's making and the three jobs")
		first := itoa(int64(all[0]["id"].(float64)))
		assert.Equal(t, all[1:], jsonLines(t, m.Must("activity", "--since-id", first)))
		assert.Equal(t, all[1:2], jsonLines(t, m.Must("activity", "--since-id", first, "--limit", "1")))
		assert.Equal(t, all[:2], jsonLines(t, m.Must("activity", "--team", "acme", "--limit", "2")))
		assert.Empty(t, m.Must("activity", "--since-id", itoa(int64(all[3]["id"].(float64)))))
	})
}

// TestServe_TrustedProxies: behind a proxy named in
// PIPELINE_TRUSTED_PROXIES, requests are counted and logged under the
// client's address from X-Forwarded-For.
func TestServe_TrustedProxies(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		m.env["PIPELINE_TRUSTED_PROXIES"] = "127.0.0.1, ::1"
		m.env["PIPELINE_RATE_LIMIT"] = "1"
		seeded := m.Seed("testdata/seed.json")
		tok := m.CreateToken("olivia@acme.test", "mover", "candidates:write")
		srv := m.Serve()
		move := "/api/v1/jobs/" + itoa(seeded.Jobs["backend"]) + "/candidates/" + itoa(seeded.Candidates["ada"]) + "/stage"
		resp := srv.Request("POST", move, tok.Token, `{"stage": `+itoa(seeded.Stages["backend"]["Offer"])+`}`,
			"X-Forwarded-For", "198.51.100.1, 203.0.113.9")
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		lines := writeEntries(t, m)
		require.Len(t, lines, 1)
		assert.Equal(t, "203.0.113.9", lines[0]["ip"], "the nearest address before the trusted proxy")

		anon := func(client string) int {
			resp := srv.Request("GET", "/api/v1/me", "", "", "X-Forwarded-For", client)
			resp.Body.Close()
			return resp.StatusCode
		}
		assert.Equal(t, http.StatusUnauthorized, anon("203.0.113.20"))
		assert.Equal(t, http.StatusTooManyRequests, anon("203.0.113.20"), "that client's budget of 1 is spent")
		assert.Equal(t, http.StatusUnauthorized, anon("203.0.113.21"), "not the proxy's")
		assert.Contains(t, srv.stderr.String(), `"ip":"203.0.113.21"`, "the access log names the client")
	})
}
