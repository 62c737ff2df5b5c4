package main

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// migration is a migration as migrate and migrate status print it.
type migration struct {
	Name      string     `json:"name"`
	AppliedAt *time.Time `json:"applied_at"`
}

func migrationsJSON(ms []pipelinestore.Migration) []migration {
	out := make([]migration, 0, len(ms))
	for _, m := range ms {
		var at *time.Time
		if !m.AppliedAt.IsZero() {
			t := timestamp(m.AppliedAt)
			at = &t
		}
		out = append(out, migration{Name: m.Name, AppliedAt: at})
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
	return json.NewEncoder(e.stdout).Encode(map[string]any{"dialect": db.Dialect(), "applied": migrationsJSON(applied)})
}

// runMigrateStatus prints the applied and pending migrations; it only
// reads.
func runMigrateStatus(ctx context.Context, e env, args []string) (err error) {
	fs := newFlagSet(e)
	withDB(&e, fs)
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(e, fs, "migrate status takes no arguments")
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
		"applied": migrationsJSON(st.Applied), "pending": migrationsJSON(st.Pending),
	})
}
