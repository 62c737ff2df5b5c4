package pipeline_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// tokenEntries are the entries of the activity log about tokens, in commit
// order, as pipelined activity lists them.
func tokenEntries(t *testing.T, w world) []pipeline.Activity {
	t.Helper()
	var out []pipeline.Activity
	for _, a := range w.Activity(t) {
		if strings.HasPrefix(a.Action, "token.") {
			out = append(out, a)
		}
	}
	return out
}

// Making, revoking and changing a token's approval policy are activity
// actions (decisions.md §7), logged with the write, on the pages and by
// the operator's commands alike, never with the token's value.
func TestService_TokenActivity(t *testing.T) {
	eachWorld(t, "the pages and the operator's commands", func(t *testing.T, w world) {
		ctx := context.Background()
		acme := w.Res.Teams["acme"]
		_, mia := signedIn(t, w.Svc, w.Op, "mia@acme.test")
		_, olivia := signedIn(t, w.Svc, w.Op, "olivia@acme.test")

		// On the tokens page: Mia makes an agent's token, Olivia, the
		// owner, revokes it, twice.
		tok, value, err := w.Svc.CreateToken(mia, pipeline.TokenForm{Name: "agent", Scopes: []pipeline.Scope{pipeline.ScopeCandidatesWrite, pipeline.ScopeMessagesSend},
			Approval: []pipeline.Op{pipeline.OpSendMessage}, Nonce: "n1"})
		require.NoError(t, err)
		// Mia gives it another policy, twice; a member cannot touch
		// another's token.
		both := []pipeline.Op{pipeline.OpSendMessage, pipeline.OpMoveCandidate}
		changed, err := w.Svc.SetTokenApproval(mia, tok.ID, both)
		require.NoError(t, err)
		assert.Equal(t, []pipeline.Op{pipeline.OpMoveCandidate, pipeline.OpSendMessage}, changed.Approval)
		_, err = w.Svc.SetTokenApproval(mia, tok.ID, both)
		require.NoError(t, err, "the same policy again changes nothing")
		olivias, err := w.Svc.Tokens(olivia)
		require.NoError(t, err)
		_, err = w.Svc.SetTokenApproval(mia, olivias.Mine[0].ID, nil)
		assert.ErrorIs(t, err, pipeline.ErrNotFound, "a member and another's token")
		caller, err := w.Svc.Authenticate(ctx, value)
		require.NoError(t, err)
		assert.True(t, caller.Held(pipeline.OpMoveCandidate), "the token proposes under its new policy")
		require.NoError(t, w.Svc.RevokeToken(olivia, tok.ID))
		require.NoError(t, w.Svc.RevokeToken(olivia, tok.ID), "revoking again changes nothing")
		// By the operator: pipelined token create, set-approval and revoke.
		ci, ciValue, err := w.Op.IssueToken(ctx, pipeline.TokenRequest{UserEmail: "adam@acme.test", Name: "ci",
			Scopes: []pipeline.Scope{pipeline.ScopeJobsRead, pipeline.ScopeJobsWrite}})
		require.NoError(t, err)
		_, err = w.Op.SetTokenApproval(ctx, ci.ID, []pipeline.Op{pipeline.OpListJobs})
		assert.ErrorIs(t, err, pipeline.ErrValidation, "a read never waits for approval")
		_, err = w.Op.SetTokenApproval(ctx, ci.ID, []pipeline.Op{pipeline.OpCreateJob})
		require.NoError(t, err)
		require.NoError(t, w.Op.RevokeToken(ctx, ci.ID))

		got := tokenEntries(t, w)
		require.Len(t, got, 6, "one entry per change: %v", got)
		at := func(tok pipeline.Token) string { return tok.ExpiresAt.UTC().Format(time.RFC3339) }
		made := `{"name":{"before":null,"after":"agent"},"scopes":{"before":null,"after":["candidates:write","messages:send"]},` +
			`"approval_required":{"before":null,"after":["send_message"]},"expires_at":{"before":null,"after":"` + at(tok) + `"}}`
		policy := `{"name":{"before":"agent","after":"agent"},"scopes":{"before":["candidates:write","messages:send"],"after":["candidates:write","messages:send"]},` +
			`"approval_required":{"before":["send_message"],"after":["move_candidate","send_message"]},` +
			`"expires_at":{"before":"` + at(tok) + `","after":"` + at(tok) + `"}}`
		gone := `{"name":{"before":"agent","after":null},"scopes":{"before":["candidates:write","messages:send"],"after":null},` +
			`"approval_required":{"before":["move_candidate","send_message"],"after":null},"expires_at":{"before":"` + at(tok) + `","after":null}}`
		ciScopes := `["jobs:read","jobs:write"]`
		for i, want := range []struct {
			action  string
			subject int64
			user    int64
			ip      string
			changes string
		}{
			{"token.created", tok.ID, w.User("mia"), "192.0.2.7", made},
			{"token.approval_changed", tok.ID, w.User("mia"), "192.0.2.7", policy},
			{"token.revoked", tok.ID, w.User("olivia"), "192.0.2.7", gone},
			{"token.created", ci.ID, 0, "", `{"name":{"before":null,"after":"ci"},"scopes":{"before":null,"after":` + ciScopes + `},` +
				`"approval_required":{"before":null,"after":[]},"expires_at":{"before":null,"after":"` + at(ci) + `"}}`},
			{"token.approval_changed", ci.ID, 0, "", `{"name":{"before":"ci","after":"ci"},"scopes":{"before":` + ciScopes + `,"after":` + ciScopes + `},` +
				`"approval_required":{"before":[],"after":["create_job"]},"expires_at":{"before":"` + at(ci) + `","after":"` + at(ci) + `"}}`},
			{"token.revoked", ci.ID, 0, "", `{"name":{"before":"ci","after":null},"scopes":{"before":` + ciScopes + `,"after":null},` +
				`"approval_required":{"before":["create_job"],"after":null},"expires_at":{"before":"` + at(ci) + `","after":null}}`},
		} {
			a := got[i]
			assert.Equal(t, want.action, a.Action, "entry %d", i)
			assert.Equal(t, "token", a.SubjectType, "entry %d", i)
			assert.Equal(t, want.subject, a.SubjectID, "entry %d", i)
			assert.Equal(t, acme, a.TeamID, "entry %d: the token's team", i)
			assert.Equal(t, want.user, a.UserID, "entry %d: who did it (0: the operator)", i)
			assert.Zero(t, a.TokenID, "entry %d: made without a token", i)
			assert.Equal(t, want.ip, a.IP, "entry %d", i)
			assert.JSONEq(t, want.changes, string(a.Changes), "entry %d", i)
			for _, secret := range []string{value, ciValue, pipeline.HashToken(value), pipeline.HashToken(ciValue)} {
				assert.NotContains(t, string(a.Changes), secret, "entry %d holds the token's value", i)
			}
		}

		// The feed's readers filter them, and webhooks select them, like
		// every action.
		reader := w.As(t, "olivia")
		actions := []string{"token.created", "token.revoked", "token.approval_changed"}
		newHook(t, w, "olivia", "https://hooks.example.test/tokens", actions...)
		var feed pipeline.FeedPage
		require.Eventually(t, func() bool {
			feed, err = w.Svc.ListActivity(reader, pipeline.FeedFilter{Limit: pipeline.MaxFeedLimit, Actions: actions})
			return err != nil || len(feed.Entries) >= 6
		}, 20*time.Second, 10*time.Millisecond, "the feed settles")
		require.NoError(t, err)
		var listed []string
		for _, e := range feed.Entries {
			listed = append(listed, e.Action)
		}
		assert.Equal(t, []string{"token.created", "token.approval_changed", "token.revoked",
			"token.created", "token.approval_changed", "token.revoked"}, listed)
	})
}
