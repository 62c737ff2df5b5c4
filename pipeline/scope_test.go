package pipeline_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// TestService_ScopeCheck: every operation needs its scope and no other,
// and refuses a caller without it before reading anything.
func TestService_ScopeCheck(t *testing.T) {
	eachWorld(t, "without its scope, every operation answers insufficient_scope", func(t *testing.T, w world) {
		for _, o := range operations {
			scope := o.op.Scope()
			if scope == "" {
				continue
			}
			// Every other scope, and records, key and input that would
			// each fail a later check.
			p := nowhere()
			p.idem = &pipeline.Idempotency{Key: "bad\tkey"}
			err := o.call(actAs(t, w, "olivia", allScopesBut(scope)...), w.Svc, p)
			require.ErrorIs(t, err, pipeline.ErrInsufficientScope, o.op)
			var e *pipeline.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, map[string]string{"required_scope": string(scope)}, e.Details, o.op)
		}
		assert.Empty(t, w.Activity(t))
	})
	eachWorld(t, "its scope alone is enough", func(t *testing.T, w world) {
		for _, o := range operations {
			if requesterOnly(o.op) {
				continue
			}
			// A webhook of its own for each operation, since one deletes it.
			p := reachable(t, w, newHook(t, w, "olivia", "https://hooks.example.test/"+string(o.op)).ID)
			var scopes []pipeline.Scope
			if s := o.op.Scope(); s != "" {
				scopes = append(scopes, s)
			}
			switch o.op {
			case pipeline.OpApproveProposal, pipeline.OpRejectProposal:
				// A decision needs the proposed write's scope too.
				scopes = append(scopes, probeProposalScope)
			case pipeline.OpGetProposal:
				// Another token's proposal is seen with proposals:review.
				scopes = append(scopes, pipeline.ScopeProposalsReview)
			}
			assert.NoError(t, o.call(actAs(t, w, "olivia", scopes...), w.Svc, p), o.op)
		}
	})
	eachWorld(t, "a read scope does not grant the write", func(t *testing.T, w world) {
		jobs := actAs(t, w, "olivia", pipeline.ScopeJobsRead)
		_, err := w.Svc.CreateJob(jobs, pipeline.NewJob{Title: "Nope"})
		assert.ErrorIs(t, err, pipeline.ErrInsufficientScope)
		_, err = w.Svc.UpdateJob(jobs, w.Job("backend"), pipeline.JobPatch{Title: new("Nope")})
		assert.ErrorIs(t, err, pipeline.ErrInsufficientScope)
		cands := actAs(t, w, "olivia", pipeline.ScopeCandidatesRead)
		_, err = w.Svc.AddNote(cands, w.Job("backend"), w.Res.Candidates["ada"], pipeline.NewNote{Content: "Nope"})
		assert.ErrorIs(t, err, pipeline.ErrInsufficientScope)
		_, err = w.Svc.ListStages(cands, w.Job("backend"))
		assert.ErrorIs(t, err, pipeline.ErrInsufficientScope, "stages are read with jobs:read")
		job, err := w.Svc.GetJob(jobs, w.Job("backend"))
		require.NoError(t, err)
		assert.Equal(t, "Backend Engineer", job.Title, "nothing was written")
		assert.Empty(t, w.Activity(t))
	})
	eachWorld(t, "without a caller, every operation answers unauthenticated", func(t *testing.T, w world) {
		for _, ctx := range []context.Context{
			context.Background(),
			pipeline.NewContext(context.Background(), pipeline.Caller{}),
		} {
			for _, o := range operations {
				err := o.call(ctx, w.Svc, nowhere())
				assert.ErrorIs(t, err, pipeline.ErrUnauthenticated, o.op)
			}
		}
		assert.Empty(t, w.Activity(t))
	})
}

// TestService_Me: who the caller is, for a caller with any scopes.
func TestService_MeIdentity(t *testing.T) {
	eachWorld(t, "the user, the current team and the scopes in table order", func(t *testing.T, w world) {
		id, err := w.Svc.GetMe(actAs(t, w, "gary", pipeline.ScopeWebhooksWrite, pipeline.ScopeJobsRead, pipeline.ScopeJobsRead))
		require.NoError(t, err)
		assert.Equal(t, w.User("gary"), id.User.ID)
		assert.Equal(t, "Gary Globex", id.User.Name)
		assert.Equal(t, w.Res.Teams["globex"], id.Team.ID)
		assert.Equal(t, []pipeline.Scope{pipeline.ScopeJobsRead, pipeline.ScopeWebhooksWrite}, id.Scopes)
	})
	eachWorld(t, "no scope at all", func(t *testing.T, w world) {
		id, err := w.Svc.GetMe(actAs(t, w, "mia"))
		require.NoError(t, err)
		assert.Equal(t, "mia@acme.test", id.User.Email)
		assert.NotNil(t, id.Scopes)
		assert.Empty(t, id.Scopes)
	})
}

// TestOperations_Complete: the tables of operations these tests run (the
// scope, check-order, visibility and idempotency cases) hold every
// operation of the Service once, so that a new operation cannot go untested.
func TestOperations_Complete(t *testing.T) {
	var probed []pipeline.Op
	for _, o := range operations {
		probed = append(probed, o.op)
	}
	assert.ElementsMatch(t, pipeline.Ops(), probed)
}

func TestScope_Words(t *testing.T) {
	for _, s := range pipeline.AllScopes {
		assert.NotEmpty(t, s.Words(), s)
	}
}
