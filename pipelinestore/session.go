package pipelinestore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The people's sign-in links, sessions and token forms. The statements
// are written in Bun's ? placeholders, the same on both dialects; every
// time is compared in Go, not SQL, so SQLite's text timestamps never meet
// a comparison.

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

// CreateSignInLink stores a sign-in link.
func (db *DB) CreateSignInLink(ctx context.Context, l pipeline.SignInLink) error {
	r := signInLinkRow{UserID: l.UserID, Hash: l.Hash, CreatedAt: ts(l.CreatedAt), ExpiresAt: ts(l.ExpiresAt)}
	_, err := db.w.bun.NewInsert().Model(&r).Exec(ctx)
	return formatError(err, "User")
}

// SignInLink returns the link with the given hash, with its user.
func (db *DB) SignInLink(ctx context.Context, hash string) (pipeline.SignInLink, error) {
	var r struct {
		signInLinkRow
		UserName  string `bun:"user_name"`
		UserEmail string `bun:"user_email"`
	}
	err := db.r.bun.NewRaw(`SELECT l.id, l.user_id, l.hash, l.created_at, l.expires_at, l.used_at,
	u.name AS user_name, u.email AS user_email
FROM sign_in_links AS l JOIN users AS u ON u.id = l.user_id WHERE l.hash = ?`, hash).Scan(ctx, &r)
	if err != nil {
		return pipeline.SignInLink{}, formatError(err, "Sign-in link")
	}
	return pipeline.SignInLink{
		ID: r.ID, UserID: r.UserID, Hash: r.Hash, CreatedAt: r.CreatedAt.UTC(), ExpiresAt: r.ExpiresAt.UTC(),
		UsedAt: utcPtr(r.UsedAt), User: pipeline.User{ID: r.UserID, Name: r.UserName, Email: r.UserEmail},
	}, nil
}

// UseSignInLink marks a link used, only if it is not yet.
func (db *DB) UseSignInLink(ctx context.Context, id int64, at time.Time) error {
	res, err := db.w.bun.NewRaw(`UPDATE sign_in_links SET used_at = ? WHERE id = ? AND used_at IS NULL`, ts(at), id).Exec(ctx)
	if err != nil {
		return formatError(err, "Sign-in link")
	}
	return expectRow(res, "Sign-in link")
}

// CreateSession stores a session and returns it with its id.
func (db *DB) CreateSession(ctx context.Context, s pipeline.Session) (pipeline.Session, error) {
	r := sessionRow{UserID: s.UserID, TeamID: s.TeamID, Hash: s.Hash, CreatedAt: ts(s.CreatedAt), LastSeenAt: ts(s.LastSeenAt)}
	if _, err := db.w.bun.NewInsert().Model(&r).Returning("id").Exec(ctx); err != nil {
		return pipeline.Session{}, formatError(err, "Session")
	}
	return r.toSession(), nil
}

// SessionByHash returns a session with its user and the team it acts in,
// in one query: the session's team while the user is a member of it, else
// the user's current team.
func (db *DB) SessionByHash(ctx context.Context, hash string) (pipeline.SessionAuth, error) {
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
	err := db.r.bun.NewRaw(`SELECT s.id, s.user_id, s.team_id, s.hash, s.created_at, s.last_seen_at,
	u.name AS user_name, u.email AS user_email,
	t.id AS acts_in, t.key AS team_key, t.name AS team_name, t.job_limit AS team_job_limit,
	COALESCE(m.role, '') AS role
FROM sessions AS s
JOIN users AS u ON u.id = s.user_id
LEFT JOIN memberships AS sm ON sm.user_id = s.user_id AND sm.team_id = s.team_id
JOIN teams AS t ON t.id = CASE WHEN sm.team_id IS NULL THEN u.current_team_id ELSE s.team_id END
LEFT JOIN memberships AS m ON m.user_id = s.user_id AND m.team_id = t.id
WHERE s.hash = ?`, hash).Scan(ctx, &r)
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

// TouchSession records the last use of a session.
func (db *DB) TouchSession(ctx context.Context, id int64, at time.Time) error {
	_, err := db.w.bun.NewRaw(`UPDATE sessions SET last_seen_at = ? WHERE id = ?`, ts(at), id).Exec(ctx)
	return formatError(err, "Session")
}

// SetSessionTeam sets the team of a user's session.
func (db *DB) SetSessionTeam(ctx context.Context, hash string, userID, teamID int64) error {
	res, err := db.w.bun.NewRaw(`UPDATE sessions SET team_id = ? WHERE hash = ? AND user_id = ?`, teamID, hash, userID).Exec(ctx)
	if err != nil {
		return formatError(err, "Session")
	}
	return expectRow(res, "Session")
}

// DeleteSession deletes a session, if it exists.
func (db *DB) DeleteSession(ctx context.Context, hash string) error {
	_, err := db.w.bun.NewRaw(`DELETE FROM sessions WHERE hash = ?`, hash).Exec(ctx)
	return formatError(err, "Session")
}

// UserTeams returns a user's teams, by id, with the user's roles.
func (db *DB) UserTeams(ctx context.Context, userID int64) ([]pipeline.TeamRole, error) {
	var rows []struct {
		teamRow
		Role string `bun:"role"`
	}
	err := db.r.bun.NewRaw(`SELECT t.id, t.key, t.name, t.job_limit, m.role
FROM memberships AS m JOIN teams AS t ON t.id = m.team_id
WHERE m.user_id = ? ORDER BY t.id`, userID).Scan(ctx, &rows)
	if err != nil {
		return nil, formatError(err, "Team")
	}
	out := make([]pipeline.TeamRole, len(rows))
	for i, r := range rows {
		out[i] = pipeline.TeamRole{Team: r.toTeam(), Role: pipeline.Role(r.Role)}
	}
	return out, nil
}

// UserTokens returns a user's tokens, oldest first.
func (db *DB) UserTokens(ctx context.Context, userID int64) ([]pipeline.Token, error) {
	var rows []tokenRow
	err := db.r.bun.NewRaw(`SELECT t.id, t.user_id, t.team_id, t.name, t.scopes, t.approval, t.hash, t.created_at, t.expires_at,
	t.last_used_at, t.revoked_at
FROM tokens AS t WHERE t.user_id = ? ORDER BY t.created_at, t.id`, userID).Scan(ctx, &rows)
	if err != nil {
		return nil, formatError(err, "Token")
	}
	out := make([]pipeline.Token, len(rows))
	for i, r := range rows {
		out[i] = r.toToken()
	}
	return out, nil
}

// CreateTokenOnce stores a token and its form in one transaction; a form
// stored before is a conflict, and no token is kept.
func (db *DB) CreateTokenOnce(ctx context.Context, t pipeline.Token, formHash string) (pipeline.Token, error) {
	r := newTokenRow(t)
	err := db.w.bun.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var seen int
		err := tx.NewRaw(`SELECT 1 FROM token_forms WHERE user_id = ? AND form_hash = ?`, t.UserID, formHash).Scan(ctx, &seen)
		if err == nil {
			return pipeline.ErrConflict
		} else if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if _, err := tx.NewInsert().Model(&r).Returning("id").Exec(ctx); err != nil {
			return err
		}
		_, err = tx.NewRaw(`INSERT INTO token_forms (user_id, form_hash, token_id) VALUES (?, ?, ?)`, t.UserID, formHash, r.ID).Exec(ctx)
		return err
	})
	if err != nil {
		return pipeline.Token{}, formatError(err, "Token form")
	}
	return r.toToken(), nil
}
