package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipelinehttp"
)

// bearer sends a token with every request of the MCP transport.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestServe_MCP: pipelined serve serves the MCP face beside the API, to
// the SDK's client, with the token's tools only; a write through it is the
// API's and is logged with the token, and the token stays out of the log.
func TestServe_MCP(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		m.Seed("testdata/seed.json")
		tok := m.CreateToken("olivia@acme.test", "mcp", "jobs:read,jobs:write")
		srv := m.Serve()

		ctx := context.Background()
		client := mcp.NewClient(&mcp.Implementation{Name: "pipelined-test", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
			Endpoint: srv.URL + pipelinehttp.MCPPath, HTTPClient: &http.Client{Transport: bearer(tok.Token)},
		}, nil)
		require.NoError(t, err)
		defer cs.Close()

		var names []string
		for tool, err := range cs.Tools(ctx, nil) {
			require.NoError(t, err)
			names = append(names, tool.Name)
		}
		// Reading and withdrawing proposals need no scope: every token
		// reads and withdraws its own.
		assert.ElementsMatch(t, []string{"get_me", "list_jobs", "get_job", "create_job", "update_job", "list_stages",
			"list_proposals", "get_proposal", "withdraw_proposal"}, names)

		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_job",
			Arguments: map[string]any{"title": "Hired by an agent", "idempotency_key": "agent-1"}})
		require.NoError(t, err)
		require.False(t, res.IsError, "%v", res.StructuredContent)
		created, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		var job struct{ Data struct{ ID int64 } }
		require.NoError(t, json.Unmarshal(created, &job))
		status, body := srv.Do("GET", "/api/v1/jobs/"+strconv.FormatInt(job.Data.ID, 10), tok.Token, "")
		require.Equal(t, http.StatusOK, status)
		assert.JSONEq(t, body, string(created), "the result is the API's body")

		lines := writeEntries(t, m)
		require.Len(t, lines, 1)
		assert.Equal(t, "job.created", lines[0]["action"])
		assert.EqualValues(t, tok.ID, lines[0]["token_id"])
		assert.NotContains(t, srv.stderr.String(), tok.Token)
	})
}
