package pipelinestore

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// userStore is the DB's UserStore.
type userStore struct{ *DB }

// Users reads users and their teams.
func (db *DB) Users() pipeline.UserStore { return userStore{db} }

// Get returns a user and the user's current team, in one query.
func (db userStore) Get(ctx context.Context, p pipeline.UserParams) (pipeline.UserWithTeam, error) {
	var r struct {
		userRow
		TeamName     string `bun:"team_name"`
		TeamJobLimit *int   `bun:"team_job_limit"`
	}
	err := db.read().get(ctx, db.q.UserWithTeam, args(p.ID), &r)
	if err != nil {
		return pipeline.UserWithTeam{}, formatError(err, "User")
	}
	return pipeline.UserWithTeam{User: r.toUser(), Team: pipeline.Team{ID: r.CurrentTeamID, Name: r.TeamName, JobLimit: r.TeamJobLimit}}, nil
}

// ByEmail returns the user with that email, in any letter case.
func (db userStore) ByEmail(ctx context.Context, p pipeline.UserByEmailParams) (pipeline.User, error) {
	var r userRow
	err := db.read().get(ctx, db.q.UserByEmail, args(pipeline.Fold(p.Email)), &r)
	if err != nil {
		return pipeline.User{}, formatError(err, "User")
	}
	return r.toUser(), nil
}

// teamStore is the DB's TeamStore.
type teamStore struct{ *DB }

// Teams reads and creates teams.
func (db *DB) Teams() pipeline.TeamStore { return teamStore{db} }

// List returns every team, by id, with its key.
func (db teamStore) List(ctx context.Context) ([]pipeline.Team, error) {
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

// Create stores a team; a key that exists is a conflict naming it.
func (db teamStore) Create(ctx context.Context, t pipeline.Team) (pipeline.Team, error) {
	r := teamRow{Key: t.Key, Name: t.Name, JobLimit: t.JobLimit}
	if _, err := db.w.bun.NewInsert().Model(&r).Returning("id").Exec(ctx); err != nil {
		return pipeline.Team{}, formatError(err, "Team "+t.Key)
	}
	return r.toTeam(), nil
}

// memberRow is a user with one of their memberships, as members reads
// them.
type memberRow struct {
	userRow
	TeamID  int64  `bun:"team_id"`
	TeamKey string `bun:"team_key"`
	Role    string `bun:"role"`
}

// memberStore is the DB's MemberStore.
type memberStore struct{ *DB }

// Members reads users with their memberships.
func (db *DB) Members() pipeline.MemberStore { return memberStore{db} }

// List returns users by id with their memberships: all users, or those on
// one team.
func (db memberStore) List(ctx context.Context, p pipeline.ListMembersParams) ([]pipeline.Member, error) {
	return members(ctx, db.r.bun, p.TeamID, nil)
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

// Membership primitives of pipeline.Tx (its Teams, Users and Members):
// they read, write and lock; the Operator decides. They run Bun's
// statements on the transaction, after the statements waiting in its
// batch.

// teamTx is a transaction's TeamTx.
type teamTx struct{ *tx }

// Teams locks teams and writes their retention.
func (t *tx) Teams() pipeline.TeamTx { return teamTx{t} }

// userTx is a transaction's UserTx.
type userTx struct{ *tx }

// Users writes users.
func (t *tx) Users() pipeline.UserTx { return userTx{t} }

// memberTx is a transaction's MemberTx.
type memberTx struct{ *tx }

// Members locks users with their memberships and changes the memberships.
func (t *tx) Members() pipeline.MemberTx { return memberTx{t} }

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

// Lock returns a team with its key, its row locked.
func (t teamTx) Lock(ctx context.Context, p pipeline.TeamParams) (pipeline.Team, error) {
	btx, err := t.bunTx(ctx)
	if err != nil {
		return pipeline.Team{}, formatError(err, "Team")
	}
	var r teamRow
	if err := t.forChange(btx.NewSelect().Model(&r).Where("id = ?", p.ID)).Scan(ctx); err != nil {
		return pipeline.Team{}, formatError(err, "Team")
	}
	return r.toTeam(), nil
}

// Lock returns the user with that email, in any letter case, with their
// memberships, the user's row locked.
func (t memberTx) Lock(ctx context.Context, p pipeline.LockMemberParams) (pipeline.Member, error) {
	email := p.Email
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

// Insert stores a user whose current team is TeamID.
func (t userTx) Insert(ctx context.Context, p pipeline.InsertUserParams) (pipeline.User, error) {
	btx, err := t.bunTx(ctx)
	if err != nil {
		return pipeline.User{}, formatError(err, "User")
	}
	u := p.User
	r := userRow{Name: u.Name, Email: u.Email, EmailFold: pipeline.Fold(u.Email), CurrentTeamID: p.TeamID}
	if _, err := btx.NewInsert().Model(&r).Returning("id").Exec(ctx); err != nil {
		return pipeline.User{}, formatError(err, "User "+u.Email)
	}
	return r.toUser(), nil
}

// Insert gives a user a role on a team.
func (t memberTx) Insert(ctx context.Context, p pipeline.MembershipParams) error {
	btx, err := t.bunTx(ctx)
	if err == nil {
		m := membershipRow{UserID: p.UserID, TeamID: p.TeamID, Role: string(p.Role)}
		_, err = btx.NewInsert().Model(&m).Exec(ctx)
	}
	return formatError(err, "Membership")
}

// SetRole changes a user's role on a team.
func (t memberTx) SetRole(ctx context.Context, p pipeline.MembershipParams) error {
	btx, err := t.bunTx(ctx)
	if err == nil {
		_, err = btx.NewUpdate().Table("memberships").Set("role = ?", string(p.Role)).
			Where("user_id = ? AND team_id = ?", p.UserID, p.TeamID).Exec(ctx)
	}
	return formatError(err, "Membership")
}

// CountOwners counts the owners of a team.
func (t memberTx) CountOwners(ctx context.Context, p pipeline.TeamParams) (int, error) {
	btx, err := t.bunTx(ctx)
	if err != nil {
		return 0, formatError(err, "Membership")
	}
	n, err := btx.NewSelect().Table("memberships").
		Where("team_id = ? AND role = ?", p.ID, string(pipeline.RoleOwner)).Count(ctx)
	return int(n), formatError(err, "Membership")
}

// DeleteAssignments ends a user's assignments to the jobs of a team.
func (t memberTx) DeleteAssignments(ctx context.Context, p pipeline.MemberParams) error {
	btx, err := t.bunTx(ctx)
	if err == nil {
		_, err = btx.NewDelete().Table("job_assignees").
			Where("user_id = ? AND job_id IN (SELECT id FROM jobs WHERE team_id = ?)", p.UserID, p.TeamID).Exec(ctx)
	}
	return formatError(err, "Assignment")
}

// Delete ends a user's membership of a team.
func (t memberTx) Delete(ctx context.Context, p pipeline.MemberParams) error {
	btx, err := t.bunTx(ctx)
	if err == nil {
		_, err = btx.NewDelete().Table("memberships").Where("user_id = ? AND team_id = ?", p.UserID, p.TeamID).Exec(ctx)
	}
	return formatError(err, "Membership")
}

// SetCurrentTeam sets a user's current team.
func (t userTx) SetCurrentTeam(ctx context.Context, p pipeline.MemberParams) error {
	btx, err := t.bunTx(ctx)
	if err == nil {
		_, err = btx.NewUpdate().Table("users").Set("current_team_id = ?", p.TeamID).Where("id = ?", p.UserID).Exec(ctx)
	}
	return formatError(err, "User")
}
