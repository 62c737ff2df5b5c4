package pipeline_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// TestService_ProposalEntries: the feed alone tells the oversight story:
// proposal.created carries the agent's reason, proposal.approved and
// proposal.rejected the decider's note, and each names the operation and
// the candidate, never the input.
func TestService_ProposalEntries(t *testing.T) {
	eachWorld(t, "reasons, notes and the candidate", func(t *testing.T, w world) {
		h := newHeldMove(t, w, "Screening")
		_, err := h.move(w, "")
		moved := proposed(t, err)
		_, err = h.move(w, "")
		require.Equal(t, moved.ID, proposed(t, err).ID, "the same request while pending is that proposal")
		note := "Checked with the recruiter."
		_, err = w.Svc.ApproveProposal(w.As(t, "olivia"), moved.ID, pipeline.ProposalDecision{Note: &note})
		require.NoError(t, err)

		byAction := map[string]pipeline.Activity{}
		for _, a := range w.Activity(t) {
			if a.SubjectType == pipeline.SubjectProposal && a.SubjectID == moved.ID {
				byAction[a.Action] = a
			}
		}
		created, approved := byAction[pipeline.ActionProposalCreated], byAction[pipeline.ActionProposalApproved]
		require.NotNil(t, created.Reason)
		assert.Equal(t, "Strong screen.", *created.Reason, "the agent's reason")
		require.NotNil(t, approved.Reason)
		assert.Equal(t, note, *approved.Reason, "the decider's note")
		for _, a := range []pipeline.Activity{created, approved} {
			var changes map[string]any
			require.NoError(t, json.Unmarshal(a.Changes, &changes))
			assert.Equal(t, "move_candidate", changes["operation"], a.Action)
			assert.Equal(t, float64(h.ada), changes["candidate_id"], a.Action)
			assert.NotContains(t, changes, "stage", "never the input")
		}
	})
}

// TestService_ApprovedWebhookSecret: a webhook made by an approved
// proposal shows its secret in the approval's answer once; every later
// read, and the stored row, holds null.
func TestService_ApprovedWebhookSecret(t *testing.T) {
	eachWorld(t, "the secret is handed on once", func(t *testing.T, w world) {
		ctx := context.Background()
		_, value, err := w.Op.IssueToken(ctx, pipeline.TokenRequest{UserEmail: "adam@acme.test", Name: "hooks agent",
			Scopes: []pipeline.Scope{pipeline.ScopeWebhooksWrite}, Approval: []pipeline.Op{pipeline.OpCreateWebhook}})
		require.NoError(t, err)
		c, err := w.Svc.Authenticate(ctx, value)
		require.NoError(t, err)
		_, err = w.Svc.CreateWebhook(pipeline.NewContext(ctx, c), pipeline.NewWebhook{URL: "https://hooks.example.test/acme"})
		p := proposed(t, err)

		res, err := w.Svc.ApproveProposal(w.As(t, "olivia"), p.ID, pipeline.ProposalDecision{})
		require.NoError(t, err)
		require.Equal(t, pipeline.ProposalApplied, res.Value.Status)
		secretOf := func(body json.RawMessage) any {
			var b struct{ Data map[string]any }
			require.NoError(t, json.Unmarshal(body, &b))
			require.Contains(t, b.Data, "secret")
			return b.Data["secret"]
		}
		secret, _ := secretOf(res.Value.Result.Body).(string)
		assert.NotEmpty(t, secret, "the approval's answer hands the secret on")

		again, err := w.Svc.GetProposal(w.As(t, "olivia"), p.ID)
		require.NoError(t, err)
		assert.Nil(t, secretOf(again.Result.Body), "a later read")
		var stored string
		for _, pool := range w.DB.Pools() {
			err = pool.QueryRowContext(ctx, "SELECT result FROM proposals WHERE id = $1", p.ID).Scan(&stored)
			if err != sql.ErrNoRows {
				break
			}
		}
		require.NoError(t, err)
		assert.NotContains(t, stored, secret, "the stored row")
	})
}
