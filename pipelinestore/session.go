package pipelinestore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The people's sign-in links, sessions and token forms. Every time is
// compared in Go, not SQL, so SQLite's text timestamps never meet a
// comparison.

type signInLinkRow struct {
	bun.BaseModel `bun:"table:sign_in_links"`

	ID        int64      `bun:"id,pk,autoincrement"`
	UserID    int64      `bun:"user_id"`
	Hash      string     `bun:"hash"`
	CreatedAt time.Time  `bun:"created_at"`
	ExpiresAt time.Time  `bun:"expires_at"`
	UsedAt    *time.Time `bun:"used_at"`
}

type sessionRow struct {
	bun.BaseModel `bun:"table:sessions"`

	ID         int64     `bun:"id,pk,autoincrement"`
	UserID     int64     `bun:"user_id"`
	TeamID     int64     `bun:"team_id"`
	Hash       string    `bun:"hash"`
	CreatedAt  time.Time `bun:"created_at"`
	LastSeenAt time.Time `bun:"last_seen_at"`
}

func (r sessionRow) toSession() pipeline.Session {
	return pipeline.Session{ID: r.ID, UserID: r.UserID, TeamID: r.TeamID, Hash: r.Hash,
		CreatedAt: r.CreatedAt.UTC(), LastSeenAt: r.LastSeenAt.UTC()}
}

// sessionStore is the DB's SessionStore.
type sessionStore struct{ *DB }

// Sessions holds the people's sign-in links and sessions.
func (db *DB) Sessions() pipeline.SessionStore { return sessionStore{db} }

// CreateLink stores a sign-in link.
func (db sessionStore) CreateLink(ctx context.Context, l pipeline.SignInLink) error {
	r := signInLinkRow{UserID: l.UserID, Hash: l.Hash, CreatedAt: ts(l.CreatedAt), ExpiresAt: ts(l.ExpiresAt)}
	_, err := db.w.bun.NewInsert().Model(&r).Exec(ctx)
	return formatError(err, "User")
}

// Link returns the link with the given hash, with its user.
func (db sessionStore) Link(ctx context.Context, p pipeline.SignInLinkParams) (pipeline.SignInLink, error) {
	var r struct {
		signInLinkRow
		UserName  string `bun:"user_name"`
		UserEmail string `bun:"user_email"`
	}
	err := db.read().get(ctx, db.q.SignInLink, args(p.Hash), &r)
	if err != nil {
		return pipeline.SignInLink{}, formatError(err, "Sign-in link")
	}
	return pipeline.SignInLink{
		ID: r.ID, UserID: r.UserID, Hash: r.Hash, CreatedAt: r.CreatedAt.UTC(), ExpiresAt: r.ExpiresAt.UTC(),
		UsedAt: utcPtr(r.UsedAt), User: pipeline.User{ID: r.UserID, Name: r.UserName, Email: r.UserEmail},
	}, nil
}

// UseLink marks a link used, only if it is not yet.
func (db sessionStore) UseLink(ctx context.Context, p pipeline.UseSignInLinkParams) error {
	res, err := db.write().exec(ctx, db.q.UseSignInLink, ts(p.At), p.ID)
	if err != nil {
		return formatError(err, "Sign-in link")
	}
	return expectRow(res, "Sign-in link")
}

// Create stores a session and returns it with its id.
func (db sessionStore) Create(ctx context.Context, s pipeline.Session) (pipeline.Session, error) {
	r := sessionRow{UserID: s.UserID, TeamID: s.TeamID, Hash: s.Hash, CreatedAt: ts(s.CreatedAt), LastSeenAt: ts(s.LastSeenAt)}
	if _, err := db.w.bun.NewInsert().Model(&r).Returning("id").Exec(ctx); err != nil {
		return pipeline.Session{}, formatError(err, "Session")
	}
	return r.toSession(), nil
}

// Get returns a session with its user and the team it acts in, in one
// query: the session's team while the user is a member of it, else the
// user's current team.
func (db sessionStore) Get(ctx context.Context, p pipeline.SessionParams) (pipeline.SessionAuth, error) {
	var r struct {
		sessionRow
		UserName     string `bun:"user_name"`
		UserEmail    string `bun:"user_email"`
		ActsIn       int64  `bun:"acts_in"`
		TeamKey      string `bun:"team_key"`
		TeamName     string `bun:"team_name"`
		TeamJobLimit *int   `bun:"team_job_limit"`
		Role         string `bun:"role"`
	}
	err := db.read().get(ctx, db.q.SessionByHash, args(p.Hash), &r)
	if err != nil {
		return pipeline.SessionAuth{}, formatError(err, "Session")
	}
	return pipeline.SessionAuth{
		Session: r.toSession(),
		User:    pipeline.User{ID: r.UserID, Name: r.UserName, Email: r.UserEmail},
		Team:    pipeline.Team{ID: r.ActsIn, Key: r.TeamKey, Name: r.TeamName, JobLimit: r.TeamJobLimit},
		Role:    pipeline.Role(r.Role),
	}, nil
}

// Touch records the last use of a session.
func (db sessionStore) Touch(ctx context.Context, p pipeline.TouchSessionParams) error {
	_, err := db.write().exec(ctx, db.q.TouchSession, ts(p.At), p.ID)
	return formatError(err, "Session")
}

// SetTeam sets the team of a user's session.
func (db sessionStore) SetTeam(ctx context.Context, p pipeline.SetSessionTeamParams) error {
	res, err := db.write().exec(ctx, db.q.SetSessionTeam, p.TeamID, p.Hash, p.UserID)
	if err != nil {
		return formatError(err, "Session")
	}
	return expectRow(res, "Session")
}

// Delete deletes a session, if it exists.
func (db sessionStore) Delete(ctx context.Context, p pipeline.SessionParams) error {
	_, err := db.write().exec(ctx, db.q.DeleteSession, p.Hash)
	return formatError(err, "Session")
}

// Teams returns a user's teams, by id, with the user's roles.
func (db userStore) Teams(ctx context.Context, p pipeline.UserParams) ([]pipeline.TeamRole, error) {
	var rows []struct {
		teamRow
		Role string `bun:"role"`
	}
	err := db.read().all(ctx, db.q.UserTeams, args(p.ID), &rows)
	if err != nil {
		return nil, formatError(err, "Team")
	}
	out := make([]pipeline.TeamRole, len(rows))
	for i, r := range rows {
		out[i] = pipeline.TeamRole{Team: r.toTeam(), Role: pipeline.Role(r.Role)}
	}
	return out, nil
}

// userTokens returns a user's tokens, oldest first.
func (db tokenStore) userTokens(ctx context.Context, userID int64) ([]pipeline.Token, error) {
	var rows []tokenRow
	err := db.read().all(ctx, db.q.UserTokens, args(userID), &rows)
	if err != nil {
		return nil, formatError(err, "Token")
	}
	out := make([]pipeline.Token, len(rows))
	for i, r := range rows {
		out[i] = r.toToken()
	}
	return out, nil
}
