package pipelinestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// UserWithTeam returns a user and the user's current team, in one query.
func (db *DB) UserWithTeam(ctx context.Context, userID int64) (pipeline.User, pipeline.Team, error) {
	var r struct {
		userRow
		TeamName     string `bun:"team_name"`
		TeamJobLimit *int   `bun:"team_job_limit"`
	}
	err := db.r.bun.NewRaw(`SELECT u.id, u.name, u.email, u.current_team_id, t.name AS team_name, t.job_limit AS team_job_limit
FROM users AS u JOIN teams AS t ON t.id = u.current_team_id WHERE u.id = ?`, userID).Scan(ctx, &r)
	if err != nil {
		return pipeline.User{}, pipeline.Team{}, formatError(err, "User")
	}
	return r.toUser(), pipeline.Team{ID: r.CurrentTeamID, Name: r.TeamName, JobLimit: r.TeamJobLimit}, nil
}

// UserByEmail returns the user with that email, in any letter case.
func (db *DB) UserByEmail(ctx context.Context, email string) (pipeline.User, error) {
	var r userRow
	err := db.r.bun.NewRaw(`SELECT id, name, email, current_team_id FROM users WHERE lower(email) = lower(?)`, email).Scan(ctx, &r)
	if err != nil {
		return pipeline.User{}, formatError(err, "User")
	}
	return r.toUser(), nil
}

// Teams returns every team, by id, with its key.
func (db *DB) Teams(ctx context.Context) ([]pipeline.Team, error) {
	var rows []teamRow
	if err := db.r.bun.NewSelect().Model(&rows).Order("id").Scan(ctx); err != nil {
		return nil, formatError(err, "Team")
	}
	out := make([]pipeline.Team, len(rows))
	for i, r := range rows {
		out[i] = r.toTeam()
	}
	return out, nil
}

// CreateTeam stores a team; a key that exists is a conflict naming it.
func (db *DB) CreateTeam(ctx context.Context, t pipeline.Team) (pipeline.Team, error) {
	r := teamRow{Key: t.Key, Name: t.Name, JobLimit: t.JobLimit}
	if _, err := db.w.bun.NewInsert().Model(&r).Returning("id").Exec(ctx); err != nil {
		return pipeline.Team{}, formatError(err, "Team "+t.Key)
	}
	return r.toTeam(), nil
}

// memberRow is a user with one of their memberships, as Members reads
// them.
type memberRow struct {
	userRow
	TeamID  int64  `bun:"team_id"`
	TeamKey string `bun:"team_key"`
	Role    string `bun:"role"`
}

// Members returns users by id with their memberships: all users, or those
// on one team.
func (db *DB) Members(ctx context.Context, teamID *int64) ([]pipeline.Member, error) {
	return members(ctx, db.r.bun, teamID, nil)
}

// members reads users with their memberships from idb: the members of a
// team, or the user of an id, or everyone.
func members(ctx context.Context, idb bun.IDB, teamID, userID *int64) ([]pipeline.Member, error) {
	var rows []memberRow
	q := idb.NewSelect().TableExpr("users AS u").
		ColumnExpr("u.id, u.name, u.email, u.current_team_id, m.team_id, t.key AS team_key, m.role").
		Join("JOIN memberships AS m ON m.user_id = u.id").
		Join("JOIN teams AS t ON t.id = m.team_id").
		OrderExpr("u.id, m.team_id")
	if teamID != nil {
		q = q.Where("u.id IN (SELECT user_id FROM memberships WHERE team_id = ?)", *teamID)
	}
	if userID != nil {
		q = q.Where("u.id = ?", *userID)
	}
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, formatError(err, "User")
	}
	var out []pipeline.Member
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1].User.ID != r.ID {
			out = append(out, pipeline.Member{User: r.toUser(), CurrentTeamID: r.CurrentTeamID})
		}
		m := &out[len(out)-1]
		m.Memberships = append(m.Memberships, pipeline.Membership{TeamID: r.TeamID, TeamKey: r.TeamKey, Role: pipeline.Role(r.Role)})
	}
	return out, nil
}

// member reads one user with their memberships inside tx.
func member(ctx context.Context, tx bun.Tx, userID int64) (pipeline.Member, error) {
	ms, err := members(ctx, tx, nil, &userID)
	if err != nil {
		return pipeline.Member{}, err
	}
	if len(ms) == 0 {
		return pipeline.Member{}, formatError(sql.ErrNoRows, "User")
	}
	return ms[0], nil
}

// teamForChange reads and, on PostgreSQL, locks a team, so that changes of
// its owners are serialized (SQLite's writer serializes them anyway).
func (db *DB) teamForChange(ctx context.Context, tx bun.Tx, teamID int64) (teamRow, error) {
	var t teamRow
	q := tx.NewSelect().Model(&t).Where("id = ?", teamID)
	if db.dialect == DialectPostgres {
		q = q.For("NO KEY UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		return teamRow{}, formatError(err, "Team")
	}
	return t, nil
}

// AddMember adds a user to a team, creating the user when the email is
// new; see pipeline.Operator.AddUser.
func (db *DB) AddMember(ctx context.Context, nm pipeline.NewMember) (pipeline.Member, error) {
	var out pipeline.Member
	err := db.w.bun.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		team, err := db.teamForChange(ctx, tx, nm.TeamID)
		if err != nil {
			return err
		}
		var u userRow
		err = tx.NewSelect().Model(&u).Where("lower(email) = lower(?)", nm.Email).Scan(ctx)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if strings.TrimSpace(nm.Name) == "" {
				return pipeline.Invalid("name", "The name field is required for a new user.")
			}
			u = userRow{Name: nm.Name, Email: nm.Email, CurrentTeamID: team.ID}
			if _, err := tx.NewInsert().Model(&u).Returning("id").Exec(ctx); err != nil {
				return formatError(err, "User "+nm.Email)
			}
		case err != nil:
			return err
		case nm.Name != "" && nm.Name != u.Name:
			return pipeline.ErrNameMismatch(u.Email, u.Name)
		}
		m := membershipRow{UserID: u.ID, TeamID: team.ID, Role: string(nm.Role)}
		if _, err := tx.NewInsert().Model(&m).Exec(ctx); err != nil {
			return formatError(err, fmt.Sprintf("Membership of %s in team %s", u.Email, team.Key))
		}
		out, err = member(ctx, tx, u.ID)
		return err
	})
	return out, err
}

// membershipForChange reads a user by email, locks their team and returns
// the user with their role there.
func (db *DB) membershipForChange(ctx context.Context, tx bun.Tx, email string, teamID int64) (userRow, teamRow, string, error) {
	team, err := db.teamForChange(ctx, tx, teamID)
	if err != nil {
		return userRow{}, teamRow{}, "", err
	}
	var u userRow
	if err := tx.NewSelect().Model(&u).Where("lower(email) = lower(?)", email).Scan(ctx); err != nil {
		return userRow{}, teamRow{}, "", formatError(err, "User "+email)
	}
	var role string
	err = tx.NewSelect().Table("memberships").Column("role").
		Where("user_id = ? AND team_id = ?", u.ID, team.ID).Scan(ctx, &role)
	if err != nil {
		return userRow{}, teamRow{}, "", formatError(err, fmt.Sprintf("Membership of %s in team %s", u.Email, team.Key))
	}
	return u, team, role, nil
}

// keepsOwner refuses a change that takes the owner role from a user of a
// team locked by teamForChange when nobody else owns it.
func keepsOwner(ctx context.Context, tx bun.Tx, team teamRow, userID int64, oldRole string, newRole pipeline.Role) error {
	if oldRole != string(pipeline.RoleOwner) || newRole == pipeline.RoleOwner {
		return nil
	}
	n, err := tx.NewSelect().Table("memberships").
		Where("team_id = ? AND role = 'owner' AND user_id <> ?", team.ID, userID).Count(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return pipeline.ErrLastOwner(team.Key)
	}
	return nil
}

// SetRole changes a user's role on a team, keeping an owner on it.
func (db *DB) SetRole(ctx context.Context, email string, teamID int64, role pipeline.Role) (pipeline.Member, error) {
	var out pipeline.Member
	err := db.w.bun.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		u, team, old, err := db.membershipForChange(ctx, tx, email, teamID)
		if err != nil {
			return err
		}
		if err := keepsOwner(ctx, tx, team, u.ID, old, role); err != nil {
			return err
		}
		if _, err := tx.NewUpdate().Table("memberships").Set("role = ?", string(role)).
			Where("user_id = ? AND team_id = ?", u.ID, team.ID).Exec(ctx); err != nil {
			return err
		}
		out, err = member(ctx, tx, u.ID)
		return err
	})
	return out, err
}

// RemoveMember takes a user off a team with their assignments to its jobs,
// moving their current team to their first other team when it was this
// one.
func (db *DB) RemoveMember(ctx context.Context, email string, teamID int64) (pipeline.Member, error) {
	var out pipeline.Member
	err := db.w.bun.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		u, team, old, err := db.membershipForChange(ctx, tx, email, teamID)
		if err != nil {
			return err
		}
		if err := keepsOwner(ctx, tx, team, u.ID, old, ""); err != nil {
			return err
		}
		var other int64
		err = tx.NewSelect().Table("memberships").ColumnExpr("min(team_id)").
			Where("user_id = ? AND team_id <> ?", u.ID, team.ID).Scan(ctx, &other)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if other == 0 {
			return pipeline.ErrOnlyTeam(u.Email)
		}
		stmts := []struct {
			q    string
			args []any
		}{
			{"DELETE FROM job_assignees WHERE user_id = ? AND job_id IN (SELECT id FROM jobs WHERE team_id = ?)", args(u.ID, team.ID)},
			{"DELETE FROM memberships WHERE user_id = ? AND team_id = ?", args(u.ID, team.ID)},
			{"UPDATE users SET current_team_id = ? WHERE id = ? AND current_team_id = ?", args(other, u.ID, team.ID)},
		}
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s.q, s.args...); err != nil {
				return err
			}
		}
		out, err = member(ctx, tx, u.ID)
		return err
	})
	return out, err
}
