package main

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// TestOversight runs the program, then reads its database: the candidate
// ends rejected, by the agent's write, which carries the agent's reason and
// the person who approved it.
func TestOversight(t *testing.T) {
	gin.SetMode(gin.TestMode)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pipeline.db")
	var out bytes.Buffer
	require.NoError(t, run(ctx, path, &out), out.String())
	got := out.String()
	t.Log(got)
	assert.Contains(t, got, "agent: PATCH /api/v1/jobs/1/candidates/1 -> 202 Accepted\n  Location: /api/v1/proposals/1\n")
	assert.Contains(t, got, "agent: GET /api/v1/jobs/1/candidates/1 -> 200 OK\n  Ada Lovelace is active\n", "nothing changed while it waited")
	assert.Contains(t, got, "proposal 1: update_candidate by Rita Recruiter (screening agent)")
	assert.Contains(t, got, "person: POST /api/v1/proposals/1/approve -> 200 OK\n  proposal 1: applied, approved by Olivia Owner; the write answered 200\n")
	assert.Contains(t, got, "  Ada Lovelace is rejected\n")

	db, err := pipelinestore.Open(ctx, path)
	require.NoError(t, err)
	defer db.Close()
	op := pipeline.NewOperator(db)
	log, err := op.ActivityLog(ctx, nil)
	require.NoError(t, err)
	var actions []string
	var updated pipeline.Activity
	for _, a := range log {
		actions = append(actions, a.Action)
		if a.Action == pipeline.ActionCandidateUpdated {
			updated = a
		}
	}
	assert.Equal(t, []string{pipeline.ActionTokenCreated, pipeline.ActionTokenCreated, // the agent's and the reviewer's
		pipeline.ActionProposalCreated, pipeline.ActionCandidateUpdated, pipeline.ActionProposalApproved}, actions)
	assert.JSONEq(t, `{"status":{"before":"active","after":"rejected"}}`, string(updated.Changes))
	require.NotNil(t, updated.Reason)
	assert.Equal(t, reason, *updated.Reason)
	require.NotNil(t, updated.ApprovedBy)
	assert.Equal(t, "Olivia Owner", updated.ApprovedBy.User.Name)
	assert.NotNil(t, updated.ApprovedBy.TokenID, "approved with the person's token")
	assert.NotZero(t, updated.TokenID, "made with the agent's token")
	assert.NotEqual(t, updated.ApprovedBy.User.ID, updated.UserID, "the agent's user is not the approver")

	c, err := op.ActAs(ctx, updated.UserID, []pipeline.Scope{pipeline.ScopeCandidatesRead})
	require.NoError(t, err)
	cand, err := pipeline.NewService(db).GetCandidate(pipeline.NewContext(ctx, c), updated.JobID, updated.SubjectID)
	require.NoError(t, err)
	assert.Equal(t, "rejected", cand.Status)
}
