package pipelinestore

import (
	"context"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// tokenAuthRow is a token with its user and the user's current team, as
// read by TokenByHash.
type tokenAuthRow struct {
	tokenRow

	UserName     string `bun:"user_name"`
	UserEmail    string `bun:"user_email"`
	CurrentTeam  int64  `bun:"current_team_id"`
	TeamKey      string `bun:"team_key"`
	TeamName     string `bun:"team_name"`
	TeamJobLimit *int   `bun:"team_job_limit"`
}

// TokenByHash returns the token with the given hash, its user and the
// user's current team, revoked and expired tokens included, in one query.
func (db *DB) TokenByHash(ctx context.Context, hash string) (pipeline.TokenAuth, error) {
	return db.tokenAuth(ctx, db.q.TokenByHash, hash)
}

// TokenByID returns a token by id, its user and the user's current team.
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
		Team:  pipeline.Team{ID: r.CurrentTeam, Key: r.TeamKey, Name: r.TeamName, JobLimit: r.TeamJobLimit},
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

// CreateToken stores a token inside the user's current team, read in the
// same statement, and returns it with its id and team.
func (db *DB) CreateToken(ctx context.Context, t pipeline.Token) (pipeline.Token, error) {
	r := newTokenRow(t)
	err := db.write().get(ctx, db.q.InsertToken,
		args(r.Name, r.Scopes, r.Approval, r.Hash, r.CreatedAt, r.ExpiresAt, r.LastUsedAt, r.RevokedAt, r.UserID), &r)
	if err != nil {
		return pipeline.Token{}, formatError(err, "User")
	}
	return r.toToken(), nil
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

// RevokeToken marks a token revoked at the given time; a token revoked
// before keeps its first time.
func (db *DB) RevokeToken(ctx context.Context, id int64, at time.Time) error {
	res, err := db.write().exec(ctx, db.q.RevokeToken, ts(at), id)
	if err != nil {
		return formatError(err, "Token")
	}
	return expectRow(res, "Token")
}
