package pipeline_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestService_TokenActsInItsTeam: decisions §7. A token made on the tokens
// page under the session's team acts in that team, not the user's current
// one, is listed by that team, and answers 401 once its user has left it.
func TestService_TokenActsInItsTeam(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := storetest.Seeded(t, db)
		ctx := context.Background()
		acme, globex := f.Res.Teams["acme"], f.Res.Teams["globex"]
		_, err := f.Op.AddUser(ctx, pipeline.NewMember{Email: "mia@acme.test", TeamID: globex, Role: pipeline.RoleMember})
		require.NoError(t, err)

		value, _ := signedIn(t, f.Svc, f.Op, "mia@acme.test")
		require.NoError(t, f.Svc.SwitchTeam(mustResume(t, f, value), value, globex))
		tok, token, err := f.Svc.CreateToken(mustResume(t, f, value), pipeline.TokenForm{Name: "globex agent",
			Scopes: []pipeline.Scope{pipeline.ScopeJobsRead}, Nonce: "n1"})
		require.NoError(t, err)

		c, err := f.Svc.Authenticate(ctx, token)
		require.NoError(t, err)
		assert.Equal(t, globex, c.Team().ID, "the session's team, not mia's current team (acme)")
		me, err := f.Svc.GetMe(pipeline.NewContext(ctx, c))
		require.NoError(t, err)
		assert.Equal(t, globex, me.Team.ID)
		listed, err := f.Op.TeamTokens(ctx, globex)
		require.NoError(t, err)
		assert.Contains(t, tokenIDs(listed), tok.ID, "globex lists it")
		listed, err = f.Op.TeamTokens(ctx, acme)
		require.NoError(t, err)
		assert.NotContains(t, tokenIDs(listed), tok.ID, "acme does not")

		_, err = f.Op.RemoveUser(ctx, "mia@acme.test", globex)
		require.NoError(t, err)
		// The Service reads a token from the store at most once a second.
		assert.Eventually(t, func() bool {
			_, err := f.Svc.Authenticate(ctx, token)
			return errors.Is(err, pipeline.ErrUnauthenticated)
		}, 10*time.Second, 50*time.Millisecond, "its user left its team")
	})
}

func mustResume(t *testing.T, f storetest.Fixture, value string) context.Context {
	t.Helper()
	ctx, _, err := f.Svc.ResumeSession(context.Background(), value, "192.0.2.7")
	require.NoError(t, err)
	return ctx
}

func tokenIDs(ts []pipeline.Token) []int64 {
	out := make([]int64, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}
