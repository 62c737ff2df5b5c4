package pipelinehttp_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestProposal_Withdraw: POST /api/v1/proposals/{id}/withdraw is the
// requesting token's alone: 200 with the proposal withdrawn, 403 for
// another token that reads it, 404 for one that cannot, 409 once it is
// no longer pending.
func TestProposal_Withdraw(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f, base := servePages(t, db, pipelinehttp.Config{}, approvalOptions(t)...)
		held := agent(t, f, "mia", "agent", pipeline.OpMoveCandidate)
		id := propose(t, base, held, "POST", candidatePath(f, "backend", "ada")+"/stage",
			map[string]any{"stage": f.Res.Stages["backend"]["Screening"]})
		path := "/proposals/" + strconv.FormatInt(id, 10) + "/withdraw"

		status, _ := apiCall(t, base, f.Res.Tokens["olivia"], "POST", path, map[string]any{})
		assert.Equal(t, http.StatusForbidden, status, "another token that reads it")
		status, _ = apiCall(t, base, f.Res.Tokens["gary"], "POST", path, map[string]any{})
		assert.Equal(t, http.StatusNotFound, status, "a token that cannot read it")
		status, p := apiCall(t, base, held, "POST", path, map[string]any{"reason": "Wrong candidate."})
		require.Equal(t, http.StatusOK, status, "%v", p)
		assert.Equal(t, "withdrawn", p["status"])
		assert.Nil(t, p["decided_by"])
		status, _ = apiCall(t, base, held, "POST", path, map[string]any{})
		assert.Equal(t, http.StatusConflict, status, "no longer pending")
		assert.Equal(t, "Applied", candidateStage(t, f, "backend", "ada"))
	})
}
