package pipelinestore

import (
	"context"

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
