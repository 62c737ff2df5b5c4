package main

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// teamJSON is a team as the team commands print it.
type teamJSON struct {
	ID       int64  `json:"id"`
	Key      string `json:"key"`
	Name     string `json:"name"`
	JobLimit *int   `json:"job_limit"`
}

func toTeamJSON(t pipeline.Team) teamJSON {
	return teamJSON{ID: t.ID, Key: t.Key, Name: t.Name, JobLimit: t.JobLimit}
}

func runTeamList(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e)
	withDB(&e, fs)
	if err := parseFlagsOnly(e, fs, args); err != nil {
		return err
	}
	return withOperator(ctx, e.cfg, reads, func(op *pipeline.Operator) error {
		teams, err := op.Teams(ctx)
		if err != nil {
			return err
		}
		return printJSONLines(e.stdout, teams, toTeamJSON)
	})
}

func runTeamCreate(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e)
	withDB(&e, fs)
	key := fs.String("key", "", "the team's key: unique, no spaces, not a number")
	name := fs.String("name", "", "the team's name")
	limit := fs.String("job-limit", "", "the plan's limit on jobs that are not closed; empty: none")
	if err := parseFlagsOnly(e, fs, args, "key", "name"); err != nil {
		return err
	}
	t := pipeline.NewTeam{Key: *key, Name: *name}
	if *limit != "" {
		n, err := strconv.Atoi(*limit)
		if err != nil {
			return usageErrorf(e, fs, "--job-limit %q is not a whole number", *limit)
		}
		t.JobLimit = &n
	}
	return withOperator(ctx, e.cfg, writes, func(op *pipeline.Operator) error {
		created, err := op.CreateTeam(ctx, t)
		if err != nil {
			return lineValues(e, err)
		}
		return json.NewEncoder(e.stdout).Encode(toTeamJSON(created))
	})
}
