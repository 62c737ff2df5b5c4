package pipelinestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// tokenAuthRow is a token with its user and the team it acts in, as read
// by Auth.
type tokenAuthRow struct {
	tokenRow

	UserName     string `bun:"user_name"`
	UserEmail    string `bun:"user_email"`
	TeamActing   int64  `bun:"acting_team_id"`
	TeamKey      string `bun:"team_key"`
	TeamName     string `bun:"team_name"`
	TeamJobLimit *int   `bun:"team_job_limit"`
}

// tokenStore is the DB's TokenStore.
type tokenStore struct{ *DB }

// Tokens reads tokens and records their use.
func (db *DB) Tokens() pipeline.TokenStore { return tokenStore{db} }

// tokenTx is a transaction's TokenTx.
type tokenTx struct{ *tx }

// Tokens writes tokens.
func (t *tx) Tokens() pipeline.TokenTx { return tokenTx{t} }

// Auth returns the token with the given hash, or id, its user and the team
// it was made in, revoked and expired tokens included, in one query; not
// found when the user is no longer a member of that team.
func (db tokenStore) Auth(ctx context.Context, p pipeline.TokenAuthParams) (pipeline.TokenAuth, error) {
	query, key := db.q.TokenByHash, any(p.Hash)
	if p.Hash == "" {
		query, key = db.q.TokenByID, p.ID
	}
	var r tokenAuthRow
	if err := db.read().get(ctx, query, args(key), &r); err != nil {
		return pipeline.TokenAuth{}, formatError(err, "Token")
	}
	return pipeline.TokenAuth{
		Token: r.toToken(),
		User:  pipeline.User{ID: r.UserID, Name: r.UserName, Email: r.UserEmail},
		Team:  pipeline.Team{ID: r.TeamActing, Key: r.TeamKey, Name: r.TeamName, JobLimit: r.TeamJobLimit},
	}, nil
}

// Touch records the last use of a token.
func (db tokenStore) Touch(ctx context.Context, p pipeline.TouchTokenParams) error {
	res, err := db.write().exec(ctx, db.q.TouchToken, ts(p.At), p.ID)
	if err != nil {
		return formatError(err, "Token")
	}
	return expectRow(res, "Token")
}

// Insert stores a token inside its TeamID or, when it is 0, inside its
// user's current team, read in the same statement, and returns it with its
// id and team. With a form hash it stores the form too; a form stored
// before is a conflict, and nothing is stored.
func (t tokenTx) Insert(ctx context.Context, p pipeline.InsertTokenParams) (pipeline.Token, error) {
	if p.FormHash != "" {
		var seen int
		err := t.run.get(ctx, t.q.TokenFormSeen, args(p.Token.UserID, p.FormHash), &seen)
		if err == nil {
			return pipeline.Token{}, pipeline.ErrConflict
		} else if !errors.Is(err, sql.ErrNoRows) {
			return pipeline.Token{}, formatError(err, "Token form")
		}
	}
	r := newTokenRow(p.Token)
	var team any
	if p.Token.TeamID != 0 {
		team = p.Token.TeamID
	}
	err := t.run.get(ctx, t.q.InsertToken,
		args(r.Name, r.Scopes, r.Approval, r.Hash, r.CreatedAt, r.ExpiresAt, r.LastUsedAt, r.RevokedAt, r.UserID, team), &r)
	if err != nil {
		return pipeline.Token{}, formatError(err, "User")
	}
	tok := r.toToken()
	if p.FormHash == "" {
		return tok, nil
	}
	return tok, formatError(t.run.deferred(ctx, t.q.InsertTokenForm, tok.UserID, p.FormHash, tok.ID), "Token form")
}

// Lock returns a token, locked.
func (t tokenTx) Lock(ctx context.Context, p pipeline.TokenParams) (pipeline.Token, error) {
	var r tokenRow
	if err := t.run.get(ctx, t.q.TokenLocked, args(p.ID), &r); err != nil {
		return pipeline.Token{}, formatError(err, "Token")
	}
	return r.toToken(), nil
}

// SetApproval replaces the approval policy of a locked token.
func (t tokenTx) SetApproval(ctx context.Context, p pipeline.SetApprovalParams) error {
	return formatError(t.run.deferred(ctx, t.q.SetTokenApproval, textList[pipeline.Op](p.Approval), p.ID), "Token")
}

// List returns the tokens created inside a team with their creators, or a
// user's tokens (see userTokens), oldest first, in one query.
func (db tokenStore) List(ctx context.Context, p pipeline.ListTokensParams) ([]pipeline.Token, error) {
	if p.TeamID == 0 {
		return db.userTokens(ctx, p.UserID)
	}
	var rows []tokenAuthRow
	err := db.read().all(ctx, db.q.TeamTokens, args(p.TeamID), &rows)
	if err != nil {
		return nil, formatError(err, "Token")
	}
	out := make([]pipeline.Token, len(rows))
	for i, r := range rows {
		out[i] = r.toToken()
		out[i].Creator = pipeline.User{ID: r.UserID, Name: r.UserName, Email: r.UserEmail}
	}
	return out, nil
}

// Revoke marks a locked token revoked at the given time; a token revoked
// before keeps its first time.
func (t tokenTx) Revoke(ctx context.Context, p pipeline.RevokeTokenParams) error {
	return formatError(t.run.deferred(ctx, t.q.RevokeToken, ts(p.At), p.ID), "Token")
}
