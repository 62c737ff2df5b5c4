package pipelinestore

import (
	"context"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// Role returns the user's role on a team, or not_found if the user is not a
// member.
func (db *DB) Role(ctx context.Context, userID, teamID int64) (pipeline.Role, error) {
	var role string
	err := db.r.NewRaw(`SELECT role FROM memberships WHERE user_id = ? AND team_id = ?`, userID, teamID).Scan(ctx, &role)
	if err != nil {
		return "", formatError(err, "Membership")
	}
	return pipeline.Role(role), nil
}

// UserByEmail returns the user with that email, in any letter case.
func (db *DB) UserByEmail(ctx context.Context, email string) (pipeline.User, error) {
	var r userRow
	err := db.r.NewRaw(`SELECT id, name, email, current_team_id FROM users WHERE lower(email) = lower(?)`, email).Scan(ctx, &r)
	if err != nil {
		return pipeline.User{}, formatError(err, "User")
	}
	return r.toUser(), nil
}
