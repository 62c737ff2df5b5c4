package pipeline_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// heldCaller issues mia a token with scopes and the approval policy
// approval, and returns its caller.
func heldCaller(t *testing.T, w world, scopes []pipeline.Scope, approval ...pipeline.Op) pipeline.Caller {
	t.Helper()
	tok, value, err := w.Op.IssueToken(context.Background(), pipeline.TokenRequest{
		UserEmail: "mia@acme.test", Name: "agent", Scopes: scopes, Approval: approval})
	require.NoError(t, err)
	c, err := w.Svc.Authenticate(context.Background(), value)
	require.NoError(t, err)
	require.Equal(t, tok.ID, c.TokenID())
	return c
}

func TestOperator_TokenApproval(t *testing.T) {
	writes := []pipeline.Scope{pipeline.ScopeCandidatesWrite, pipeline.ScopeMessagesSend}
	each(t, "stored sorted, each name once, and shown by the team's token list", func(t *testing.T, w world) {
		tok, _, err := w.Op.IssueToken(context.Background(), pipeline.TokenRequest{UserEmail: "mia@acme.test", Name: "agent", Scopes: writes,
			Approval: []pipeline.Op{pipeline.OpSendMessage, pipeline.OpMoveCandidate, pipeline.OpSendMessage}})
		require.NoError(t, err)
		want := []pipeline.Op{pipeline.OpMoveCandidate, pipeline.OpSendMessage}
		assert.Equal(t, want, tok.Approval)
		tokens, err := w.Op.TeamTokens(context.Background(), w.Res.Teams["acme"])
		require.NoError(t, err)
		for _, listed := range tokens {
			if listed.ID == tok.ID {
				assert.Equal(t, want, listed.Approval)
			} else {
				assert.Empty(t, listed.Approval, listed.Name)
			}
		}
	})
	for name, r := range map[string]struct {
		approval []pipeline.Op
		scopes   []pipeline.Scope
		field    string
	}{
		"a read":                            {[]pipeline.Op{pipeline.OpMoveCandidate, pipeline.OpGetCandidate}, writes, pipeline.ApprovalField},
		"an unknown name":                   {[]pipeline.Op{"move_candidates"}, writes, pipeline.ApprovalField},
		"an upload":                         {[]pipeline.Op{pipeline.OpAddDocument}, writes, pipeline.ApprovalField},
		"a decision":                        {[]pipeline.Op{pipeline.OpApproveProposal}, writes, pipeline.ApprovalField},
		"a write the scopes do not allow":   {[]pipeline.Op{pipeline.OpErasePerson}, writes, pipeline.ApprovalField},
		"a policy with proposals:review":    {[]pipeline.Op{pipeline.OpMoveCandidate}, append(writes, pipeline.ScopeProposalsReview), "scopes"},
		"every write with proposals:review": {[]pipeline.Op{pipeline.EveryWrite}, []pipeline.Scope{pipeline.ScopeProposalsReview}, "scopes"},
	} {
		each(t, name+" is refused", func(t *testing.T, w world) {
			_, _, err := w.Op.IssueToken(context.Background(), pipeline.TokenRequest{UserEmail: "mia@acme.test", Name: "agent",
				Scopes: r.scopes, Approval: r.approval})
			assert.Equal(t, []string{r.field}, fieldNames(err))
		})
	}
	each(t, "proposals:review without a policy is a scope like any other", func(t *testing.T, w world) {
		c := heldCaller(t, w, []pipeline.Scope{pipeline.ScopeProposalsReview, pipeline.ScopeJobsRead})
		assert.Equal(t, []pipeline.Scope{pipeline.ScopeJobsRead, pipeline.ScopeProposalsReview}, c.Scopes(), "after webhooks:write in the table")
	})
}

func TestCaller_Held(t *testing.T) {
	each(t, "the names of the policy", func(t *testing.T, w world) {
		c := heldCaller(t, w, pipeline.AllScopes[:6], pipeline.OpUpdateCandidate, pipeline.OpMoveCandidate)
		for _, op := range pipeline.Ops() {
			want := op == pipeline.OpUpdateCandidate || op == pipeline.OpMoveCandidate
			assert.Equal(t, want, c.Held(op), op)
		}
	})
	each(t, "every write, and no read", func(t *testing.T, w world) {
		c := heldCaller(t, w, pipeline.AllScopes[:6], pipeline.EveryWrite)
		for _, op := range pipeline.Ops() {
			never := op == pipeline.OpApproveProposal || op == pipeline.OpRejectProposal || op == pipeline.OpWithdrawProposal || op == pipeline.OpAddDocument
			assert.Equal(t, op.Writes() && !never, c.Held(op), op)
		}
	})
	each(t, "no policy, and no token, hold nothing", func(t *testing.T, w world) {
		free := heldCaller(t, w, pipeline.AllScopes[:6])
		acting, err := w.Op.ActAs(context.Background(), w.User("mia"), pipeline.AllScopes)
		require.NoError(t, err)
		for _, op := range pipeline.Ops() {
			assert.False(t, free.Held(op), op)
			assert.False(t, acting.Held(op), op)
		}
	})
}

func TestService_MeApprovalRequired(t *testing.T) {
	each(t, "sorted, * as itself, [] when none", func(t *testing.T, w world) {
		for _, c := range []struct {
			approval []pipeline.Op
			want     []pipeline.Op
		}{
			{nil, []pipeline.Op{}},
			{[]pipeline.Op{pipeline.OpSendMessage, pipeline.OpAddNote}, []pipeline.Op{pipeline.OpAddNote, pipeline.OpSendMessage}},
			{[]pipeline.Op{pipeline.OpMoveCandidate, pipeline.EveryWrite}, []pipeline.Op{pipeline.EveryWrite, pipeline.OpMoveCandidate}},
		} {
			var scopes []pipeline.Scope
			for _, op := range c.approval {
				if op != pipeline.EveryWrite {
					scopes = append(scopes, op.Scope())
				}
			}
			me, err := w.Svc.GetMe(pipeline.NewContext(context.Background(), heldCaller(t, w, scopes, c.approval...)))
			require.NoError(t, err)
			assert.Equal(t, c.want, me.ApprovalRequired)
		}
	})
}

func TestOperator_SeedApproval(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		seed := func(approval string) (pipeline.SeedResult, error) {
			var w pipeline.SeedWorld
			file := strings.Replace(seedExample, `"scopes": ["jobs:read", "candidates:read"],`,
				`"scopes": ["jobs:read", "candidates:write"], "approval": `+approval+`,`, 1)
			require.NoError(t, json.Unmarshal([]byte(file), &w))
			return pipeline.NewOperator(db).Seed(context.Background(), &w)
		}
		_, err := seed(`["move_candidate", "list_jobs", "nothing"]`)
		assert.Equal(t, []string{"tokens[0].approval"}, fieldNames(err), "a read and an unknown name fail the file")
		res, err := seed(`["update_candidate", "*", "move_candidate"]`)
		require.NoError(t, err)
		c, err := pipeline.NewService(db).Authenticate(context.Background(), res.Tokens["olivia_bot"])
		require.NoError(t, err)
		assert.Equal(t, []pipeline.Op{pipeline.EveryWrite, pipeline.OpMoveCandidate, pipeline.OpUpdateCandidate}, c.ApprovalRequired())
	})
}
