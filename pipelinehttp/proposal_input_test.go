package pipelinehttp_test

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestProposal_InputAsDecoded: a number spelled 5e0 or 1.0 is the integer
// it stands for to the REST reader, and a proposal keeps it so: the API,
// the MCP tool and the approvals page show it as 5 and 1, and approving
// runs it as 5 and 1.
func TestProposal_InputAsDecoded(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f, base := servePages(t, db, pipelinehttp.Config{}, approvalOptions(t)...)
		held := agent(t, f, "mia", "agent", pipeline.OpMoveCandidate, pipeline.OpScheduleInterview)
		ada := candidatePath(f, "backend", "ada")
		hired := f.Res.Stages["backend"]["Hired"]
		move := propose(t, base, held, "POST", ada+"/stage", json.RawMessage(fmt.Sprintf(`{"stage": %de0}`, hired)))
		start := time.Now().UTC().Add(72 * time.Hour).Truncate(24 * time.Hour).Add(10 * time.Hour)
		schedule := propose(t, base, held, "POST", ada+"/interviews", json.RawMessage(fmt.Sprintf(
			`{"start": %q, "end": %q, "interviewer_ids": [%d.0, %de0]}`,
			start.Format(time.RFC3339), start.Add(time.Hour).Format(time.RFC3339), f.User("olivia"), f.User("adam"))))

		// The API and the MCP tool.
		owner := f.Res.Tokens["olivia"]
		status, p := apiCall(t, base, owner, "GET", "/proposals/"+strconv.FormatInt(move, 10), nil)
		require.Equal(t, http.StatusOK, status)
		assert.Equal(t, map[string]any{"stage": float64(hired)}, p["input"])
		status, p = apiCall(t, base, owner, "GET", "/proposals/"+strconv.FormatInt(schedule, 10), nil)
		require.Equal(t, http.StatusOK, status)
		assert.Equal(t, []any{float64(f.User("olivia")), float64(f.User("adam"))}, p["input"].(map[string]any)["interviewer_ids"])
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(),
			&mcp.StreamableClientTransport{Endpoint: base + pipelinehttp.MCPPath, HTTPClient: &http.Client{Transport: withToken(owner)}}, nil)
		require.NoError(t, err)
		defer cs.Close()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_proposal", Arguments: map[string]any{"proposal_id": move}})
		require.NoError(t, err)
		require.False(t, res.IsError)
		tool := res.StructuredContent.(map[string]any)["data"].(map[string]any)
		assert.Equal(t, map[string]any{"stage": float64(hired)}, tool["input"])

		// The page.
		olivia := signIn(t, f, base, "olivia@acme.test")
		list := olivia.get("/app/approvals")
		body := html.UnescapeString(list.body)
		assert.Contains(t, body, "Move Ada Lovelace from Applied to Hired")
		assert.NotContains(t, body, "no longer has")
		assert.Contains(t, body, "Olivia Owner <olivia@acme.test> and Adam Admin <adam@acme.test>")
		assert.NotContains(t, body, "no member of the team")

		// The run.
		csrf := list.field(t, "csrf")
		for _, id := range []int64{move, schedule} {
			done := olivia.post("/app/approvals/"+strconv.FormatInt(id, 10), url.Values{"decision": {"approve"}, "csrf": {csrf}})
			require.Less(t, done.StatusCode, 400, done.body)
			assert.Equal(t, pipeline.ProposalApplied, proposalStatus(t, f, id))
		}
		assert.Equal(t, "Hired", candidateStage(t, f, "backend", "ada"))
		ivs, err := f.Svc.ListInterviews(f.As(t, "olivia"), f.Job("backend"), f.Res.Candidates["ada"], pipeline.InterviewFilter{})
		require.NoError(t, err)
		require.Len(t, ivs.Items, 1)
		assert.Equal(t, []int64{f.User("olivia"), f.User("adam")}, []int64{ivs.Items[0].Interviewers[0].ID, ivs.Items[0].Interviewers[1].ID})
	})
}

// withToken is a transport that sends token, as an MCP client configured
// with a header does.
type withToken string

func (tok withToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(tok))
	return http.DefaultTransport.RoundTrip(r)
}
