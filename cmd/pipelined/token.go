package main

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// issuedToken is the output of token create: the token with its value,
// which is shown this once.
type issuedToken struct {
	ID        int64            `json:"id"`
	Name      string           `json:"name"`
	UserID    int64            `json:"user_id"`
	TeamID    int64            `json:"team_id"`
	Scopes    []pipeline.Scope `json:"scopes"`
	Approval  []pipeline.Op    `json:"approval_required"`
	CreatedAt time.Time        `json:"created_at"`
	ExpiresAt time.Time        `json:"expires_at"`
	Token     string           `json:"token"`
}

func runTokenCreate(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e)
	withDB(&e, fs)
	user := fs.String("user", "", "email of the user the token acts for")
	name := fs.String("name", "", "name of the token")
	scopes := fs.String("scopes", "", `comma-separated scopes; "" for none`)
	approval := fs.String("approval", "", `comma-separated write operations the token may only propose, or "*" for every write (see "pipelined help operations")`)
	if err := parseFlagsOnly(e, fs, args, "user", "name", "scopes"); err != nil {
		return err
	}
	return withOperator(ctx, e.cfg, writes, func(op *pipeline.Operator) error {
		t, value, err := op.IssueToken(ctx, pipeline.TokenRequest{
			UserEmail: *user, Name: *name, Scopes: splitScopes(*scopes), Approval: pipeline.SplitApproval(*approval),
		})
		if err != nil {
			return lineValues(e, err)
		}
		return json.NewEncoder(e.stdout).Encode(issuedToken{
			ID: t.ID, Name: t.Name, UserID: t.UserID, TeamID: t.TeamID, Scopes: scopeList(t.Scopes),
			Approval: opList(t.Approval), CreatedAt: timestamp(t.CreatedAt), ExpiresAt: timestamp(t.ExpiresAt), Token: value,
		})
	})
}

func splitScopes(s string) []pipeline.Scope {
	var out []pipeline.Scope
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, pipeline.Scope(part))
		}
	}
	return out
}

// listedToken is a line of token list: never the value or its hash.
type listedToken struct {
	ID         int64            `json:"id"`
	Name       string           `json:"name"`
	Creator    tokenCreator     `json:"creator"`
	Scopes     []pipeline.Scope `json:"scopes"`
	Approval   []pipeline.Op    `json:"approval_required"`
	CreatedAt  time.Time        `json:"created_at"`
	ExpiresAt  time.Time        `json:"expires_at"`
	LastUsedAt *time.Time       `json:"last_used_at"`
	RevokedAt  *time.Time       `json:"revoked_at"`
}

type tokenCreator struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

func toListedToken(t pipeline.Token) listedToken {
	return listedToken{
		ID: t.ID, Name: t.Name,
		Creator:   tokenCreator{ID: t.Creator.ID, Name: t.Creator.Name, Email: t.Creator.Email},
		Scopes:    scopeList(t.Scopes),
		Approval:  opList(t.Approval),
		CreatedAt: timestamp(t.CreatedAt), ExpiresAt: timestamp(t.ExpiresAt),
		LastUsedAt: optionalTimestamp(t.LastUsedAt), RevokedAt: optionalTimestamp(t.RevokedAt),
	}
}

func runTokenList(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e)
	withDB(&e, fs)
	team := fs.String("team", "", "id or key of the team")
	if err := parseFlagsOnly(e, fs, args, "team"); err != nil {
		return err
	}
	return withOperator(ctx, e.cfg, reads, func(op *pipeline.Operator) error {
		t, err := op.TeamByRef(ctx, *team)
		if err != nil {
			return err
		}
		tokens, err := op.TeamTokens(ctx, t.ID)
		if err != nil {
			return err
		}
		return printJSONLines(e.stdout, tokens, toListedToken)
	})
}

func runTokenRevoke(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e)
	withDB(&e, fs)
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf(e, fs, "token revoke takes exactly one token ID")
	}
	id, ok := parseID(fs.Arg(0))
	if !ok {
		return usageErrorf(e, fs, "%q is not a token id", fs.Arg(0))
	}
	return withOperator(ctx, e.cfg, writes, func(op *pipeline.Operator) error {
		if err := op.RevokeToken(ctx, id); err != nil {
			return err
		}
		return json.NewEncoder(e.stdout).Encode(map[string]any{"id": id, "revoked": true})
	})
}

func runTokenSetApproval(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e)
	withDB(&e, fs)
	approval := fs.String("approval", "", `comma-separated write operations the token may only propose, "*" for every write, or "" for none`)
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if err := requireFlags(e, fs, "approval"); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf(e, fs, "token set-approval takes exactly one token ID")
	}
	id, ok := parseID(fs.Arg(0))
	if !ok {
		return usageErrorf(e, fs, "%q is not a token id", fs.Arg(0))
	}
	return withOperator(ctx, e.cfg, writes, func(op *pipeline.Operator) error {
		t, err := op.SetTokenApproval(ctx, id, pipeline.SplitApproval(*approval))
		if err != nil {
			return lineValues(e, err)
		}
		return json.NewEncoder(e.stdout).Encode(map[string]any{"id": t.ID, "approval_required": opList(t.Approval)})
	})
}

// scopeList is scopes for JSON: a token without scopes shows [], not null.
func scopeList(scopes []pipeline.Scope) []pipeline.Scope {
	if scopes == nil {
		return []pipeline.Scope{}
	}
	return scopes
}

// opList is an approval policy for JSON: none shows [], not null.
func opList(ops []pipeline.Op) []pipeline.Op { return append([]pipeline.Op{}, ops...) }
