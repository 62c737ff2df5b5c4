package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestServe_NoCommand: `pipelined` alone serves, and PIPELINE_DB may name
// PostgreSQL with the postgresql:// scheme too.
func TestServe_NoCommand(t *testing.T) {
	t.Parallel()
	dsns := map[string]func(t *testing.T) string{
		"sqlite": func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "pipeline.db") },
		"postgresql scheme": func(t *testing.T) string {
			return "postgresql://" + strings.TrimPrefix(storetest.PostgresSchemaDSN(t), "postgres://")
		},
	}
	for name, dsn := range dsns {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := newMain(t, dsn(t))
			srv := m.Start()
			status, body := srv.Do("GET", "/readyz", "", "")
			assert.Equal(t, http.StatusOK, status, body)
			status, _ = srv.Do("GET", "/api/v1/me", "", "")
			assert.Equal(t, http.StatusUnauthorized, status, "the API is served")
		})
	}
}

func TestServe(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		seeded := m.Seed("testdata/seed.json")
		tok := m.CreateToken("olivia@acme.test", "ci", "jobs:read,jobs:write")
		srv := m.Serve()
		requireServing(t, srv, seeded, tok)

		// A request in flight when the signal arrives: its headers and half
		// of its body are sent, the rest only after shutdown has begun.
		conn, err := net.Dial("tcp", srv.Addr)
		require.NoError(t, err)
		defer conn.Close()
		job := `{"title":"Hired during shutdown"}`
		_, err = fmt.Fprintf(conn, "POST /api/v1/jobs HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
			"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			srv.Addr, tok.Token, len(job), job[:10])
		require.NoError(t, err)
		time.Sleep(200 * time.Millisecond) // the server reads the request: the connection is active

		srv.cancel() // as SIGTERM would
		require.Eventually(t, func() bool {
			c, err := net.DialTimeout("tcp", srv.Addr, time.Second)
			if err == nil {
				assert.NoError(t, c.Close())
			}
			return err != nil
		}, 20*time.Second, 10*time.Millisecond, "the listener still accepts after the signal")
		// The listener is closed: the stop has begun, and run, draining,
		// waits for the request whose body is still to come.
		select {
		case err := <-srv.done:
			t.Fatalf("run returned with a request in flight: %v", err)
		default:
		}

		_, err = io.WriteString(conn, job[10:])
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		require.NoError(t, err)
		created, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusCreated, resp.StatusCode, string(created))
		require.NoError(t, srv.Wait(), "run after draining")

		// The drained request committed.
		lines := writeEntries(t, m)
		require.Len(t, lines, 1)
		assert.Equal(t, "job.created", lines[0]["action"])

		// The access log is JSON, has the requests, and never a token.
		logs := srv.stderr.String()
		assert.NotContains(t, logs, tok.Token)
		assert.NotContains(t, logs, pipeline.TokenPrefix)
		var sawMe bool
		for _, l := range jsonLines(t, logs) {
			if l["msg"] == "request" && l["path"] == "/api/v1/me" && l["status"] == float64(200) {
				sawMe = true
			}
		}
		assert.True(t, sawMe, "access log line for /api/v1/me:\n%s", logs)
	})
}

// requireServing checks that srv serves health, the contract and the API,
// to tok, olivia's token of the seeded world.
func requireServing(t *testing.T, srv *Server, seeded pipeline.SeedResult, tok issuedToken) {
	t.Helper()
	status, body := srv.Do("GET", "/healthz", "", "")
	assert.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"status":"ok"}`, body)
	status, _ = srv.Do("GET", "/readyz", "", "")
	assert.Equal(t, http.StatusOK, status)
	for _, probe := range []string{"/healthz", "/readyz"} {
		status, body = srv.Do("HEAD", probe, "", "")
		assert.Equal(t, http.StatusOK, status, "HEAD %s", probe)
		assert.Empty(t, body)
	}
	status, body = srv.Do("GET", "/api/v1/openapi.json", "", "")
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, string(pipelinehttp.OpenAPIDocument()), body, "the served contract is the embedded one")
	var doc struct{ OpenAPI string }
	require.NoError(t, json.Unmarshal([]byte(body), &doc))
	assert.Equal(t, "3.1.0", doc.OpenAPI)

	status, body = srv.Do("GET", "/api/v1/me", tok.Token, "")
	require.Equal(t, http.StatusOK, status, body)
	var me struct {
		Data struct {
			ID     int64
			Email  string
			Scopes []string
			Team   struct{ ID int64 }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &me))
	assert.Equal(t, seeded.Users["olivia"], me.Data.ID)
	assert.Equal(t, "olivia@acme.test", me.Data.Email)
	assert.Equal(t, []string{"jobs:read", "jobs:write"}, me.Data.Scopes)
	assert.Equal(t, seeded.Teams["acme"], me.Data.Team.ID)

	status, _ = srv.Do("GET", "/api/v1/me", "", "")
	assert.Equal(t, http.StatusUnauthorized, status)
}

// TestSeed: each case on a fresh database of each kind.
func TestSeed(t *testing.T) {
	t.Parallel()
	eachCase(t, "invalid files load nothing", func(t *testing.T, m *Main) {
		stdout, stderr, err := m.Run("", "seed", "testdata/invalid.json")
		require.Error(t, err)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, "validation_failed")
		assert.Contains(t, stderr, "jobs[0].team: Unknown team nowhere.")
		assert.Contains(t, stderr, "jobs[0].status:")
		assert.Contains(t, stderr, "jobs[0].candidates[0].status:")

		_, stderr, err = m.Run("", "seed", "testdata/unknown-field.json")
		require.Error(t, err)
		assert.Contains(t, stderr, `unknown field "plan"`)

		_, stderr, err = m.Run(`{"teams": [], "users": "olivia"}`, "seed", "-")
		require.Error(t, err)
		assert.Contains(t, stderr, "cannot unmarshal")

		_, stderr, err = m.Run(`{"teams": []} {}`, "seed", "-")
		require.Error(t, err)
		assert.Contains(t, stderr, "after the seed object")

		_, _, err = m.Run("", "seed", "testdata/missing.json")
		require.Error(t, err)

		assert.Empty(t, m.Must("activity"))

		// A reference to a key the file does not define fails the whole
		// file, naming the field.
		_, stderr, err = m.Run("", "seed", "testdata/undefined-assignee.json")
		require.Error(t, err)
		assert.Contains(t, stderr, "jobs[0].assignees[0]: Unknown user nobody.")

		// The first seed that loads gets the first ids: nothing before it
		// was stored.
		seedDecisionsExample(t, m)
	})
	eachCase(t, "the loaded world is served", func(t *testing.T, m *Main) {
		res := seedDecisionsExample(t, m)
		bot := res.Tokens["olivia_bot"]

		// The token works, and the API shows what the file described.
		srv := m.Serve()
		status, body := srv.Do("GET", "/api/v1/me", bot, "")
		require.Equal(t, http.StatusOK, status, body)
		assert.Contains(t, body, `"scopes":["jobs:read","candidates:read"]`)
		status, body = srv.Do("GET", fmt.Sprintf("/api/v1/jobs/%d/stages", res.Jobs["backend"]), bot, "")
		require.Equal(t, http.StatusOK, status, body)
		assert.JSONEq(t, `{"data":[{"id":1,"name":"Applied"},{"id":2,"name":"Screening"},{"id":3,"name":"Interview"},{"id":4,"name":"Offer"},{"id":5,"name":"Hired"}]}`, body)
		status, body = srv.Do("GET", fmt.Sprintf("/api/v1/jobs/%d/candidates/%d", res.Jobs["backend"], res.Candidates["ada"]), bot, "")
		require.Equal(t, http.StatusOK, status, body)
		assert.JSONEq(t, `{"data":{"id":1,"name":"Ada Lovelace","email":"ada@example.test","applied":"2026-01-05",
			"stage":"Screening","status":"active","resume_url":"https://files.example.test/ada.pdf","notes_count":0}}`, body)
	})
	eachCase(t, "a store failure loads nothing", func(t *testing.T, m *Main) {
		seedDecisionsExample(t, m)
		// olivia@acme.test is taken: the whole file is rolled back, Bea
		// included.
		stdout, stderr, err := m.Run("", "seed", "testdata/conflict.json")
		require.Error(t, err)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, "conflict")
		_, stderr, err = m.Run("", "token", "create", "--user", "bea@beta.test", "--name", "x", "--scopes", "jobs:read")
		require.Error(t, err)
		assert.Contains(t, stderr, "not_found")
	})
}

// seedDecisionsExample loads decisions §8's example verbatim, as the first
// seed to load on m's database, and checks what seed prints: one JSON
// object on one line, with the first ids.
func seedDecisionsExample(t *testing.T, m *Main) pipeline.SeedResult {
	t.Helper()
	out, stderr, err := m.Run("", "seed", "testdata/decisions-example.json")
	require.NoError(t, err, stderr)
	assert.Empty(t, stderr)
	require.Equal(t, 1, strings.Count(out, "\n"), "one JSON object on one line: %q", out)
	var keys map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(out), &keys))
	assert.ElementsMatch(t, []string{"teams", "users", "jobs", "stages", "candidates", "tokens"}, slices.Collect(maps.Keys(keys)))
	var res pipeline.SeedResult
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Equal(t, map[string]int64{"acme": 1}, res.Teams)
	assert.Equal(t, map[string]int64{"olivia": 1, "mia": 2}, res.Users)
	assert.Equal(t, map[string]int64{"backend": 1}, res.Jobs)
	assert.Equal(t, map[string]int64{"ada": 1}, res.Candidates)
	stages := res.Stages["backend"]
	require.Len(t, stages, 5)
	for i, name := range []string{"Applied", "Screening", "Interview", "Offer", "Hired"} {
		assert.Equal(t, int64(i+1), stages[name], name)
	}
	bot := res.Tokens["olivia_bot"]
	assert.True(t, pipeline.WellFormedToken(bot), bot)
	assert.Empty(t, m.Must("activity"), "seeding writes no activity")
	return res
}

func TestToken(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		seeded := m.Seed("testdata/seed.json")
		out := m.Must("token", "create", "--user", "olivia@acme.test", "--name", "ci bot", "--scopes", "candidates:read, jobs:read")
		var fields map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &fields))
		assert.ElementsMatch(t, []string{"id", "name", "user_id", "team_id", "scopes", "approval_required", "created_at", "expires_at", "token"},
			slices.Collect(maps.Keys(fields)))
		var tok issuedToken
		require.NoError(t, json.Unmarshal([]byte(out), &tok))
		assert.Equal(t, "ci bot", tok.Name)
		assert.Equal(t, seeded.Users["olivia"], tok.UserID)
		assert.Equal(t, seeded.Teams["acme"], tok.TeamID)
		assert.Equal(t, []pipeline.Scope{"jobs:read", "candidates:read"}, tok.Scopes)
		assert.True(t, pipeline.WellFormedToken(tok.Token), tok.Token)
		assert.Equal(t, pipeline.AddMonths(tok.CreatedAt, 6), tok.ExpiresAt)
		assert.Regexp(t, `"created_at":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"`, out, "RFC 3339, UTC, seconds")

		srv := m.Serve()
		status, body := srv.Do("GET", "/api/v1/me", tok.Token, "")
		require.Equal(t, http.StatusOK, status, body)

		team := strconv.FormatInt(seeded.Teams["acme"], 10)
		out = m.Must("token", "list", "--team", team)
		assert.NotContains(t, out, pipeline.TokenPrefix)
		assert.NotContains(t, out, pipeline.HashToken(tok.Token))
		lines := jsonLines(t, out)
		require.Len(t, lines, 2)
		for _, l := range lines {
			assert.ElementsMatch(t, []string{"id", "name", "creator", "scopes", "approval_required", "created_at", "expires_at", "last_used_at", "revoked_at"},
				slices.Collect(maps.Keys(l)))
			assert.Equal(t, []any{}, l["approval_required"])
			assert.Equal(t, map[string]any{"id": float64(seeded.Users["olivia"]), "name": "Olivia Owner", "email": "olivia@acme.test"}, l["creator"])
			assert.Nil(t, l["revoked_at"])
		}
		assert.Equal(t, "pipeline bot", lines[0]["name"])
		assert.Equal(t, "ci bot", lines[1]["name"])
		assert.Equal(t, float64(tok.ID), lines[1]["id"])
		assert.NotNil(t, lines[1]["last_used_at"], "used by GET /me")

		m.Must("token", "revoke", strconv.FormatInt(tok.ID, 10))
		// The server trusts what it read of a token for up to
		// pipeline.DefaultTokenTTL: the revocation reaches it by then.
		assert.Eventually(t, func() bool {
			status, _ := srv.Do("GET", "/api/v1/me", tok.Token, "")
			return status == http.StatusUnauthorized
		}, 10*pipeline.DefaultTokenTTL, pipeline.DefaultTokenTTL/10)
		lines = jsonLines(t, m.Must("token", "list", "--team", team))
		assert.NotNil(t, lines[1]["revoked_at"])
		assert.Nil(t, lines[0]["revoked_at"])

		t.Run("errors", func(t *testing.T) {
			for _, tc := range []struct {
				args []string
				want string
			}{
				{[]string{"token", "create", "--user", "olivia@acme.test", "--name", "x", "--scopes", "jobs:delete"}, "validation_failed"},
				{[]string{"token", "create", "--user", "olivia@acme.test", "--name", " ", "--scopes", "jobs:read"}, "validation_failed"},
				{[]string{"token", "create", "--user", "nobody@acme.test", "--name", "x", "--scopes", "jobs:read"}, "not_found"},
				{[]string{"token", "create", "--name", "x"}, "--user"},
				{[]string{"token", "revoke", "9999"}, "not_found"},
				{[]string{"token", "revoke", "abc"}, "not a token id"},
				{[]string{"token", "list"}, "--team"},
				{[]string{"token", "delete", "1"}, "unknown token subcommand"},
			} {
				stdout, stderr, err := m.Run("", tc.args...)
				assert.Error(t, err, tc.args)
				assert.Empty(t, stdout, tc.args)
				assert.Contains(t, stderr, tc.want, tc.args)
			}
		})
	})
}

// TestToken_Approval: token create --approval gives the token an approval
// policy, which token list and /me show; a policy the domain refuses is a
// mistake of the command line.
func TestToken_Approval(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		seeded := m.Seed("testdata/seed.json")
		out := m.Must("token", "create", "--user", "olivia@acme.test", "--name", "agent", "--scopes", "candidates:write,messages:send",
			"--approval", "send_message, move_candidate,send_message")
		var tok issuedToken
		require.NoError(t, json.Unmarshal([]byte(out), &tok))
		assert.Equal(t, []pipeline.Op{pipeline.OpMoveCandidate, pipeline.OpSendMessage}, tok.Approval)

		lines := jsonLines(t, m.Must("token", "list", "--team", strconv.FormatInt(seeded.Teams["acme"], 10)))
		require.Len(t, lines, 2)
		assert.Equal(t, []any{}, lines[0]["approval_required"])
		assert.Equal(t, []any{"move_candidate", "send_message"}, lines[1]["approval_required"])

		status, body := m.Serve().Do("GET", "/api/v1/me", tok.Token, "")
		require.Equal(t, http.StatusOK, status, body)
		assert.Contains(t, body, `"approval_required":["move_candidate","send_message"]`)

		for _, tc := range []struct{ scopes, approval, want string }{
			{"candidates:write", "move_candidate,get_candidate", "approval: The operation get_candidate is a read"},
			{"candidates:write", "move_candidates", "approval: Unknown operation move_candidates."},
			{"candidates:write", "erase_person", "approval: The operation erase_person needs the scope privacy:manage, which the token does not carry."},
			{"candidates:write,proposals:review", "*", "scopes: A token under an approval policy cannot carry proposals:review."},
		} {
			stdout, stderr, err := m.Run("", "token", "create", "--user", "olivia@acme.test", "--name", "x", "--scopes", tc.scopes, "--approval", tc.approval)
			assert.Equal(t, exitUsage, exitStatus(err), tc.approval)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, tc.want)
		}
	})
}

// TestToken_SetApproval: web.md, an operator changes a token's approval
// policy, logged as token.approval_changed (decisions.md §7).
func TestToken_SetApproval(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		m.Seed("testdata/seed.json")
		tok := m.CreateToken("olivia@acme.test", "agent", "candidates:write,messages:send")
		id := strconv.FormatInt(tok.ID, 10)
		var set struct {
			ID       int64         `json:"id"`
			Approval []pipeline.Op `json:"approval_required"`
		}
		require.NoError(t, json.Unmarshal([]byte(m.Must("token", "set-approval", id, "--approval", "send_message,move_candidate")), &set))
		assert.Equal(t, tok.ID, set.ID)
		assert.Equal(t, []pipeline.Op{pipeline.OpMoveCandidate, pipeline.OpSendMessage}, set.Approval)
		m.Must("token", "set-approval", id, "--approval", "move_candidate,send_message") // the same policy

		lines := jsonLines(t, m.Must("activity"))
		require.Len(t, lines, 2, "token.created, then one change")
		changed := lines[1]
		assert.Equal(t, "token.approval_changed", changed["action"])
		assert.Equal(t, float64(tok.ID), changed["subject_id"])
		assert.Equal(t, map[string]any{"before": []any{}, "after": []any{"move_candidate", "send_message"}},
			changed["changes"].(map[string]any)["approval_required"])

		_, stderr, err := m.Run("", "token", "set-approval", id, "--approval", "list_jobs")
		assert.Equal(t, exitUsage, exitStatus(err))
		assert.Contains(t, stderr, "approval: The operation list_jobs is a read")
		_, _, err = m.Run("", "token", "set-approval", id)
		assert.Equal(t, exitUsage, exitStatus(err), "--approval is required")
		_, stderr, err = m.Run("", "token", "set-approval", "999", "--approval", "")
		assert.Error(t, err)
		assert.Contains(t, stderr, "not_found")
	})
}

// TestToken_NoScopes: decisions §7, a token without scopes is valid and
// reaches /me only; --scopes "" issues one.
func TestToken_NoScopes(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		seeded := m.Seed("testdata/seed.json")
		out := m.Must("token", "create", "--user", "olivia@acme.test", "--name", "bare", "--scopes", "")
		assert.Contains(t, out, `"scopes":[]`)
		var bare issuedToken
		require.NoError(t, json.Unmarshal([]byte(out), &bare))
		assert.True(t, pipeline.WellFormedToken(bare.Token), bare.Token)

		srv := m.Serve()
		status, body := srv.Do("GET", "/api/v1/me", bare.Token, "")
		require.Equal(t, http.StatusOK, status, body)
		assert.Contains(t, body, `"scopes":[]`)
		status, body = srv.Do("GET", "/api/v1/jobs", bare.Token, "")
		assert.Equal(t, http.StatusForbidden, status, body)
		assert.Contains(t, body, `"insufficient_scope"`)
		assert.Contains(t, m.Must("token", "list", "--team", strconv.FormatInt(seeded.Teams["acme"], 10)), `"name":"bare","creator"`)
		assert.Contains(t, m.Must("token", "list", "--team", "acme"), `"scopes":[]`)
	})
}

func TestActivity(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		acme := m.Seed("testdata/seed.json")
		globex := m.Seed("testdata/globex.json")
		olivia := m.CreateToken("olivia@acme.test", "mover", "candidates:write")
		gina := m.CreateToken("gina@globex.test", "opener", "jobs:write")
		srv := m.Serve()

		move := fmt.Sprintf("/api/v1/jobs/%d/candidates/%d/stage", acme.Jobs["backend"], acme.Candidates["ada"])
		status, body := srv.Do("POST", move, olivia.Token, fmt.Sprintf(`{"stage": %d, "reason": "Passed the screen.\nOn to interviews."}`, acme.Stages["backend"]["Interview"]))
		require.Equal(t, http.StatusOK, status, body)
		status, body = srv.Do("POST", "/api/v1/jobs", gina.Token, `{"title": "Site Reliability Engineer"}`)
		require.Equal(t, http.StatusCreated, status, body)
		var job struct{ Data struct{ ID int64 } }
		require.NoError(t, json.Unmarshal([]byte(body), &job))

		all := jsonLines(t, m.Must("activity"))
		require.Len(t, all, 4)
		made, madeGlobex, moved, opened := all[0], all[1], all[2], all[3]
		// token create is logged, by no user and with no token.
		for i, e := range []map[string]any{made, madeGlobex} {
			assert.Equal(t, "token.created", e["action"])
			assert.Equal(t, "token", e["subject_type"])
			assert.Equal(t, float64([]int64{olivia.ID, gina.ID}[i]), e["subject_id"])
			assert.Equal(t, float64([]int64{acme.Teams["acme"], globex.Teams["globex"]}[i]), e["team_id"])
			assert.NotContains(t, fmt.Sprint(e["changes"]), []string{olivia.Token, gina.Token}[i], "never its value")
			// As the API has it: null, not 0, for no token and no user.
			assert.Contains(t, e, "token_id")
			assert.Nil(t, e["token_id"], "made without a token")
			assert.Contains(t, e, "user_id")
			assert.Nil(t, e["user_id"], "made by the operator, no user")
		}
		assert.Equal(t, map[string]any{"before": nil, "after": "mover"}, made["changes"].(map[string]any)["name"])
		assert.Equal(t, "candidate.stage_changed", moved["action"])
		assert.Equal(t, float64(acme.Teams["acme"]), moved["team_id"])
		assert.Equal(t, float64(acme.Users["olivia"]), moved["user_id"])
		assert.Equal(t, float64(olivia.ID), moved["token_id"])
		assert.Equal(t, "127.0.0.1", moved["ip"])
		assert.Equal(t, "candidate", moved["subject_type"])
		assert.Equal(t, float64(acme.Candidates["ada"]), moved["subject_id"])
		assert.Equal(t, map[string]any{"stage": map[string]any{"before": "Screening", "after": "Interview"}}, moved["changes"])
		assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`, moved["created_at"])
		assert.Equal(t, "Passed the screen.\nOn to interviews.", moved["reason"])
		assert.Contains(t, moved, "approved_by")
		assert.Nil(t, moved["approved_by"], "not approved: made by its token")

		assert.Equal(t, "job.created", opened["action"])
		assert.Equal(t, float64(globex.Teams["globex"]), opened["team_id"])
		assert.Equal(t, float64(globex.Users["gina"]), opened["user_id"])
		assert.Equal(t, float64(gina.ID), opened["token_id"])
		assert.Equal(t, float64(job.Data.ID), opened["subject_id"])
		assert.Contains(t, opened, "reason")
		assert.Nil(t, opened["reason"], "no reason given")
		assert.Less(t, moved["id"], opened["id"], "oldest first")

		byTeam := func(id int64) []map[string]any {
			return jsonLines(t, m.Must("activity", "--team", strconv.FormatInt(id, 10)))
		}
		assert.Equal(t, []map[string]any{made, moved}, byTeam(acme.Teams["acme"]))
		assert.Equal(t, []map[string]any{madeGlobex, opened}, byTeam(globex.Teams["globex"]))
		assert.Equal(t, []map[string]any{madeGlobex, opened}, jsonLines(t, m.Must("activity", "--team", "globex")), "a team by its key")

		for _, team := range []string{"999", "x"} {
			_, stderr, err := m.Run("", "activity", "--team", team)
			assert.Error(t, err)
			assert.Contains(t, stderr, "not_found: Team "+team+" not found.")
		}
	})
}

func TestDemo(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	ignored := filepath.Join(t.TempDir(), "ignored.db")
	m := newMain(t, ignored)
	srv := m.Start("demo")
	out := srv.stdout.String()
	t.Logf("demo output:\n%s", out)

	var export string
	var curls []string
	for line := range strings.Lines(out) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "export PIPELINE_TOKEN="):
			export = line
		case strings.HasPrefix(line, "curl "):
			curls = append(curls, line)
		default:
			assert.True(t, line == "" || strings.HasPrefix(line, "#"), "not a comment, not a command: %q", line)
		}
	}
	token := strings.TrimPrefix(export, "export PIPELINE_TOKEN=")
	require.True(t, pipeline.WellFormedToken(token), "export line: %q", export)
	assert.Contains(t, out, "#   "+token+"\n", "the token on a line of its own")
	require.GreaterOrEqual(t, len(curls), 4)

	authenticated := 0
	bodies := map[string]string{}
	for _, line := range curls {
		assert.Contains(t, line, "http://"+srv.Addr+"/")
		if strings.Contains(line, "$PIPELINE_TOKEN") {
			authenticated++
		}
		// As pasted into a shell after the export; -f fails on 4xx and 5xx.
		script := export + "\n" + line + ` -f -w '\n%{http_code}'`
		got, err := exec.Command("sh", "-c", script).CombinedOutput()
		require.NoError(t, err, "%s\n%s", line, got)
		body, code, _ := strings.Cut(strings.TrimSpace(string(got)), "\n")
		assert.Regexp(t, `^2\d\d$`, code, line)
		assert.True(t, json.Valid([]byte(body)), "%s: %s", line, body)
		bodies[line] = body
	}
	assert.Equal(t, len(curls), authenticated, "every curl line carries the token")

	for line, body := range bodies {
		switch {
		case strings.Contains(line, "candidates?page=2"):
			var page struct {
				Data []any
				Meta struct{ CurrentPage, Total int } `json:"meta"`
			}
			require.NoError(t, json.Unmarshal([]byte(body), &page))
			assert.NotEmpty(t, page.Data, "page 2 of a job's candidates")
			assert.GreaterOrEqual(t, page.Meta.Total, 20)
		case strings.Contains(line, "/stage "):
			assert.Contains(t, body, `"stage":"Screening"`)
		case strings.Contains(line, "/mcp "):
			assert.Contains(t, body, `"name":"move_candidate"`)
		case strings.HasSuffix(strings.Fields(line)[2], "/api/v1/me"):
			assert.Contains(t, body, `"scopes":["jobs:read","jobs:write","candidates:read","candidates:write","messages:send","scheduling:write","activity:read","webhooks:write","proposals:review","privacy:manage","team:manage"],"approval_required":[]`)
		}
	}

	// The printed activity hint reads the demo's database while it runs.
	dbPath := regexp.MustCompile(`PIPELINE_DB=(\S+) go run`).FindStringSubmatch(out)
	require.NotNil(t, dbPath, "activity hint")
	hint := newMain(t, dbPath[1])
	lines := writeEntries(t, hint)
	require.Len(t, lines, 1)
	assert.Equal(t, "candidate.stage_changed", lines[0]["action"])

	require.NoError(t, srv.Stop())
	_, err := os.Stat(filepath.Dir(dbPath[1]))
	assert.True(t, os.IsNotExist(err), "temporary directory removed: %v", err)
	_, err = os.Stat(ignored)
	assert.True(t, os.IsNotExist(err), "PIPELINE_DB is ignored: %v", err)
}

// TestConfig_Timeouts: the PIPELINE_*_TIMEOUT and PIPELINE_SHUTDOWN_DELAY
// durations in either notation, and the values refused.
func TestConfig_Timeouts(t *testing.T) {
	for _, name := range []string{"PIPELINE_READ_TIMEOUT", "PIPELINE_REQUEST_TIMEOUT", "PIPELINE_SHUTDOWN_TIMEOUT", "PIPELINE_SHUTDOWN_DELAY"} {
		for v, want := range map[string]time.Duration{"500ms": 500 * time.Millisecond, "45": 45 * time.Second, "1m30s": 90 * time.Second} {
			// The read timeout is as long as the request's, at least.
			cfg, err := loadConfig(func(k string) string { return map[string]string{name: v, "PIPELINE_READ_TIMEOUT": "2m"}[k] })
			if name == "PIPELINE_READ_TIMEOUT" {
				cfg, err = loadConfig(func(k string) string { return map[string]string{name: v, "PIPELINE_REQUEST_TIMEOUT": "100ms"}[k] })
			}
			require.NoError(t, err, name, v)
			got := map[string]time.Duration{"PIPELINE_READ_TIMEOUT": cfg.ReadTimeout, "PIPELINE_REQUEST_TIMEOUT": cfg.RequestTimeout,
				"PIPELINE_SHUTDOWN_TIMEOUT": cfg.ShutdownTimeout, "PIPELINE_SHUTDOWN_DELAY": cfg.ShutdownDelay}[name]
			assert.Equal(t, want, got, name, v)
		}
		bad := []string{"-1s", "soon", "1.5", "10 s"}
		if name != "PIPELINE_SHUTDOWN_DELAY" {
			bad = append(bad, "0", "0s") // only the delay may be none
		}
		for _, v := range bad {
			_, err := loadConfig(func(k string) string { return map[string]string{name: v}[k] })
			assert.ErrorContains(t, err, name, v)
		}
	}
	_, err := loadConfig(func(k string) string {
		return map[string]string{"PIPELINE_READ_TIMEOUT": "5s", "PIPELINE_REQUEST_TIMEOUT": "6s"}[k]
	})
	assert.ErrorContains(t, err, "may not be longer than PIPELINE_READ_TIMEOUT")

}

func TestConfig(t *testing.T) {
	t.Parallel()
	t.Run("defaults", func(t *testing.T) {
		cfg, err := loadConfig(func(string) string { return "" })
		require.NoError(t, err)
		assert.Equal(t, config{DB: "pipeline.db", Addr: "127.0.0.1:8080", RateLimit: 60, AutoMigrate: true, WebhookWorkers: 4,
			ReadTimeout: 30 * time.Second, RequestTimeout: 10 * time.Second, ShutdownTimeout: 20 * time.Second}, cfg)
	})

	t.Run("bad rate limit", func(t *testing.T) {
		for _, v := range []string{"abc", "0", "-5", "1.5"} {
			m := newMain(t, filepath.Join(t.TempDir(), "pipeline.db"))
			m.env["PIPELINE_RATE_LIMIT"] = v
			for _, cmd := range []string{"serve", "activity"} {
				_, stderr, err := m.Run("", cmd)
				assert.Error(t, err, v)
				assert.Contains(t, stderr, "PIPELINE_RATE_LIMIT", v)
			}
		}
	})

	t.Run("bad base URL", func(t *testing.T) {
		for _, v := range []string{"notaurl", "ftp://x", "jobs.example.test", "//jobs.example.test", "https://",
			"https://:8443", "http:jobs.example.test", "https://jobs.example.test?x=1",
			"https://jobs.example.test/?", "https://jobs.example.test#top", "https://u:p@jobs.example.test", "https://jobs example.test"} {
			m := newMain(t, filepath.Join(t.TempDir(), "pipeline.db"))
			m.env["PIPELINE_BASE_URL"] = v
			for _, cmd := range []string{"serve", "activity"} {
				_, stderr, err := m.Run("", cmd)
				assert.Error(t, err, v)
				assert.Contains(t, stderr, "PIPELINE_BASE_URL", v)
			}
		}
	})

	t.Run("pool size", func(t *testing.T) {
		cfg, err := loadConfig(func(k string) string { return map[string]string{"PIPELINE_DB_MAX_CONNS": "64"}[k] })
		require.NoError(t, err)
		assert.Equal(t, 64, cfg.MaxConns)
		for _, v := range []string{"0", "-1", "lots"} {
			_, err := loadConfig(func(k string) string { return map[string]string{"PIPELINE_DB_MAX_CONNS": v}[k] })
			assert.ErrorContains(t, err, "PIPELINE_DB_MAX_CONNS", v)
		}
	})

	t.Run("pooler", func(t *testing.T) {
		for v, pooled := range map[string]bool{"": false, "none": false, "transaction": true} {
			cfg, err := loadConfig(func(k string) string { return map[string]string{"PIPELINE_DB_POOLER": v}[k] })
			require.NoError(t, err)
			assert.Equal(t, pooled, cfg.Pooled, v)
		}
		_, err := loadConfig(func(k string) string { return map[string]string{"PIPELINE_DB_POOLER": "session"}[k] })
		assert.ErrorContains(t, err, "PIPELINE_DB_POOLER")
	})

	t.Run("webhooks", func(t *testing.T) {
		env := map[string]string{
			"PIPELINE_WEBHOOK_WORKERS": "0", "PIPELINE_WEBHOOK_ALLOW_HTTP": "true", "PIPELINE_WEBHOOK_ALLOW_PRIVATE": "1",
			"PIPELINE_SECRET_KEY": strings.Repeat("ab", 32),
		}
		cfg, err := loadConfig(func(k string) string { return env[k] })
		require.NoError(t, err)
		assert.Equal(t, 0, cfg.WebhookWorkers)
		assert.True(t, cfg.WebhookAllowHTTP)
		assert.True(t, cfg.WebhookAllowPrivate)
		assert.NotNil(t, cfg.SecretKey)
		for name, v := range map[string]string{
			"PIPELINE_WEBHOOK_WORKERS": "-1", "PIPELINE_WEBHOOK_ALLOW_HTTP": "yes please",
			"PIPELINE_WEBHOOK_ALLOW_PRIVATE": "maybe", "PIPELINE_SECRET_KEY": "short",
		} {
			_, err := loadConfig(func(k string) string { return map[string]string{name: v}[k] })
			assert.ErrorContains(t, err, name, v)
		}
	})

	t.Run("good base URL", func(t *testing.T) {
		for v, want := range map[string]string{
			"https://jobs.example.test":      "https://jobs.example.test",
			"https://jobs.example.test/":     "https://jobs.example.test",
			"HTTP://jobs.example.test:8080/": "http://jobs.example.test:8080",
			"http://[::1]:8080":              "http://[::1]:8080",
			"https://example.test/hiring/":   "https://example.test/hiring",
		} {
			cfg, err := loadConfig(func(k string) string { return map[string]string{"PIPELINE_BASE_URL": v}[k] })
			require.NoError(t, err, v)
			assert.Equal(t, want, cfg.BaseURL, v)
		}
	})
}

// TestConfig_Applied: the configuration reaches what the commands do.
func TestConfig_Applied(t *testing.T) {
	t.Parallel()
	t.Run("rate limit and base URL reach the server", func(t *testing.T) {
		m := newMain(t, "sqlite:"+filepath.Join(t.TempDir(), "pipeline.db"))
		m.env["PIPELINE_RATE_LIMIT"] = "2"
		m.env["PIPELINE_BASE_URL"] = "https://jobs.example.test/hiring"
		m.Seed("testdata/seed.json")
		tok := m.CreateToken("olivia@acme.test", "ci", "jobs:read")
		srv := m.Serve()
		resp := srv.Request("GET", "/api/v1/jobs", tok.Token, "")
		assert.Equal(t, "2", resp.Header.Get("X-RateLimit-Limit"))
		assert.Equal(t, "1", resp.Header.Get("X-RateLimit-Remaining"))
		var list struct{ Links struct{ First string } }
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
		resp.Body.Close()
		assert.True(t, strings.HasPrefix(list.Links.First, "https://jobs.example.test/hiring/api/v1/jobs"), list.Links.First)
		srv.Do("GET", "/api/v1/me", tok.Token, "")
		status, _ := srv.Do("GET", "/api/v1/me", tok.Token, "")
		assert.Equal(t, http.StatusTooManyRequests, status)
	})

	t.Run("unreachable database", func(t *testing.T) {
		m := newMain(t, filepath.Join(t.TempDir(), "missing", "dir", "pipeline.db"))
		_, stderr, err := m.Run("", "activity")
		assert.Error(t, err)
		assert.Contains(t, stderr, "pipelined: ")
	})
}

// Main runs the command in-process, as main does, against one database.
type Main struct {
	t   *testing.T
	env map[string]string
}

func newMain(t *testing.T, dsn string) *Main {
	return &Main{t: t, env: map[string]string{"PIPELINE_DB": dsn, "PIPELINE_ADDR": "127.0.0.1:0"}}
}

func (m *Main) getenv(key string) string { return m.env[key] }

// Run runs one command to completion.
func (m *Main) Run(stdin string, args ...string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err = run(ctx, args, m.getenv, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), err
}

// Must runs one command that must succeed and returns its stdout.
func (m *Main) Must(args ...string) string {
	m.t.Helper()
	stdout, stderr, err := m.Run("", args...)
	require.NoError(m.t, err, "pipelined %s\n%s", strings.Join(args, " "), stderr)
	return stdout
}

// Seed loads a seed file.
func (m *Main) Seed(path string) pipeline.SeedResult {
	m.t.Helper()
	var res pipeline.SeedResult
	require.NoError(m.t, json.Unmarshal([]byte(m.Must("seed", path)), &res))
	return res
}

// CreateToken issues a token with token create.
func (m *Main) CreateToken(email, name, scopes string) issuedToken {
	m.t.Helper()
	var tok issuedToken
	out := m.Must("token", "create", "--user", email, "--name", name, "--scopes", scopes)
	require.NoError(m.t, json.Unmarshal([]byte(out), &tok))
	return tok
}

// Serve starts pipelined serve.
func (m *Main) Serve() *Server { return m.Start("serve") }

// Start runs a serving command until the test ends, and returns once it
// logged the address it listens on.
func (m *Main) Start(args ...string) *Server {
	m.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		t: m.t, cancel: cancel, done: make(chan error, 1),
		stdout: &lockedBuffer{}, stderr: &lockedBuffer{listening: make(chan string, 1)},
	}
	go func() { s.done <- run(ctx, args, m.getenv, strings.NewReader(""), s.stdout, s.stderr) }()
	m.t.Cleanup(func() {
		cancel()
		_ = s.Wait()
	})
	select {
	case s.Addr = <-s.stderr.listening:
	case err := <-s.done:
		s.done <- err
		m.t.Fatalf("pipelined %v returned before listening: %v\n%s", args, err, s.stderr)
	case <-time.After(20 * time.Second):
		m.t.Fatalf("pipelined %v is not listening\n%s", args, s.stderr)
	}
	s.URL = "http://" + s.Addr
	return s
}

// Server is a running serving command.
type Server struct {
	t              *testing.T
	Addr, URL      string
	stdout, stderr *lockedBuffer
	cancel         context.CancelFunc
	done           chan error

	once sync.Once
	err  error
}

// Wait returns what run returned, after the server was stopped.
func (s *Server) Wait() error {
	s.once.Do(func() {
		select {
		case s.err = <-s.done:
		case <-time.After(30 * time.Second):
			s.err = fmt.Errorf("run did not return")
		}
	})
	return s.err
}

// Stop stops the server as SIGINT or SIGTERM would and waits for run to
// return.
func (s *Server) Stop() error {
	s.cancel()
	return s.Wait()
}

// Request sends one request; token and body may be empty, hdr are header
// name and value pairs.
func (s *Server) Request(method, path, token, body string, hdr ...string) *http.Response {
	s.t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	require.NoError(s.t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(s.t, err)
	return resp
}

// Do sends one request and returns its status and body.
func (s *Server) Do(method, path, token, body string) (int, string) {
	s.t.Helper()
	resp := s.Request(method, path, token, body)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(s.t, err)
	return resp.StatusCode, string(b)
}

// lockedBuffer collects a command's output while it runs. With listening
// set it reports the address of the "listening" log line.
type lockedBuffer struct {
	mu        sync.Mutex
	buf       bytes.Buffer
	line      []byte
	listening chan string
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if b.listening == nil {
		return len(p), nil
	}
	b.line = append(b.line, p...)
	for {
		i := bytes.IndexByte(b.line, '\n')
		if i < 0 {
			break
		}
		var rec struct{ Msg, Addr string }
		if json.Unmarshal(b.line[:i], &rec) == nil && rec.Msg == "listening" {
			select {
			case b.listening <- rec.Addr:
			default:
			}
		}
		b.line = b.line[i+1:]
	}
	return len(p), nil
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// jsonLines decodes JSON lines; no output is no lines.
// writeEntries are the lines pipelined activity args prints, without the
// entries of the tokens a test made for its requests (token.*).
func writeEntries(t *testing.T, m *Main, args ...string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range jsonLines(t, m.Must(append([]string{"activity"}, args...)...)) {
		if !strings.HasPrefix(e["action"].(string), "token.") {
			out = append(out, e)
		}
	}
	return out
}

func jsonLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.Lines(s) {
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &v), line)
		out = append(out, v)
	}
	return out
}

// eachCase runs fn as subtest name, once per database (see eachDB), each
// time on a fresh one.
func eachCase(t *testing.T, name string, fn func(*testing.T, *Main)) {
	t.Helper()
	t.Run(name, func(t *testing.T) { eachDB(t, fn) })
}

// eachDB runs fn once per database: a SQLite file in a temporary directory
// and, when PIPELINE_TEST_POSTGRES names a server, a fresh schema on it
// (skipped without the variable, failed under CI=true).
func eachDB(t *testing.T, fn func(*testing.T, *Main)) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		fn(t, newMain(t, filepath.Join(t.TempDir(), "pipeline.db")))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		fn(t, newMain(t, storetest.PostgresSchemaDSN(t)))
	})
}

// TestServe_DeliversAfterRestart: a write commits while no worker runs,
// the server stops before anything is sent; once a server delivers again,
// the message is delivered, signed.
func TestServe_DeliversAfterRestart(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		rc, got := webhookReceiver(t)
		m.env["PIPELINE_SECRET_KEY"] = base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 32))
		m.env["PIPELINE_WEBHOOK_ALLOW_HTTP"] = "true"
		m.env["PIPELINE_WEBHOOK_ALLOW_PRIVATE"] = "true"
		m.env["PIPELINE_WEBHOOK_WORKERS"] = "0"
		m.Seed("testdata/seed.json")
		tok := m.CreateToken("olivia@acme.test", "hooks", "jobs:write,webhooks:write")
		srv := m.Serve()
		status, body := srv.Do("POST", "/api/v1/webhooks", tok.Token, `{"url":"`+rc.URL+`","events":["job.created"]}`)
		require.Equal(t, http.StatusCreated, status, body)
		status, body = srv.Do("POST", "/api/v1/jobs", tok.Token, `{"title":"Hired after a restart"}`)
		require.Equal(t, http.StatusCreated, status, body)
		require.NoError(t, srv.Stop())
		assert.Empty(t, got, "no worker ran before the server stopped")

		m.env["PIPELINE_WEBHOOK_WORKERS"] = "1"
		srv = m.Serve()
		select {
		case d := <-got:
			var msg struct{ Type string }
			require.NoError(t, json.Unmarshal(d.body, &msg))
			assert.Equal(t, "job.created", msg.Type)
			assert.Regexp(t, `^pipelined/`, d.header.Get("User-Agent"))
			assert.Regexp(t, `^v1,`, d.header.Get("Webhook-Signature"))
		case <-time.After(20 * time.Second):
			t.Fatalf("nothing was delivered after the restart\n%s", srv.stderr)
		}
	})
}

// TestServe_WebhooksWithoutKey: with no PIPELINE_SECRET_KEY, webhooks are
// created as events.md says, their secrets sealed under a key kept in the
// database (and the log says so); once the operator sets a key, the
// webhooks made before still sign their deliveries with their secret.
func TestServe_WebhooksWithoutKey(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		rc, got := webhookReceiver(t)
		m.env["PIPELINE_WEBHOOK_ALLOW_HTTP"] = "true"
		m.env["PIPELINE_WEBHOOK_ALLOW_PRIVATE"] = "true"
		m.Seed("testdata/seed.json")
		tok := m.CreateToken("olivia@acme.test", "hooks", "jobs:write,webhooks:write")
		srv := m.Serve()
		status, body := srv.Do("POST", "/api/v1/webhooks", tok.Token, `{"url":"`+rc.URL+`","events":["job.created"]}`)
		require.Equal(t, http.StatusCreated, status, body)
		var created struct{ Data struct{ Secret string } }
		require.NoError(t, json.Unmarshal([]byte(body), &created))
		secret, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(created.Data.Secret, pipeline.WebhookSecretPrefix))
		require.NoError(t, err)
		assert.Contains(t, srv.stderr.String(), "PIPELINE_SECRET_KEY is not set")

		deliveredSigned := func(srv *Server, title string) {
			t.Helper()
			status, body := srv.Do("POST", "/api/v1/jobs", tok.Token, `{"title":"`+title+`"}`)
			require.Equal(t, http.StatusCreated, status, body)
			select {
			case d := <-got:
				mac := hmac.New(sha256.New, secret)
				mac.Write([]byte(d.header.Get("Webhook-Id") + "." + d.header.Get("Webhook-Timestamp") + "." + string(d.body)))
				assert.Equal(t, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)), d.header.Get("Webhook-Signature"))
				assert.Contains(t, string(d.body), title)
			case <-time.After(20 * time.Second):
				t.Fatalf("nothing was delivered\n%s", srv.stderr)
			}
		}
		deliveredSigned(srv, "Signed under the stored key")
		require.NoError(t, srv.Stop())

		m.env["PIPELINE_SECRET_KEY"] = base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))
		srv = m.Serve()
		deliveredSigned(srv, "Still signed once a key is set")
		assert.NotContains(t, srv.stderr.String(), "PIPELINE_SECRET_KEY is not set")
	})
}

// delivery is a request a webhook receiver got.
type delivery struct {
	header http.Header
	body   []byte
}

// webhookReceiver is a receiver that takes every delivery (204) and hands
// it on to got; it closes when the test ends.
func webhookReceiver(t *testing.T) (rc *httptest.Server, got chan delivery) {
	got = make(chan delivery, 4)
	rc = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		assert.NoError(t, err)
		got <- delivery{r.Header, body}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.Close)
	return rc, got
}
