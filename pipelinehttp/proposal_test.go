package pipelinehttp

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// agentToken issues mia a token for candidates that may only propose ops.
func agentToken(t *testing.T, e *env, ops ...pipeline.Op) string {
	t.Helper()
	_, value, err := e.Op.IssueToken(context.Background(), pipeline.TokenRequest{UserEmail: "mia@acme.test", Name: "agent",
		Scopes: []pipeline.Scope{pipeline.ScopeCandidatesRead, pipeline.ScopeCandidatesWrite}, Approval: ops})
	require.NoError(t, err)
	return value
}

// stagePath is the path of a move of ada on backend.
func (e *env) adaPath() string {
	return "/api/v1/jobs/" + itoa(e.Job("backend")) + "/candidates/" + itoa(e.Res.Candidates["ada"])
}

func TestAPI_Proposals(t *testing.T) {
	each(t, "a held write answers 202 with the proposal; approved, it runs as the requester", func(t *testing.T, e *env) {
		agent := agentToken(t, e, pipeline.OpMoveCandidate)
		screening := e.Res.Stages["backend"]["Screening"]
		body := map[string]any{"stage": screening, "reason": "Strong phone screen."}
		r := e.do(t, "POST", e.adaPath()+"/stage", agent, body, IdempotencyKeyHeader, "move-1")
		require.Equal(t, http.StatusAccepted, r.Code, "%s", r.Body)
		p := r.Data(t)
		id := num(t, p["id"])
		assert.Equal(t, "/api/v1/proposals/"+itoa(id), r.Header.Get("Location"))
		assert.Equal(t, "pending", p["status"])
		assert.Equal(t, "move_candidate", p["operation"])
		assert.Equal(t, "POST", p["method"])
		assert.Equal(t, strings.TrimPrefix(e.adaPath(), "/api/v1")+"/stage", p["path"])
		assert.Equal(t, map[string]any{"stage": float64(screening), "reason": "Strong phone screen."}, p["input"])
		assert.Equal(t, "Strong phone screen.", p["reason"])
		assert.Nil(t, p["decided_by"])
		assert.Nil(t, p["result"])
		assert.Equal(t, "agent", p["requested_by"].(map[string]any)["token"].(map[string]any)["name"])

		// Nothing changed; the key replays the proposal.
		cand := e.do(t, "GET", e.adaPath(), e.token("olivia"), nil).Data(t)
		assert.Equal(t, "Applied", cand["stage"])
		again := e.do(t, "POST", e.adaPath()+"/stage", agent, body, IdempotencyKeyHeader, "move-1")
		require.Equal(t, http.StatusAccepted, again.Code, "%s", again.Body)
		assert.Equal(t, "true", again.Header.Get("Idempotent-Replay"))
		assert.Equal(t, float64(id), again.Data(t)["id"])

		// The agent reads its own; a reader without proposals:review of
		// another user does not see it.
		assert.Equal(t, http.StatusOK, e.do(t, "GET", "/api/v1/proposals/"+itoa(id), agent, nil).Code)
		assert.Equal(t, http.StatusNotFound, e.do(t, "GET", "/api/v1/proposals/"+itoa(id), e.token("olivia_jobs_read"), nil).Code)
		l := e.do(t, "GET", "/api/v1/proposals?status=pending", e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, l.Code, "%s", l.Body)
		require.Len(t, l.Items(t), 1)

		// Its own user's token cannot decide it.
		own := e.do(t, "POST", "/api/v1/proposals/"+itoa(id)+"/approve", e.token("mia"), map[string]any{})
		require.Equal(t, http.StatusForbidden, own.Code, "%s", own.Body)
		assert.Equal(t, "forbidden", own.ErrorCode())

		ok := e.do(t, "POST", "/api/v1/proposals/"+itoa(id)+"/approve", e.token("olivia"), map[string]any{"note": "Agreed."})
		require.Equal(t, http.StatusOK, ok.Code, "%s", ok.Body)
		d := ok.Data(t)
		assert.Equal(t, "applied", d["status"])
		assert.Equal(t, "Agreed.", d["note"])
		res := d["result"].(map[string]any)
		assert.Equal(t, 200.0, res["status"])
		assert.Equal(t, "Screening", res["body"].(map[string]any)["data"].(map[string]any)["stage"])
		cand = e.do(t, "GET", e.adaPath(), e.token("olivia"), nil).Data(t)
		assert.Equal(t, "Screening", cand["stage"])

		second := e.do(t, "POST", "/api/v1/proposals/"+itoa(id)+"/reject", e.token("olivia"), nil)
		require.Equal(t, http.StatusConflict, second.Code, "%s", second.Body)
		assert.Equal(t, "conflict", second.ErrorCode())
	})
	each(t, "a decision needs the proposed write's own scope", func(t *testing.T, e *env) {
		agent := agentToken(t, e, pipeline.OpAddNote)
		r := e.do(t, "POST", e.adaPath()+"/notes", agent, map[string]any{"content": "Proposed note."})
		require.Equal(t, http.StatusAccepted, r.Code, "%s", r.Body)
		id := num(t, r.Data(t)["id"])
		_, reviewer, err := e.Op.IssueToken(context.Background(), pipeline.TokenRequest{UserEmail: "olivia@acme.test", Name: "reviewer",
			Scopes: []pipeline.Scope{pipeline.ScopeProposalsReview}})
		require.NoError(t, err)
		d := e.do(t, "POST", "/api/v1/proposals/"+itoa(id)+"/reject", reviewer, nil)
		require.Equal(t, http.StatusForbidden, d.Code, "%s", d.Body)
		assert.Equal(t, "insufficient_scope", d.ErrorCode())
		assert.Equal(t, map[string]any{"required_scope": "candidates:write"}, d.Object(t)["error"].(map[string]any)["details"])
	})
}

// TestProposals_FeedAndWebhooks: a proposal's whole life, in the feed and
// at a webhook receiver.
func TestProposals_FeedAndWebhooks(t *testing.T) {
	each(t, "created, approved, and the write it ran", func(t *testing.T, e *env) {
		rc := newReceiver(t)
		createWebhook(t, e, "olivia", map[string]any{"url": rc.URL + "/hook", "events": []string{
			pipeline.ActionProposalCreated, pipeline.ActionProposalApproved, pipeline.ActionProposalRejected, pipeline.ActionCandidateStageChanged}})
		e.deliver(t, true)
		agent := agentToken(t, e, pipeline.OpMoveCandidate)
		move := func(stage string) float64 {
			r := e.do(t, "POST", e.adaPath()+"/stage", agent, map[string]any{"stage": e.Res.Stages["backend"][stage], "reason": "Next step."})
			require.Equal(t, http.StatusAccepted, r.Code, "%s", r.Body)
			return r.Data(t)["id"].(float64)
		}
		approved, rejected := move("Screening"), move("Interview")
		require.Equal(t, http.StatusOK, e.do(t, "POST", "/api/v1/proposals/"+itoa(int64(approved))+"/approve", e.token("olivia"), nil).Code)
		require.Equal(t, http.StatusOK, e.do(t, "POST", "/api/v1/proposals/"+itoa(int64(rejected))+"/reject", e.token("olivia"),
			map[string]any{"reason": "One step at a time."}).Code)

		got := rc.wait(t, 5)
		var types []string
		for _, g := range got {
			var msg struct {
				Type string         `json:"type"`
				Data map[string]any `json:"data"`
			}
			require.NoError(t, json.Unmarshal(g.body, &msg))
			types = append(types, msg.Type)
			assert.NotContains(t, msg.Data["changes"], "input", "a proposal's entry never carries its input")
		}
		assert.ElementsMatch(t, []string{"proposal.created", "proposal.created", "candidate.stage_changed", "proposal.approved", "proposal.rejected"}, types)

		awaitFeed(t, e.h, e.token("olivia"), 7) // the webhook's entry, the agent's token.created and the five
		feed := e.do(t, "GET", "/api/v1/activity?action=proposal.created&action=proposal.approved&action=proposal.rejected&action=candidate.stage_changed",
			e.token("olivia"), nil).Items(t)
		require.Len(t, feed, 5)
		var moved map[string]any
		for _, f := range feed {
			if f["action"] == "candidate.stage_changed" {
				moved = f
			}
			if f["action"] == "proposal.created" {
				assert.Equal(t, map[string]any{"type": "proposal", "id": f["subject"].(map[string]any)["id"]}, f["subject"])
				assert.Equal(t, "move_candidate", f["changes"].(map[string]any)["operation"])
			}
			if f["action"] == "proposal.rejected" {
				assert.Equal(t, "One step at a time.", f["reason"], "the decider's reason")
			}
		}
		require.NotNil(t, moved)
		assert.Equal(t, float64(e.tokenID(t, "olivia")), moved["approved_by"].(map[string]any)["token_id"])
		assert.Equal(t, "Next step.", moved["reason"], "the proposal's reason")
		assert.NotEqual(t, float64(e.tokenID(t, "olivia")), moved["actor"].(map[string]any)["token_id"], "made as the requester")
	})
}

func TestMCP_Proposals(t *testing.T) {
	each(t, "a held tool answers the proposal; the four tools answer the API's bodies", func(t *testing.T, e *env) {
		srv := e.serve(t)
		agent := agentToken(t, e, pipeline.OpMoveCandidate)
		cs, err := mcpClient(t, srv.URL+MCPPath, agent)
		require.NoError(t, err)
		var held string
		for tool, err := range cs.Tools(context.Background(), nil) {
			require.NoError(t, err)
			if tool.Name == "move_candidate" {
				held = tool.Description
			}
			if tool.Name == "update_candidate" {
				assert.NotContains(t, tool.Description, "wait for a person", "not under the policy")
			}
		}
		assert.Contains(t, held, "wait for a person's approval")

		res := callTool(t, cs, "move_candidate", map[string]any{"job_id": e.Job("backend"), "candidate_id": e.Res.Candidates["ada"],
			"stage": e.Res.Stages["backend"]["Screening"], "reason": "From MCP."})
		require.False(t, res.IsError)
		text := res.Content[0].(*mcp.TextContent).Text
		first, rest, _ := strings.Cut(text, "\n")
		p := res.StructuredContent.(map[string]any)["data"].(map[string]any)
		id := int64(p["id"].(float64))
		assert.Equal(t, "Pending approval: proposal "+itoa(id)+"; nothing has changed yet.", first)
		var fromText map[string]any
		require.NoError(t, json.Unmarshal([]byte(rest), &fromText))
		assert.Equal(t, "pending", p["status"])
		assert.Equal(t, "POST", p["method"], "the REST request it stands for")
		assert.Equal(t, map[string]any{"stage": float64(e.Res.Stages["backend"]["Screening"]), "reason": "From MCP."}, p["input"])

		// The API's bodies, through the four tools.
		api := e.do(t, "GET", "/api/v1/proposals/"+itoa(id), agent, nil)
		require.Equal(t, http.StatusOK, api.Code)
		assert.Equal(t, api.Object(t), content(t, callTool(t, cs, "get_proposal", map[string]any{"proposal_id": id})))
		list := e.do(t, "GET", "/api/v1/proposals", agent, nil).Object(t)
		assert.Equal(t, list["data"], content(t, callTool(t, cs, "list_proposals", map[string]any{})).(map[string]any)["data"])

		reviewer := e.mcpSession(t, "olivia")
		approved := content(t, callTool(t, reviewer, "approve_proposal", map[string]any{"proposal_id": id, "note": "Yes."})).(map[string]any)["data"].(map[string]any)
		assert.Equal(t, "applied", approved["status"])
		assert.Equal(t, e.do(t, "GET", "/api/v1/proposals/"+itoa(id), e.token("olivia"), nil).Data(t), approved)
		_, code := toolError(t, callTool(t, reviewer, "reject_proposal", map[string]any{"proposal_id": id}))
		assert.Equal(t, "conflict", code)
	})
}

// TestAPI_ProposalRateLimit: an approved run spends the approver's budget,
// not the requester's again.
func TestAPI_ProposalRateLimit(t *testing.T) {
	each(t, "the approval counts against the approver", func(t *testing.T, e *env) {
		agent := agentToken(t, e, pipeline.OpMoveCandidate)
		remaining := func(token string) int {
			r := e.do(t, "GET", "/api/v1/me", token, nil)
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			n, err := strconv.Atoi(r.Header.Get(HeaderRateRemaining))
			require.NoError(t, err)
			return n
		}
		r := e.do(t, "POST", e.adaPath()+"/stage", agent, map[string]any{"stage": e.Res.Stages["backend"]["Screening"]})
		require.Equal(t, http.StatusAccepted, r.Code, "%s", r.Body)
		id := num(t, r.Data(t)["id"])
		agentBefore, oliviaBefore := remaining(agent), remaining(e.token("olivia"))
		ok := e.do(t, "POST", "/api/v1/proposals/"+itoa(id)+"/approve", e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, ok.Code, "%s", ok.Body)
		require.Equal(t, "applied", ok.Data(t)["status"])
		assert.Equal(t, agentBefore-1, remaining(agent), "only the agent's own /me")
		assert.Equal(t, oliviaBefore-2, remaining(e.token("olivia")), "the approval and the /me")
	})
}
