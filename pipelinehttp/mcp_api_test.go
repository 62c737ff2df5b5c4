package pipelinehttp

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// mcpRead is a read tool's call and the API request it stands for.
type mcpRead struct {
	tool string
	args map[string]any
	path string // GET, from /api/v1
}

func mcpReads(e *env) map[string]mcpRead {
	backend, ada := e.Job("backend"), e.Res.Candidates["ada"]
	applied := e.Res.Stages["backend"]["Applied"]
	return map[string]mcpRead{
		"get_me":                  {"get_me", nil, "/api/v1/me"},
		"list_jobs":               {"list_jobs", nil, "/api/v1/jobs"},
		"list_jobs filtered":      {"list_jobs", map[string]any{"status": "draft", "search": "DESIGN", "page": 1}, "/api/v1/jobs?status=draft&search=DESIGN&page=1"},
		"list_jobs past the last": {"list_jobs", map[string]any{"page": 3}, "/api/v1/jobs?page=3"},
		"get_job":                 {"get_job", map[string]any{"job_id": backend}, jobPath(backend)},
		"list_stages":             {"list_stages", map[string]any{"job_id": backend}, jobPath(backend) + "/stages"},
		"list_candidates":         {"list_candidates", map[string]any{"job_id": backend}, jobPath(backend) + "/candidates"},
		"list_candidates filtered": {"list_candidates", map[string]any{"job_id": backend, "stage": applied, "search": "ada"},
			jobPath(backend) + "/candidates?stage=" + itoa(applied) + "&search=ada"},
		"list_candidates by status": {"list_candidates", map[string]any{"job_id": backend, "status": "rejected"},
			jobPath(backend) + "/candidates?status=rejected"},
		"get_candidate": {"get_candidate", map[string]any{"job_id": backend, "candidate_id": ada}, candidatePath(backend, ada)},
		"list_notes":    {"list_notes", map[string]any{"job_id": backend, "candidate_id": ada, "page": 1}, candidatePath(backend, ada) + "/notes?page=1"},
	}
}

// TestMCP_ReadsAreTheAPI: each read tool's structured result is the API's
// body for the same request.
func TestMCP_ReadsAreTheAPI(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		cs := e.mcpSession(t, "olivia")
		for name, c := range mcpReads(e) {
			t.Run(name, func(t *testing.T) {
				api := e.do(t, "GET", c.path, e.token("olivia"), nil)
				require.Equal(t, http.StatusOK, api.Code, "%s", api.Body)
				assert.Equal(t, api.JSON, content(t, callTool(t, cs, c.tool, c.args)))
			})
		}
	}, withBaseURL)
}

// mcpWrite is the MCP call of one of keyedWrites.
func mcpWrite(e *env, name string) (string, map[string]any) {
	w := keyedWrites(e)[name]
	args := map[string]any{}
	for k, v := range w.body.(map[string]any) {
		args[k] = v
	}
	backend, ada := e.Job("backend"), e.Res.Candidates["ada"]
	tools := map[string]string{"create job": "create_job", "update job": "update_job",
		"add candidate": "add_candidate", "update candidate": "update_candidate",
		"move candidate": "move_candidate", "add note": "add_note", "rate candidate": "rate_candidate"}
	if name != "create job" {
		args["job_id"] = backend
	}
	if name != "create job" && name != "update job" && name != "add candidate" {
		args["candidate_id"] = ada
	}
	return tools[name], args
}

// TestMCP_WritesAreTheAPI: each write tool's structured result is the body
// the API answers for the same request with the same idempotency key (a
// replay of the call's stored result), and what the API then reads back.
func TestMCP_WritesAreTheAPI(t *testing.T) {
	readBack := map[string]func(e *env, id int64) string{
		"create job":     func(_ *env, id int64) string { return jobPath(id) },
		"update job":     func(e *env, _ int64) string { return jobPath(e.Job("backend")) },
		"move candidate": func(e *env, _ int64) string { return candidatePath(e.Job("backend"), e.Res.Candidates["ada"]) },
		"add candidate":  func(e *env, id int64) string { return candidatePath(e.Job("backend"), id) },
		"update candidate": func(e *env, _ int64) string {
			return candidatePath(e.Job("backend"), e.Res.Candidates["ada"])
		},
	}
	for _, name := range writeNames {
		each(t, name, func(t *testing.T, e *env) {
			tool, args := mcpWrite(e, name)
			args["idempotency_key"] = "mcp-first"
			got := content(t, callTool(t, e.mcpSession(t, "olivia"), tool, args))

			w := keyedWrites(e)[name]
			api := e.do(t, w.method, w.path, e.token("olivia"), w.body, IdempotencyKeyHeader, "mcp-first")
			require.Less(t, api.Code, 300, "%s", api.Body)
			assert.Equal(t, "true", api.Header.Get(ReplayHeader), "the API replays the MCP call's key")
			assert.Equal(t, api.JSON, got)
			if path, ok := readBack[name]; ok {
				id := num(t, got.(map[string]any)["data"].(map[string]any)["id"])
				assert.Equal(t, api.JSON, e.do(t, "GET", path(e, id), e.token("olivia"), nil).JSON)
			}
		}, withBaseURL)
	}
}

// mcpFailure is a call that fails and the API request it stands for.
type mcpFailure struct {
	token, tool string
	args        map[string]any
	method      string
	path        string
	body        any
}

func mcpFailures(e *env) map[string]mcpFailure {
	backend, ada, ops := e.Job("backend"), e.Res.Candidates["ada"], e.Job("ops")
	notes := candidatePath(backend, ada) + "/notes"
	return map[string]mcpFailure{
		"not_found": {"olivia", "get_job", map[string]any{"job_id": ops}, "GET", jobPath(ops), nil},
		"insufficient_scope": {"olivia_jobs_read", "list_candidates", map[string]any{"job_id": backend},
			"GET", jobPath(backend) + "/candidates", nil},
		"scope before lookup": {"olivia_jobs_read", "add_note", map[string]any{"job_id": ops, "candidate_id": 1, "content": 5},
			"POST", candidatePath(ops, 1) + "/notes", map[string]any{"content": 5}},
		"bad status":      {"olivia", "list_jobs", map[string]any{"status": "OPEN"}, "GET", "/api/v1/jobs?status=OPEN", nil},
		"empty status":    {"olivia", "list_jobs", map[string]any{"status": ""}, "GET", "/api/v1/jobs?status=", nil},
		"page 0":          {"olivia", "list_jobs", map[string]any{"page": 0}, "GET", "/api/v1/jobs?page=0", nil},
		"page not number": {"olivia", "list_jobs", map[string]any{"page": "two"}, "GET", "/api/v1/jobs?page=two", nil},
		"stage of another job": {"olivia", "list_candidates", map[string]any{"job_id": backend, "stage": e.Res.Stages["ops"]["Applied"]},
			"GET", jobPath(backend) + "/candidates?stage=" + itoa(e.Res.Stages["ops"]["Applied"]), nil},
		"lookup before body": {"olivia", "add_note", map[string]any{"job_id": ops, "candidate_id": 1, "content": ""},
			"POST", candidatePath(ops, 1) + "/notes", map[string]any{"content": ""}},
		"blank note":   {"olivia", "add_note", map[string]any{"job_id": backend, "candidate_id": ada, "content": " "}, "POST", notes, map[string]any{"content": " "}},
		"wrong type":   {"olivia", "add_note", map[string]any{"job_id": backend, "candidate_id": ada, "content": 5}, "POST", notes, map[string]any{"content": 5}},
		"unknown body": {"olivia", "create_job", map[string]any{"title": "T", "status": "open"}, "POST", "/api/v1/jobs", map[string]any{"title": "T", "status": "open"}},
		"no title":     {"olivia", "create_job", map[string]any{"description": "x"}, "POST", "/api/v1/jobs", map[string]any{"description": "x"}},
		"bad rating": {"olivia", "rate_candidate", map[string]any{"job_id": backend, "candidate_id": ada, "rating": "great"},
			"POST", candidatePath(backend, ada) + "/rating", map[string]any{"rating": "great"}},
		"empty patch": {"olivia", "update_job", map[string]any{"job_id": backend}, "PATCH", jobPath(backend), map[string]any{}},
		"taken email": {"olivia", "add_candidate", map[string]any{"job_id": backend, "name": "Ada", "email": "ADA@example.test"},
			"POST", jobPath(backend) + "/candidates", map[string]any{"name": "Ada", "email": "ADA@example.test"}},
		"closed job": {"olivia", "add_candidate", map[string]any{"job_id": e.Job("archive"), "name": "Ada", "email": "ada@example.test"},
			"POST", jobPath(e.Job("archive")) + "/candidates", map[string]any{"name": "Ada", "email": "ada@example.test"}},
		"bad candidate status": {"olivia", "update_candidate", map[string]any{"job_id": backend, "candidate_id": ada, "status": "gone"},
			"PATCH", candidatePath(backend, ada), map[string]any{"status": "gone"}},
		"empty candidate patch": {"olivia", "update_candidate", map[string]any{"job_id": backend, "candidate_id": ada},
			"PATCH", candidatePath(backend, ada), map[string]any{}},
		"bad status filter": {"olivia", "list_candidates", map[string]any{"job_id": backend, "status": "ACTIVE"},
			"GET", jobPath(backend) + "/candidates?status=ACTIVE", nil},
	}
}

// TestMCP_Errors: a failing call is a tool error whose structured content
// is the API's error body for the same request, code and details alike.
func TestMCP_Errors(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		sessions := map[string]*mcp.ClientSession{}
		for _, c := range mcpFailures(e) {
			if sessions[c.token] == nil {
				sessions[c.token] = e.mcpSession(t, c.token)
			}
		}
		for name, c := range mcpFailures(e) {
			t.Run(name, func(t *testing.T) {
				api := e.do(t, c.method, c.path, e.token(c.token), c.body)
				require.GreaterOrEqual(t, api.Code, 400, "%s", api.Body)
				got, _ := toolError(t, callTool(t, sessions[c.token], c.tool, c.args))
				assert.Equal(t, api.JSON, got)
			})
		}
		assert.Empty(t, e.Activity(t), "no failure wrote anything")
	})
}

// TestMCP_Idempotency: the idempotency_key argument is the API's
// Idempotency-Key: one key space, either way round.
func TestMCP_Idempotency(t *testing.T) {
	for _, name := range writeNames {
		each(t, name+": the API's key replays through MCP", func(t *testing.T, e *env) {
			w := keyedWrites(e)[name]
			first := e.do(t, w.method, w.path, e.token("olivia"), w.body, IdempotencyKeyHeader, "api-first")
			require.Less(t, first.Code, 300, "%s", first.Body)
			entries := len(e.Activity(t))

			tool, args := mcpWrite(e, name)
			args["idempotency_key"] = "api-first"
			res := callTool(t, e.mcpSession(t, "olivia"), tool, args)
			assert.Equal(t, first.JSON, content(t, res))
			assert.Equal(t, true, res.Meta["idempotent_replay"])
			assert.Len(t, e.Activity(t), entries, "nothing done again")
		}, withBaseURL)
	}
	each(t, "a key for another request", func(t *testing.T, e *env) {
		w := keyedWrites(e)["add note"]
		require.Equal(t, http.StatusCreated, e.do(t, w.method, w.path, e.token("olivia"), w.body, IdempotencyKeyHeader, "k").Code)
		tool, args := mcpWrite(e, "add note")
		args["content"], args["idempotency_key"] = "Something else.", "k"
		_, code := toolError(t, callTool(t, e.mcpSession(t, "olivia"), tool, args))
		assert.Equal(t, pipeline.EValidation, code)
	})
	each(t, "a bad key is named as the argument", func(t *testing.T, e *env) {
		tool, args := mcpWrite(e, "add note")
		args["idempotency_key"] = ""
		body, _ := toolError(t, callTool(t, e.mcpSession(t, "olivia"), tool, args))
		details := body.(map[string]any)["error"].(map[string]any)["details"].(map[string]any)
		assert.Equal(t, []string{pipeline.IdempotencyField}, keys(details))
	})
	each(t, "no key acts each time", func(t *testing.T, e *env) {
		cs := e.mcpSession(t, "olivia")
		tool, args := mcpWrite(e, "add note")
		first := content(t, callTool(t, cs, tool, args))
		assert.NotEqual(t, first, content(t, callTool(t, cs, tool, args)))
		assert.Len(t, e.Activity(t), 2)
	})
}

// TestMCP_RateLimit: the MCP face spends the API's budget, one request per
// tools/call, and a call over it is a tool error with the seconds to wait.
func TestMCP_RateLimit(t *testing.T) {
	eachLimiter(t, "a call counts once, against the API's budget", func(t *testing.T, e *env) {
		cs := e.mcpSession(t, "olivia")
		_, before, _ := rate(t, e.do(t, "GET", "/api/v1/me", e.token("olivia"), nil))
		content(t, callTool(t, cs, "list_jobs", nil))
		_, after, _ := rate(t, e.do(t, "GET", "/api/v1/me", e.token("olivia_jobs_read"), nil))
		assert.Equal(t, before-2, after, "the call and this request")
	})
	eachLimiter(t, "over the budget spent through the API", func(t *testing.T, e *env) {
		cs := e.mcpSession(t, "olivia") // connecting is a request
		for range budget - 1 {
			require.Equal(t, http.StatusOK, e.do(t, "GET", "/api/v1/me", e.token("olivia"), nil).Code)
		}
		e.clock.Advance(20*time.Second + 300*time.Millisecond)
		res := callTool(t, cs, "add_note", map[string]any{"job_id": e.Job("backend"),
			"candidate_id": e.Res.Candidates["ada"], "content": "Throttled.", "idempotency_key": "k-429"})
		require.True(t, res.IsError)
		assert.JSONEq(t, `{"error":{"code":"rate_limited","message":"Too Many Attempts.","details":{"retry_after":40}}}`,
			res.Content[0].(*mcp.TextContent).Text)
		assert.Empty(t, e.Activity(t), "a refused call does nothing")

		_, err := cs.ListTools(context.Background(), nil)
		var rpcErr *jsonrpc.Error
		require.ErrorAs(t, err, &rpcErr)
		assert.EqualValues(t, CodeMCPRateLimited, rpcErr.Code)

		e.clock.Advance(40 * time.Second)
		res = callTool(t, cs, "add_note", map[string]any{"job_id": e.Job("backend"),
			"candidate_id": e.Res.Candidates["ada"], "content": "Throttled.", "idempotency_key": "k-429"})
		content(t, res)
		assert.Nil(t, res.Meta["idempotent_replay"], "the refused call stored nothing under its key")
	})
	eachLimiter(t, "the API is refused after MCP spent the budget", func(t *testing.T, e *env) {
		cs := e.mcpSession(t, "olivia")
		for {
			if res := callTool(t, cs, "get_me", nil); res.IsError {
				break
			}
		}
		r := e.do(t, "GET", "/api/v1/me", e.token("olivia"), nil)
		require.Equal(t, http.StatusTooManyRequests, r.Code)
	})
}

// TestMCP_Activity: a write through MCP is an activity entry with the
// token and the client's address, like any other.
func TestMCP_Activity(t *testing.T) {
	each(t, "note and move", func(t *testing.T, e *env) {
		cs := e.mcpSession(t, "mia")
		backend, ada := e.Job("backend"), e.Res.Candidates["ada"]
		content(t, callTool(t, cs, "add_note", map[string]any{"job_id": backend, "candidate_id": ada, "content": "Through MCP."}))
		content(t, callTool(t, cs, "move_candidate", map[string]any{"job_id": backend, "candidate_id": ada,
			"stage": e.Res.Stages["backend"]["Screening"]}))
		log := e.Activity(t)
		require.Len(t, log, 2)
		for i, action := range []string{pipeline.ActionCandidateNoteAdded, pipeline.ActionCandidateStageChanged} {
			assert.Equal(t, action, log[i].Action)
			assert.Equal(t, e.tokenID(t, "mia"), log[i].TokenID)
			assert.Equal(t, e.User("mia"), log[i].UserID)
			assert.Equal(t, "127.0.0.1", log[i].IP)
			assert.Equal(t, ada, log[i].SubjectID)
		}
		assert.JSONEq(t, `{"stage":{"before":"Applied","after":"Screening"}}`, string(log[1].Changes))
	})
	each(t, "a move to the same stage writes nothing", func(t *testing.T, e *env) {
		res := callTool(t, e.mcpSession(t, "olivia"), "move_candidate", map[string]any{"job_id": e.Job("backend"),
			"candidate_id": e.Res.Candidates["ada"], "stage": e.Res.Stages["backend"]["Applied"]})
		assert.Equal(t, "Applied", content(t, res).(map[string]any)["data"].(map[string]any)["stage"])
		assert.Empty(t, e.Activity(t))
	})
}

// TestMCP_Feed: list_activity answers what GET /api/v1/activity answers
// for the same parameters, its cursor reads on through either face, and
// arguments the API would refuse are refused the same way.
func TestMCP_Feed(t *testing.T) {
	each(t, "pages", func(t *testing.T, e *env) {
		for _, stage := range []string{"Screening", "Interview", "Offer"} {
			moveAda(t, e, "olivia", stage)
		}
		awaitFeed(t, e.h, e.token("olivia"), 3)
		cs := e.mcpSession(t, "olivia")
		first := content(t, callTool(t, cs, "list_activity", map[string]any{"limit": 2,
			"action": []string{"candidate.stage_changed", "job.created"}}))
		api := e.do(t, "GET", "/api/v1/activity?limit=2&action=candidate.stage_changed&action=job.created", e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, api.Code, "%s", api.Body)
		assert.Equal(t, api.JSON, first)
		cursor := first.(map[string]any)["meta"].(map[string]any)["next_cursor"].(string)
		rest := content(t, callTool(t, cs, "list_activity", map[string]any{"after": cursor}))
		assert.Len(t, rest.(map[string]any)["data"], 1)
		api = e.do(t, "GET", "/api/v1/activity?after="+url.QueryEscape(cursor), e.token("olivia"), nil)
		assert.Equal(t, api.JSON, rest)
	}, withBaseURL)
	eachEnv(t, func(t *testing.T, e *env) {
		cs := e.mcpSession(t, "olivia")
		for _, tc := range []struct {
			args  map[string]any
			query string
		}{
			{map[string]any{"limit": 0}, "limit=0"},
			{map[string]any{"limit": 101}, "limit=101"},
			{map[string]any{"limit": "x"}, "limit=x"},
			{map[string]any{"since": "yesterday"}, "since=yesterday"},
			{map[string]any{"after": ""}, "after="},
			{map[string]any{"after": "bm9wZQ"}, "after=bm9wZQ"},
			{map[string]any{"action": []string{"job.deleted"}}, "action=job.deleted"},
		} {
			t.Run(tc.query, func(t *testing.T) {
				body, code := toolError(t, callTool(t, cs, "list_activity", tc.args))
				assert.Equal(t, pipeline.EValidation, code)
				api := e.do(t, "GET", "/api/v1/activity?"+tc.query, e.token("olivia"), nil)
				assert.Equal(t, api.JSON, body)
			})
		}
	})
}

// TestMCP_Text: a tool's text argument that is not valid text, as sent on
// the wire, is refused naming it, as the API refuses it, and nothing is
// written.
func TestMCP_Text(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		for name, bad := range badJSONStrings {
			t.Run(name, func(t *testing.T) {
				args := fmt.Sprintf(`{"job_id":%d,"candidate_id":%d,"content":%s}`, e.Job("backend"), e.Res.Candidates["ada"], bad)
				status, _, body := rawMCP(t, e, "POST",
					`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add_note","arguments":`+args+`}}`)
				require.Equal(t, http.StatusOK, status, "%v", body)
				res := body["result"].(map[string]any)
				assert.Equal(t, true, res["isError"])
				errObj := res["structuredContent"].(map[string]any)["error"].(map[string]any)
				assert.Equal(t, pipeline.EValidation, errObj["code"])
				assert.Contains(t, errObj["details"], "content")
				assert.Empty(t, e.Activity(t), "nothing was written")
			})
		}
	})
}
