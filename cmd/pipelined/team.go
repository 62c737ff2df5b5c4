package main

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// teamJSON is a team as the team commands print it. retention_days is
// the period set (0: off); until it takes effect at
// retention_effective_at, retention_days_in_effect is the one before.
type teamJSON struct {
	ID                   int64   `json:"id"`
	Key                  string  `json:"key"`
	Name                 string  `json:"name"`
	JobLimit             *int    `json:"job_limit"`
	RetentionDays        int     `json:"retention_days"`
	RetentionInEffect    int     `json:"retention_days_in_effect"`
	RetentionEffectiveAt *string `json:"retention_effective_at"`
}

func toTeamJSON(now time.Time) func(pipeline.Team) teamJSON {
	return func(t pipeline.Team) teamJSON {
		out := teamJSON{ID: t.ID, Key: t.Key, Name: t.Name, JobLimit: t.JobLimit,
			RetentionDays: t.Retention.Days, RetentionInEffect: t.Retention.At(now)}
		if at := t.Retention.EffectiveAt(now); at != nil {
			s := at.UTC().Format(time.RFC3339)
			out.RetentionEffectiveAt = &s
		}
		return out
	}
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
		return printJSONLines(e.stdout, teams, toTeamJSON(time.Now()))
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
		return json.NewEncoder(e.stdout).Encode(toTeamJSON(time.Now())(created))
	})
}

func runTeamSet(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e)
	withDB(&e, fs)
	key := fs.String("key", "", "the team's key (or id)")
	raw := fs.String("retention-days", "", "days the team keeps the data of candidates it is done with: 30 to 3650, 0 for off")
	if err := parseFlagsOnly(e, fs, args, "key", "retention-days"); err != nil {
		return err
	}
	days, err := strconv.Atoi(*raw)
	if err != nil {
		return usageErrorf(e, fs, "--retention-days %q is not a whole number", *raw)
	}
	return withOperator(ctx, e.cfg, writes, func(op *pipeline.Operator) error {
		team, err := op.TeamByRef(ctx, *key)
		if err != nil {
			return err
		}
		set, err := op.SetRetention(ctx, team.ID, days)
		if err != nil {
			return lineValues(e, err)
		}
		return json.NewEncoder(e.stdout).Encode(toTeamJSON(time.Now())(set))
	})
}
