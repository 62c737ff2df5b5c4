package pipeline_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// TestService_WithdrawProposal: the requesting token alone withdraws its
// pending proposal; proposal.withdrawn names the token and its reason.
func TestService_WithdrawProposal(t *testing.T) {
	eachWorld(t, "the requester withdraws", func(t *testing.T, w world) {
		h := newHeldMove(t, w, "Screening")
		_, err := h.move(w, "")
		p := proposed(t, err)

		// Another token that reads it: forbidden; one that cannot: not found.
		_, err = w.Svc.WithdrawProposal(w.As(t, "olivia"), p.ID, pipeline.ProposalWithdrawal{})
		assert.ErrorIs(t, err, pipeline.ErrForbidden)
		_, err = w.Svc.WithdrawProposal(w.As(t, "gary"), p.ID, pipeline.ProposalWithdrawal{})
		assert.Equal(t, pipeline.ENotFound, pipeline.ErrorCode(err))

		key := &pipeline.Idempotency{Key: "withdraw-1"}
		res, err := w.Svc.WithdrawProposal(h.ctx, p.ID, pipeline.ProposalWithdrawal{Idempotency: key, Reasoned: pipeline.Because("The CV was another person's.")})
		require.NoError(t, err)
		assert.Equal(t, pipeline.ProposalWithdrawn, res.Value.Status)
		assert.Nil(t, res.Value.DecidedBy)
		again, err := w.Svc.WithdrawProposal(h.ctx, p.ID, pipeline.ProposalWithdrawal{Idempotency: &pipeline.Idempotency{Key: "withdraw-1"},
			Reasoned: pipeline.Because("The CV was another person's.")})
		require.NoError(t, err)
		assert.True(t, again.Replayed, "the key replays")
		_, err = w.Svc.WithdrawProposal(h.ctx, p.ID, pipeline.ProposalWithdrawal{})
		assert.ErrorIs(t, err, pipeline.ErrConflict, "no longer pending")
		_, err = w.Svc.ApproveProposal(w.As(t, "olivia"), p.ID, pipeline.ProposalDecision{})
		assert.ErrorIs(t, err, pipeline.ErrConflict, "nobody decides it now")
		assert.Equal(t, "Applied", stageOf(t, w, h.job, h.ada), "nothing ran")

		e := lastEntry(t, w)
		assert.Equal(t, pipeline.ActionProposalWithdrawn, e.Action)
		assert.Equal(t, h.token, e.TokenID, "the token is the actor")
		require.NotNil(t, e.Reason)
		assert.Equal(t, "The CV was another person's.", *e.Reason)
	})
}
