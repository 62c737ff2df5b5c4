package pipeline_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// TestService_ApproveInProposalsTeam: a proposal runs in its own team. An
// admin of two teams proposes an erasure in one through an agent, then
// leaves that team; approving it fails with the 401 the agent's token now
// answers there, and erases nobody in either team, though the other team
// has a candidate of the same email.
func TestService_ApproveInProposalsTeam(t *testing.T) {
	eachWorld(t, "the requester left the proposal's team", func(t *testing.T, w world) {
		ctx := context.Background()
		acme, globex := w.Res.Teams["acme"], w.Res.Teams["globex"]
		for _, team := range []int64{acme, globex} {
			_, err := w.Op.AddUser(ctx, pipeline.NewMember{Email: "dana@acme.test", Name: "Dana Admin", TeamID: team, Role: pipeline.RoleAdmin})
			require.NoError(t, err)
		}
		// Globex has a candidate of Ada's email.
		ops := w.Job("ops")
		twin, err := w.Svc.AddCandidate(w.As(t, "gary"), ops, pipeline.NewCandidate{Name: "Ada Twin", Email: "ada@example.test"})
		require.NoError(t, err)

		_, value, err := w.Op.IssueToken(ctx, pipeline.TokenRequest{UserEmail: "dana@acme.test", Name: "privacy agent",
			Scopes: []pipeline.Scope{pipeline.ScopePrivacyManage}, Approval: []pipeline.Op{pipeline.OpErasePerson}})
		require.NoError(t, err)
		c, err := w.Svc.Authenticate(ctx, value)
		require.NoError(t, err)
		require.Equal(t, acme, c.Team().ID)
		_, err = w.Svc.ErasePerson(pipeline.NewContext(ctx, c), pipeline.PersonErasure{Email: "ada@example.test", Reasoned: pipeline.Because("Asked to be forgotten.")})
		p := proposed(t, err)
		require.Equal(t, acme, p.TeamID)

		_, err = w.Op.RemoveUser(ctx, "dana@acme.test", acme)
		require.NoError(t, err)

		res, err := w.Svc.ApproveProposal(w.As(t, "olivia"), p.ID, pipeline.ProposalDecision{})
		require.NoError(t, err)
		assert.Equal(t, pipeline.ProposalFailed, res.Value.Status)
		require.NotNil(t, res.Value.Result)
		assert.Equal(t, 401, res.Value.Result.Status)
		assert.JSONEq(t, `{"error":{"code":"unauthenticated","message":"Unauthenticated.","details":null}}`, string(res.Value.Result.Body))

		ada, err := w.Svc.GetCandidate(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"])
		require.NoError(t, err)
		assert.Equal(t, "Ada Lovelace", ada.Name, "acme's candidate is not erased")
		got, err := w.Svc.GetCandidate(w.As(t, "gary"), ops, twin.Value.ID)
		require.NoError(t, err)
		assert.Equal(t, "Ada Twin", got.Name, "globex's candidate is not erased")
		assert.Nil(t, got.ErasedAt)
	})
}
