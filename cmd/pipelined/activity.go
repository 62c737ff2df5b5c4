package main

import (
	"context"
	"encoding/json"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// runActivity prints the activity log as JSON lines in commit order.
func runActivity(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e, "activity", "[-db DSN] [--team ID]")
	fs.StringVar(&e.cfg.DB, "db", e.cfg.DB, "database (PIPELINE_DB)")
	team := fs.String("team", "", "only the entries of this team")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(e, fs, "activity takes no arguments")
	}
	var teamID *int64
	if *team != "" {
		id, ok := parseID(*team)
		if !ok {
			return usageErrorf(e, fs, "%q is not a team id", *team)
		}
		teamID = &id
	}
	return withOperator(ctx, e.cfg, func(op *pipeline.Operator) error {
		entries, err := op.ActivityLog(ctx, teamID)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(e.stdout)
		for _, a := range entries {
			a.CreatedAt = timestamp(a.CreatedAt)
			if err := enc.Encode(a); err != nil {
				return err
			}
		}
		return nil
	})
}
