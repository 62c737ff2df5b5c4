package pipelinestore

import (
	"context"

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
	err := db.read().get(ctx, db.q.UserWithTeam, args(userID), &r)
	if err != nil {
		return pipeline.User{}, pipeline.Team{}, formatError(err, "User")
	}
	return r.toUser(), pipeline.Team{ID: r.CurrentTeamID, Name: r.TeamName, JobLimit: r.TeamJobLimit}, nil
}

// UserByEmail returns the user with that email, in any letter case.
func (db *DB) UserByEmail(ctx context.Context, email string) (pipeline.User, error) {
	var r userRow
	err := db.read().get(ctx, db.q.UserByEmail, args(pipeline.Fold(email)), &r)
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

// Membership primitives of pipeline.Tx: they read, write and lock; the
// Operator decides. They run Bun's statements on the transaction, after
// the statements waiting in its batch.

// bunTx returns the transaction, the statements waiting in its batch sent.
func (t *tx) bunTx(ctx context.Context) (bun.Tx, error) {
	if err := t.run.flush(ctx); err != nil {
		return bun.Tx{}, err
	}
	return *t.run.tx, nil
}

// forChange makes q lock the rows it reads, on PostgreSQL, as t.lock does;
// SQLite's one writer serializes the transactions anyway.
func (t *tx) forChange(q *bun.SelectQuery) *bun.SelectQuery {
	if t.pg {
		return q.For("NO KEY UPDATE")
	}
	return q
}

// TeamForMembers returns a team with its key, its row locked.
func (t *tx) TeamForMembers(ctx context.Context, teamID int64) (pipeline.Team, error) {
	btx, err := t.bunTx(ctx)
	if err != nil {
		return pipeline.Team{}, formatError(err, "Team")
	}
	var r teamRow
	if err := t.forChange(btx.NewSelect().Model(&r).Where("id = ?", teamID)).Scan(ctx); err != nil {
		return pipeline.Team{}, formatError(err, "Team")
	}
	return r.toTeam(), nil
}

// MemberForChange returns the user with that email, in any letter case,
// with their memberships, the user's row locked.
func (t *tx) MemberForChange(ctx context.Context, email string) (pipeline.Member, error) {
	btx, err := t.bunTx(ctx)
	if err != nil {
		return pipeline.Member{}, formatError(err, "User")
	}
	var u userRow
	if err := t.forChange(btx.NewSelect().Model(&u).Where("email_fold = ?", pipeline.Fold(email))).Scan(ctx); err != nil {
		return pipeline.Member{}, formatError(err, "User "+email)
	}
	ms, err := members(ctx, btx, nil, &u.ID)
	if err != nil {
		return pipeline.Member{}, err
	}
	if len(ms) == 0 { // a user always has a team; tolerated all the same
		return pipeline.Member{User: u.toUser(), CurrentTeamID: u.CurrentTeamID}, nil
	}
	return ms[0], nil
}

// InsertUser stores a user whose current team is teamID.
func (t *tx) InsertUser(ctx context.Context, u pipeline.User, teamID int64) (pipeline.User, error) {
	btx, err := t.bunTx(ctx)
	if err != nil {
		return pipeline.User{}, formatError(err, "User")
	}
	r := userRow{Name: u.Name, Email: u.Email, EmailFold: pipeline.Fold(u.Email), CurrentTeamID: teamID}
	if _, err := btx.NewInsert().Model(&r).Returning("id").Exec(ctx); err != nil {
		return pipeline.User{}, formatError(err, "User "+u.Email)
	}
	return r.toUser(), nil
}

// InsertMembership gives a user a role on a team.
func (t *tx) InsertMembership(ctx context.Context, userID, teamID int64, role pipeline.Role) error {
	btx, err := t.bunTx(ctx)
	if err == nil {
		m := membershipRow{UserID: userID, TeamID: teamID, Role: string(role)}
		_, err = btx.NewInsert().Model(&m).Exec(ctx)
	}
	return formatError(err, "Membership")
}

// UpdateRole changes a user's role on a team.
func (t *tx) UpdateRole(ctx context.Context, userID, teamID int64, role pipeline.Role) error {
	btx, err := t.bunTx(ctx)
	if err == nil {
		_, err = btx.NewUpdate().Table("memberships").Set("role = ?", string(role)).
			Where("user_id = ? AND team_id = ?", userID, teamID).Exec(ctx)
	}
	return formatError(err, "Membership")
}

// CountOwners counts the owners of a team.
func (t *tx) CountOwners(ctx context.Context, teamID int64) (int, error) {
	btx, err := t.bunTx(ctx)
	if err != nil {
		return 0, formatError(err, "Membership")
	}
	n, err := btx.NewSelect().Table("memberships").
		Where("team_id = ? AND role = ?", teamID, string(pipeline.RoleOwner)).Count(ctx)
	return int(n), formatError(err, "Membership")
}

// DeleteAssignments ends a user's assignments to the jobs of a team.
func (t *tx) DeleteAssignments(ctx context.Context, userID, teamID int64) error {
	btx, err := t.bunTx(ctx)
	if err == nil {
		_, err = btx.NewDelete().Table("job_assignees").
			Where("user_id = ? AND job_id IN (SELECT id FROM jobs WHERE team_id = ?)", userID, teamID).Exec(ctx)
	}
	return formatError(err, "Assignment")
}

// DeleteMembership ends a user's membership of a team.
func (t *tx) DeleteMembership(ctx context.Context, userID, teamID int64) error {
	btx, err := t.bunTx(ctx)
	if err == nil {
		_, err = btx.NewDelete().Table("memberships").Where("user_id = ? AND team_id = ?", userID, teamID).Exec(ctx)
	}
	return formatError(err, "Membership")
}

// SetCurrentTeam sets a user's current team.
func (t *tx) SetCurrentTeam(ctx context.Context, userID, teamID int64) error {
	btx, err := t.bunTx(ctx)
	if err == nil {
		_, err = btx.NewUpdate().Table("users").Set("current_team_id = ?", teamID).Where("id = ?", userID).Exec(ctx)
	}
	return formatError(err, "User")
}
