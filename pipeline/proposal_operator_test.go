package pipeline_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

func TestOperator_TeamProposals(t *testing.T) {
	eachWorld(t, "every proposal of the team, newest first, as each reads now", func(t *testing.T, w world) {
		ctx := context.Background()
		h := newHeldMove(t, w, "Screening")
		_, err := h.move(w, "")
		move := proposed(t, err)
		c := heldCaller(t, w, []pipeline.Scope{pipeline.ScopeCandidatesWrite}, pipeline.OpUpdateCandidate)
		status := "rejected"
		uctx := pipeline.NewContext(ctx, c)
		_, err = w.Svc.UpdateCandidate(uctx, h.job, w.Res.Candidates["linus"], pipeline.CandidatePatch{Status: &status})
		update := proposed(t, err)

		all, err := w.Op.TeamProposals(ctx, w.Res.Teams["acme"], "")
		require.NoError(t, err)
		require.Len(t, all, 2)
		assert.Equal(t, []int64{update.ID, move.ID}, []int64{all[0].ID, all[1].ID})
		assert.Equal(t, "agent", all[0].RequestedBy.Token.Name)

		_, err = w.Svc.RejectProposal(w.As(t, "olivia"), update.ID, pipeline.ProposalDecision{})
		require.NoError(t, err)
		for status, want := range map[string][]int64{pipeline.ProposalPending: {move.ID}, pipeline.ProposalRejected: {update.ID}, pipeline.ProposalApplied: nil} {
			got, err := w.Op.TeamProposals(ctx, w.Res.Teams["acme"], status)
			require.NoError(t, err)
			var ids []int64
			for _, p := range got {
				ids = append(ids, p.ID)
			}
			assert.Equal(t, want, ids, status)
		}
		none, err := w.Op.TeamProposals(ctx, w.Res.Teams["globex"], "")
		require.NoError(t, err)
		assert.Empty(t, none)
		_, err = w.Op.TeamProposals(ctx, w.Res.Teams["acme"], "open")
		assert.Contains(t, pipeline.Fields(err), "status")
	})
}

func TestOperator_ActOnProposal(t *testing.T) {
	eachWorld(t, "a user decides in the proposal's team, whatever their current team", func(t *testing.T, w world) {
		ctx := context.Background()
		h := newHeldMove(t, w, "Screening")
		_, err := h.move(w, "")
		p := proposed(t, err)

		// Gary, of Globex, becomes a member of Acme: his current team stays
		// Globex, and as a member he does not reach the job.
		_, err = w.Op.AddUser(ctx, pipeline.NewMember{Email: "gary@globex.test", TeamID: w.Res.Teams["acme"], Role: pipeline.RoleMember})
		require.NoError(t, err)
		gary, err := w.Op.ActOnProposal(ctx, "gary@globex.test", p.ID)
		require.NoError(t, err)
		assert.Equal(t, w.Res.Teams["acme"], gary.Team().ID)
		assert.Zero(t, gary.TokenID())
		_, err = w.Svc.ApproveProposal(pipeline.NewContext(ctx, gary), p.ID, pipeline.ProposalDecision{})
		assert.ErrorIs(t, err, pipeline.ErrNotFound, "a member who cannot reach the job")

		_, err = w.Op.SetRole(ctx, "gary@globex.test", w.Res.Teams["acme"], pipeline.RoleAdmin)
		require.NoError(t, err)
		gary, err = w.Op.ActOnProposal(ctx, "GARY@globex.test", p.ID)
		require.NoError(t, err)
		res, err := w.Svc.ApproveProposal(pipeline.NewContext(ctx, gary), p.ID, pipeline.ProposalDecision{})
		require.NoError(t, err)
		assert.Equal(t, pipeline.ProposalApplied, res.Value.Status)
		assert.Equal(t, w.User("gary"), res.Value.DecidedBy.User.ID)
		assert.Nil(t, res.Value.DecidedBy.Token)
		assert.Equal(t, "Screening", stageOf(t, w, h.job, h.ada))
		me, err := w.Op.ActAs(ctx, w.User("gary"), nil)
		require.NoError(t, err)
		assert.Equal(t, w.Res.Teams["globex"], me.Team().ID, "his current team is untouched")
	})
	eachWorld(t, "not found: a user of no team of the proposal, an unknown user or proposal", func(t *testing.T, w world) {
		ctx := context.Background()
		h := newHeldMove(t, w, "Screening")
		_, err := h.move(w, "")
		p := proposed(t, err)
		for _, tc := range []struct {
			email string
			id    int64
		}{{"gary@globex.test", p.ID}, {"nobody@acme.test", p.ID}, {"olivia@acme.test", 999999}} {
			_, err := w.Op.ActOnProposal(ctx, tc.email, tc.id)
			assert.ErrorIs(t, err, pipeline.ErrNotFound, tc.email)
		}
	})
}
