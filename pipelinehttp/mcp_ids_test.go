package pipelinehttp

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// TestMCP_MalformedIDs: a tool's id argument is declared a positive
// integer, so one that is not (a fraction, zero, a negative number, a
// string) or is missing is validation_failed naming it, and arguments that
// are no object are validation_failed naming arguments, through every
// tool that takes an id; never not_found, as though a record had been
// looked for. Authentication, the rate limit and the scope come first. A
// path id that is no positive integer stays a 404 on the API.
func TestMCP_MalformedIDs(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		cs := e.mcpSession(t, "olivia")
		call := func(t *testing.T, cs *mcp.ClientSession, tool string, args json.RawMessage) (map[string]any, string) {
			t.Helper()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
			require.NoError(t, err)
			body, code := toolError(t, res)
			details, _ := body.(map[string]any)["error"].(map[string]any)["details"].(map[string]any)
			return details, code
		}
		tools := 0
		for _, o := range operations {
			var ids []string
			for _, p := range o.params {
				if p.place == inPath {
					ids = append(ids, p.arg)
				}
			}
			if o.tool == nil || len(ids) == 0 {
				continue
			}
			tools++
			tool := string(o.op)
			for _, bad := range ids {
				for _, value := range []string{"1.5", "-1", "0", `"1"`, "null", "1e30"} {
					args := map[string]json.RawMessage{}
					for _, id := range ids {
						args[id] = json.RawMessage("1")
					}
					args[bad] = json.RawMessage(value)
					raw, err := json.Marshal(args)
					require.NoError(t, err)
					details, code := call(t, cs, tool, raw)
					assert.Equal(t, pipeline.EValidation, code, "%s %s", tool, raw)
					assert.Equal(t, []string{bad}, keys(details), "%s %s", tool, raw)
				}
				args := map[string]int{}
				for _, id := range ids {
					if id != bad {
						args[id] = 1
					}
				}
				raw, err := json.Marshal(args)
				require.NoError(t, err)
				details, code := call(t, cs, tool, raw)
				assert.Equal(t, pipeline.EValidation, code, "%s without %s", tool, bad)
				assert.Equal(t, []string{bad}, keys(details), "%s without %s", tool, bad)
			}
			for _, args := range []string{`[]`, `"x"`, `3`} {
				details, code := call(t, cs, tool, json.RawMessage(args))
				assert.Equal(t, pipeline.EValidation, code, "%s %s", tool, args)
				assert.Equal(t, []string{"arguments"}, keys(details), "%s %s", tool, args)
			}
		}
		assert.Greater(t, tools, 15, "the tools that take an id")

		// The scope comes before the arguments.
		_, code := call(t, e.mcpSession(t, "olivia_jobs_read"), "add_note", json.RawMessage(`{"job_id": 1.5, "candidate_id": 1, "content": "x"}`))
		assert.Equal(t, pipeline.EInsufficientScope, code)
		_, code = call(t, e.mcpSession(t, "olivia_jobs_read"), "add_note", json.RawMessage(`[]`))
		assert.Equal(t, pipeline.EInsufficientScope, code)
		// A well-formed id of no reachable record is still not found.
		_, code = call(t, cs, "get_job", json.RawMessage(`{"job_id": `+itoa(e.Job("ops"))+`}`))
		assert.Equal(t, pipeline.ENotFound, code)
		assert.Empty(t, e.Activity(t), "no call wrote anything")

		for _, id := range []string{"0", "-1", "1.5"} {
			requireError(t, e.do(t, "GET", "/api/v1/jobs/"+id, e.token("olivia"), nil), http.StatusNotFound, pipeline.ENotFound)
		}
	})
}
