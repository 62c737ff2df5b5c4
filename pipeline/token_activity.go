package pipeline

import (
	"context"
	"slices"
	"time"
)

// Token activity actions (decisions.md §7): a team sees in its log who
// gave an agent which powers, and when.
const (
	ActionTokenCreated         = "token.created"
	ActionTokenRevoked         = "token.revoked"
	ActionTokenApprovalChanged = "token.approval_changed"
	SubjectToken               = "token"
)

// tokenChanges are the changes of a token's entry: its name, scopes,
// approval policy and expiry before and after the write (nil: before it
// was made, after it was revoked), never its value or hash.
func tokenChanges(before, after *Token) map[string]Change {
	side := func(t *Token, f func(Token) any) any {
		if t == nil {
			return nil
		}
		return f(*t)
	}
	change := func(f func(Token) any) Change { return Change{Before: side(before, f), After: side(after, f)} }
	return map[string]Change{
		"name":              change(func(t Token) any { return t.Name }),
		"scopes":            change(func(t Token) any { return append([]Scope{}, t.Scopes...) }),
		"approval_required": change(func(t Token) any { return append([]Op{}, t.Approval...) }),
		"expires_at":        change(func(t Token) any { return t.ExpiresAt.UTC().Format(time.RFC3339) }),
	}
}

// logToken appends the entry of a change of a token, made by c at at, in
// the change's transaction. The entry belongs to the token's team; an
// operator's command (a zero Caller) is the server's own entry.
func logToken(ctx context.Context, tx Tx, c Caller, at time.Time, action string, before, after *Token) error {
	t := after
	if t == nil {
		t = before
	}
	return tx.Activity().Insert(ctx, Activity{
		TeamID:      t.TeamID,
		UserID:      c.user.ID,
		TokenID:     c.tokenID,
		IP:          c.ip,
		Action:      action,
		SubjectType: SubjectToken,
		SubjectID:   t.ID,
		Changes:     mustJSON(tokenChanges(before, after)),
		CreatedAt:   at,
	})
}

// revokeToken revokes the token with id at at on behalf of c, and logs
// it; a token revoked before is left as it is, and logged no more.
func revokeToken(ctx context.Context, store Store, c Caller, id int64, at time.Time) error {
	return store.Write(ctx, func(tx Tx) error {
		t, err := tx.Tokens().Lock(ctx, TokenParams{ID: id})
		if err != nil {
			return err
		}
		if t.RevokedAt != nil {
			return nil
		}
		if err := tx.Tokens().Revoke(ctx, RevokeTokenParams{ID: id, At: at}); err != nil {
			return err
		}
		return logToken(ctx, tx, c, at, ActionTokenRevoked, &t, nil)
	})
}

// setTokenApproval replaces the approval policy of the token with id on
// behalf of c at at, judged against its scopes, and logs it; the same
// policy again changes and logs nothing. Errors: not_found,
// validation_failed (approval; scopes: a token carrying proposals:review).
func setTokenApproval(ctx context.Context, store Store, c Caller, id int64, names []Op, at time.Time) (Token, error) {
	var out Token
	err := store.Write(ctx, func(tx Tx) error {
		t, err := tx.Tokens().Lock(ctx, TokenParams{ID: id})
		if err != nil {
			return err
		}
		approval, err := NormalizeApproval(ApprovalField, "scopes", names, t.Scopes)
		if err != nil {
			return err
		}
		out = t
		if slices.Equal(approval, t.Approval) {
			return nil
		}
		if err := tx.Tokens().SetApproval(ctx, SetApprovalParams{ID: id, Approval: approval}); err != nil {
			return err
		}
		out.Approval = approval
		return logToken(ctx, tx, c, at, ActionTokenApprovalChanged, &t, &out)
	})
	return out, err
}
