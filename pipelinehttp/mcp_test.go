package pipelinehttp

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// TestMCP_ToolsList: tools/list shows a token the tools of the table whose
// scope it carries, and no other.
func TestMCP_ToolsList(t *testing.T) {
	// toolsFor are the table's tools that a token carrying scopes may call.
	toolsFor := func(scopes ...pipeline.Scope) []string {
		var out []string
		for _, o := range operations {
			if o.tool != nil && (o.op.Scope() == "" || slices.Contains(scopes, o.op.Scope())) {
				out = append(out, string(o.op))
			}
		}
		return out
	}
	cases := map[string][]string{
		"olivia":                 toolsFor(pipeline.AllScopes...),
		"olivia_jobs_read":       toolsFor(pipeline.ScopeJobsRead),
		"olivia_candidates_read": toolsFor(pipeline.ScopeCandidatesRead),
		"olivia_messages":        toolsFor(pipeline.ScopeMessagesSend),
	}
	// One list spelled out, so that the table's scopes are checked too.
	// Reading proposals needs no scope: a token reads its own, and
	// withdraws its own.
	require.ElementsMatch(t, []string{"get_me", "list_jobs", "get_job", "list_stages", "list_proposals", "get_proposal", "withdraw_proposal"}, cases["olivia_jobs_read"])
	eachEnv(t, func(t *testing.T, e *env) {
		for key, want := range cases {
			t.Run(key, func(t *testing.T) {
				assert.ElementsMatch(t, want, toolNames(t, e.mcpSession(t, key)))
			})
		}
	})
}

func TestMCP_ToolAnnotations(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		tools, err := e.mcpSession(t, "olivia").ListTools(context.Background(), nil)
		require.NoError(t, err)
		require.Len(t, tools.Tools, len(mcpOperations), "every operation is a tool")
		for _, tool := range tools.Tools {
			op := pipeline.Op(tool.Name)
			a := tool.Annotations
			require.NotNil(t, a, tool.Name)
			assert.Equal(t, !op.Writes(), a.ReadOnlyHint, "%s readOnlyHint", tool.Name)
			if op.Writes() {
				// An erasure cannot be undone, nor a tag's deletion, which
				// takes it off its candidates; every other write can be.
				require.NotNil(t, a.DestructiveHint, tool.Name)
				assert.Equal(t, op == pipeline.OpErasePerson || op == pipeline.OpDeleteTag, *a.DestructiveHint, "%s destructiveHint", tool.Name)
			}
			wantIdempotent := op == pipeline.OpMoveCandidate || op == pipeline.OpRateCandidate || op == pipeline.OpUpdateCandidate ||
				op == pipeline.OpCancelMessage || op == pipeline.OpRescheduleInterview || op == pipeline.OpCancelInterview ||
				op == pipeline.OpRenameTag || op == pipeline.OpTagCandidate || op == pipeline.OpUntagCandidate
			assert.Equal(t, wantIdempotent, a.IdempotentHint, "%s idempotentHint", tool.Name)
			assert.NotEmpty(t, tool.Description, tool.Name)
			// The schemas as a client reads them: objects, the input's
			// properties the tool's arguments.
			in, _ := tool.InputSchema.(map[string]any)
			assert.Equal(t, "object", in["type"], "%s input schema", tool.Name)
			props, _ := in["properties"].(map[string]any)
			assert.ElementsMatch(t, toolArguments(pipeline.Op(tool.Name)), slices.Collect(maps.Keys(props)), "%s arguments", tool.Name)
			out, _ := tool.OutputSchema.(map[string]any)
			assert.Equal(t, "object", out["type"], "%s output schema", tool.Name)
		}
	})
}

func TestMCP_Unauthenticated(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		srv := e.serve(t)
		for name, token := range map[string]string{"no token": "", "revoked": e.token("olivia_revoked"), "garbage": "plt_nope"} {
			t.Run(name, func(t *testing.T) {
				req, err := http.NewRequest("POST", srv.URL+MCPPath, strings.NewReader(`{"jsonrpc":`))
				require.NoError(t, err)
				resp, err := bearer{token}.RoundTrip(req)
				require.NoError(t, err)
				defer resp.Body.Close()
				body, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
				assert.Equal(t, "Bearer", resp.Header.Get("WWW-Authenticate"))
				assert.JSONEq(t, `{"error":{"code":"unauthenticated","message":"Unauthenticated.","details":null}}`, string(body))

				_, err = mcpClient(t, srv.URL+MCPPath, token)
				assert.Error(t, err, "the SDK's client cannot connect")
			})
		}
	})
}

// rawMCP posts body to /mcp with olivia's token and returns the status and
// the decoded body.
func rawMCP(t *testing.T, e *env, method, body string) (int, http.Header, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, e.serve(t).URL+MCPPath, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := bearer{e.token("olivia")}.RoundTrip(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var m map[string]any
	if len(raw) > 0 {
		require.NoError(t, json.Unmarshal(raw, &m), "body %s", raw)
	}
	return resp.StatusCode, resp.Header, m
}

func TestMCP_ProtocolErrors(t *testing.T) {
	each(t, "unknown tool", func(t *testing.T, e *env) {
		_, err := e.mcpSession(t, "olivia").CallTool(context.Background(), &mcp.CallToolParams{Name: "drop_tables"})
		var rpcErr *jsonrpc.Error
		require.ErrorAs(t, err, &rpcErr)
		assert.EqualValues(t, jsonrpc.CodeInvalidParams, rpcErr.Code)
	})
	each(t, "not JSON", func(t *testing.T, e *env) {
		status, _, body := rawMCP(t, e, "POST", `{"jsonrpc": "2.0", "id": 1,`)
		assert.Equal(t, http.StatusBadRequest, status)
		assert.EqualValues(t, jsonrpc.CodeParseError, body["error"].(map[string]any)["code"])
	})
	each(t, "a batch", func(t *testing.T, e *env) {
		status, _, body := rawMCP(t, e, "POST", `[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]`)
		assert.Equal(t, http.StatusBadRequest, status)
		assert.EqualValues(t, jsonrpc.CodeInvalidRequest, body["error"].(map[string]any)["code"])
	})
	each(t, "GET and DELETE are 405", func(t *testing.T, e *env) {
		for _, method := range []string{"GET", "DELETE"} {
			status, hdr, body := rawMCP(t, e, method, "")
			assert.Equal(t, http.StatusMethodNotAllowed, status, method)
			assert.Equal(t, "POST", hdr.Get("Allow"), method)
			assert.Equal(t, CodeMethodNotAllowed, body["error"].(map[string]any)["code"], method)
		}
	})
	each(t, "over 1 MiB is 413", func(t *testing.T, e *env) {
		status, _, body := rawMCP(t, e, "POST", `{"pad":"`+strings.Repeat("x", MaxBodyBytes)+`"}`)
		assert.Equal(t, http.StatusRequestEntityTooLarge, status)
		assert.Equal(t, CodePayloadTooLarge, body["error"].(map[string]any)["code"])
	})
}

func TestMCP_Mount(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		app := gin.New()
		Mount(app.Group(testMount), e.Svc, Config{})
		e.h = app
		srv := e.serve(t)
		cs, err := mcpClient(t, srv.URL+testMount+MCPPath, e.token("olivia"))
		require.NoError(t, err)
		links := content(t, callTool(t, cs, "list_jobs", nil)).(map[string]any)["links"].(map[string]any)
		assert.Equal(t, srv.URL+testMount+"/api/v1/jobs?page=1", links["first"], "links from the request's host, below the mount")
		_, err = mcpClient(t, srv.URL+MCPPath, e.token("olivia"))
		assert.Error(t, err, "nothing at the application's own /mcp")
	})
}

// TestMCP_Arguments: what only MCP arguments can hold is answered in the
// API's terms.
func TestMCP_Arguments(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		cs := e.mcpSession(t, "olivia")
		cases := []struct {
			name, tool string
			args       any
			code       string
			fields     []string
		}{
			{"a misspelt filter", "list_jobs", map[string]any{"stage_id": 1}, pipeline.EValidation, []string{"stage_id"}},
			{"an id the tool does not take", "get_me", map[string]any{"job_id": 1}, pipeline.EValidation, []string{"job_id"}},
			{"no job_id", "get_job", map[string]any{}, pipeline.EValidation, []string{"job_id"}},
			{"a negative id", "list_stages", map[string]any{"job_id": -1}, pipeline.EValidation, []string{"job_id"}},
			{"an id of another type", "get_job", map[string]any{"job_id": "1"}, pipeline.EValidation, []string{"job_id"}},
			{"a null id", "get_job", map[string]any{"job_id": nil}, pipeline.EValidation, []string{"job_id"}},
			{"a candidate id of another type", "get_candidate", map[string]any{"job_id": e.Job("backend"), "candidate_id": "x"},
				pipeline.EValidation, []string{"candidate_id"}},
			{"an id of another type on a write", "move_candidate", map[string]any{"job_id": e.Job("backend"),
				"candidate_id": "1", "stage": 1}, pipeline.EValidation, []string{"candidate_id"}},
			{"null", "update_job", map[string]any{"job_id": e.Job("backend"), "title": nil}, pipeline.EValidation, []string{"title"}},
			{"a key that is no string", "add_note", map[string]any{"job_id": e.Job("backend"),
				"candidate_id": e.Res.Candidates["ada"], "content": "x", "idempotency_key": 7}, pipeline.EValidation, []string{"idempotency_key"}},
			{"not an object", "list_jobs", []int{1}, pipeline.EValidation, []string{"arguments"}},
			{"not an object, for a tool that takes an id", "get_job", []int{}, pipeline.EValidation, []string{"arguments"}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
				require.NoError(t, err)
				body, code := toolError(t, res)
				assert.Equal(t, c.code, code)
				if c.fields != nil {
					details := body.(map[string]any)["error"].(map[string]any)["details"].(map[string]any)
					assert.Equal(t, c.fields, keys(details))
				}
			})
		}
	})
}

// TestMCP_WholeNumbers: an integer argument written with a fraction or an
// exponent (3.0, 3e0), which the tools' schemas accept as JSON Schema's
// integer, is that integer; a fraction is not, and is refused.
func TestMCP_WholeNumbers(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		cs := e.mcpSession(t, "olivia")
		call := func(tool, args string) *mcp.CallToolResult {
			t.Helper()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
			require.NoError(t, err)
			return res
		}
		job := itoa(e.Job("backend"))
		api := e.do(t, "GET", "/api/v1/jobs/"+job, e.token("olivia"), nil)
		assert.Equal(t, api.JSON, content(t, call("get_job", `{"job_id": `+job+`.0}`)))
		api = e.do(t, "GET", "/api/v1/jobs?page=1", e.token("olivia"), nil)
		jobs := content(t, call("list_jobs", `{"page": 1e0}`)).(map[string]any)
		assert.Equal(t, api.Object(t)["data"], jobs["data"])
		feed := content(t, call("list_activity", `{"limit": 2.00}`))
		assert.NotNil(t, feed)

		_, code := toolError(t, call("get_job", `{"job_id": `+job+`.5}`))
		assert.Equal(t, pipeline.EValidation, code)
		_, code = toolError(t, call("list_jobs", `{"page": 1.5}`))
		assert.Equal(t, pipeline.EValidation, code)
	})
}

// TestMCP_ProtocolVersion: the SDK's client and the face agree on the
// newest protocol version the SDK supports.
func TestMCP_ProtocolVersion(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		res := e.mcpSession(t, "olivia").InitializeResult()
		require.NotNil(t, res)
		assert.Equal(t, mcp.SupportedProtocolVersions()[0], res.ProtocolVersion)
		assert.Equal(t, "pipeline", res.ServerInfo.Name)
	})
}

// toolArguments are the argument names of op's tool: its parameters, the
// path's ids as job_id and the like, and a write's idempotency_key.
func toolArguments(op pipeline.Op) []string {
	var out []string
	for _, o := range operations {
		if o.op != op {
			continue
		}
		for _, p := range o.params {
			out = append(out, p.arg)
		}
	}
	if op.Writes() {
		out = append(out, argKey)
	}
	return out
}
