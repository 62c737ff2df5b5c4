package pipelinestore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// tokenAuthRow is a token with its user and the team it acts in, as read
// by TokenByHash.
type tokenAuthRow struct {
	tokenRow

	UserName     string `bun:"user_name"`
	UserEmail    string `bun:"user_email"`
	TeamActing   int64  `bun:"acting_team_id"`
	TeamKey      string `bun:"team_key"`
	TeamName     string `bun:"team_name"`
	TeamJobLimit *int   `bun:"team_job_limit"`
}

// TokenByHash returns the token with the given hash, its user and the
// team it was made in, revoked and expired tokens included, in one query;
// not found when the user is no longer a member of that team.
func (db *DB) TokenByHash(ctx context.Context, hash string) (pipeline.TokenAuth, error) {
	return db.tokenAuth(ctx, db.q.TokenByHash, hash)
}

// TokenByID is TokenByHash by the token's id.
func (db *DB) TokenByID(ctx context.Context, id int64) (pipeline.TokenAuth, error) {
	return db.tokenAuth(ctx, db.q.TokenByID, id)
}

func (db *DB) tokenAuth(ctx context.Context, query string, key any) (pipeline.TokenAuth, error) {
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

// TouchToken records the last use of a token.
func (db *DB) TouchToken(ctx context.Context, id int64, at time.Time) error {
	res, err := db.write().exec(ctx, db.q.TouchToken, ts(at), id)
	if err != nil {
		return formatError(err, "Token")
	}
	return expectRow(res, "Token")
}

// InsertToken stores a token inside t.TeamID or, when it is 0, inside
// its user's current team, read in the same statement, and returns it
// with its id and team.
func (t *tx) InsertToken(ctx context.Context, tok pipeline.Token) (pipeline.Token, error) {
	r := newTokenRow(tok)
	var team any
	if tok.TeamID != 0 {
		team = tok.TeamID
	}
	err := t.run.get(ctx, t.q.InsertToken,
		args(r.Name, r.Scopes, r.Approval, r.Hash, r.CreatedAt, r.ExpiresAt, r.LastUsedAt, r.RevokedAt, r.UserID, team), &r)
	if err != nil {
		return pipeline.Token{}, formatError(err, "User")
	}
	return r.toToken(), nil
}

// InsertTokenOnce stores a token inside t.TeamID and its form; a form
// stored before is a conflict, and nothing is stored.
func (t *tx) InsertTokenOnce(ctx context.Context, tok pipeline.Token, formHash string) (pipeline.Token, error) {
	var seen int
	err := t.run.get(ctx, t.q.TokenFormSeen, args(tok.UserID, formHash), &seen)
	if err == nil {
		return pipeline.Token{}, pipeline.ErrConflict
	} else if !errors.Is(err, sql.ErrNoRows) {
		return pipeline.Token{}, formatError(err, "Token form")
	}
	if tok, err = t.InsertToken(ctx, tok); err != nil {
		return pipeline.Token{}, err
	}
	return tok, formatError(t.run.deferred(ctx, t.q.InsertTokenForm, tok.UserID, formHash, tok.ID), "Token form")
}

// TokenForUpdate returns a token, locked.
func (t *tx) TokenForUpdate(ctx context.Context, id int64) (pipeline.Token, error) {
	var r tokenRow
	if err := t.run.get(ctx, t.q.TokenLocked, args(id), &r); err != nil {
		return pipeline.Token{}, formatError(err, "Token")
	}
	return r.toToken(), nil
}

// SetTokenApproval replaces the approval policy of a token locked by
// TokenForUpdate.
func (t *tx) SetTokenApproval(ctx context.Context, id int64, approval []pipeline.Op) error {
	return formatError(t.run.deferred(ctx, t.q.SetTokenApproval, textList[pipeline.Op](approval), id), "Token")
}

// TeamTokens returns the tokens created inside a team with their creators,
// oldest first, in one query.
func (db *DB) TeamTokens(ctx context.Context, teamID int64) ([]pipeline.Token, error) {
	var rows []tokenAuthRow
	err := db.read().all(ctx, db.q.TeamTokens, args(teamID), &rows)
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

// RevokeToken marks a token locked by TokenForUpdate revoked at the
// given time; a token revoked before keeps its first time.
func (t *tx) RevokeToken(ctx context.Context, id int64, at time.Time) error {
	return formatError(t.run.deferred(ctx, t.q.RevokeToken, ts(at), id), "Token")
}
