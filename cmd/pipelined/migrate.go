package main

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// appliedMigration is an applied migration as migrate and migrate status
// print it.
type appliedMigration struct {
	Name      string    `json:"name"`
	AppliedAt time.Time `json:"applied_at"`
}

// pendingMigration is a pending migration as migrate status prints it.
type pendingMigration struct {
	Name string `json:"name"`
}

func appliedJSON(ms []pipelinestore.Migration) []appliedMigration {
	out := make([]appliedMigration, 0, len(ms))
	for _, m := range ms {
		out = append(out, appliedMigration{Name: m.Name, AppliedAt: timestamp(m.AppliedAt)})
	}
	return out
}

func pendingJSON(ms []pipelinestore.Migration) []pendingMigration {
	out := make([]pendingMigration, 0, len(ms))
	for _, m := range ms {
		out = append(out, pendingMigration{Name: m.Name})
	}
	return out
}

// runMigrate applies the pending migrations, whatever
// PIPELINE_AUTO_MIGRATE says.
func runMigrate(ctx context.Context, e env, args []string) (err error) {
	fs := newFlagSet(e)
	withDB(&e, fs)
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(e, fs, "migrate takes no arguments")
	}
	db, _, err := openStore(ctx, e.cfg, migrates)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, db.Close()) }()
	applied, err := db.ApplyMigrations(ctx)
	if err != nil {
		return err
	}
	return json.NewEncoder(e.stdout).Encode(map[string]any{"dialect": db.Dialect(), "applied": appliedJSON(applied)})
}

// runMigrateStatus prints the applied and pending migrations. It only
// reads: it creates no SQLite file, and reports a schema that is behind
// rather than refusing it.
func runMigrateStatus(ctx context.Context, e env, args []string) (err error) {
	fs := newFlagSet(e)
	withDB(&e, fs)
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(e, fs, "migrate status takes no arguments")
	}
	if err := sqliteExists(e.cfg.DB); err != nil {
		return err
	}
	db, _, err := openStore(ctx, e.cfg, migrates)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, db.Close()) }()
	st, err := db.MigrationStatus(ctx)
	if err != nil {
		return err
	}
	return json.NewEncoder(e.stdout).Encode(map[string]any{
		"dialect": db.Dialect(), "current": st.Current(),
		"applied": appliedJSON(st.Applied), "pending": pendingJSON(st.Pending),
	})
}
