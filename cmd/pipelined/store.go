package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// access says what a command does to the database, which decides what it
// does about pending migrations.
type access int

const (
	// reads: never migrate (no DDL rights needed); refuse a schema that is
	// behind.
	reads access = iota
	// writes: apply pending migrations when PIPELINE_AUTO_MIGRATE allows,
	// else refuse a schema that is behind.
	writes
	// migrates: leave the schema to the command (migrate, migrate status).
	migrates
)

// openStore opens the configured database with opts and brings it to the
// schema the command needs (see access).
func openStore(ctx context.Context, cfg config, acc access, opts ...pipelinestore.Option) (*pipelinestore.DB, []pipelinestore.Migration, error) {
	db, err := pipelinestore.Open(ctx, cfg.DB, append(opts, pipelinestore.WithMaxConns(cfg.MaxConns))...)
	if err != nil {
		return nil, nil, fmt.Errorf("open database: %w", err)
	}
	applied, err := prepareSchema(ctx, db, cfg, acc)
	if err != nil {
		return nil, nil, errors.Join(err, db.Close())
	}
	return db, applied, nil
}

// prepareSchema checks the schema and, for a writing command allowed to,
// applies what is pending; it returns what it applied.
func prepareSchema(ctx context.Context, db *pipelinestore.DB, cfg config, acc access) ([]pipelinestore.Migration, error) {
	if acc == migrates {
		return nil, nil
	}
	st, err := db.MigrationStatus(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the schema's migrations: %w", err)
	}
	if st.Current() {
		return nil, nil
	}
	if acc == writes && cfg.AutoMigrate {
		applied, err := db.ApplyMigrations(ctx)
		if err != nil {
			return nil, fmt.Errorf("migrate database: %w", err)
		}
		return applied, nil
	}
	why := "PIPELINE_AUTO_MIGRATE is false"
	if acc == reads {
		why = "a command that only reads never migrates"
	}
	return nil, fmt.Errorf("the database schema is behind: %d of %d migrations pending (the first: %s), and %s; run \"pipelined migrate\" first",
		len(st.Pending), len(st.Pending)+len(st.Applied), st.Pending[0].Name, why)
}

// withOperator opens the store for a command of the given access, runs fn
// on an Operator over it and closes the store again.
func withOperator(ctx context.Context, cfg config, acc access, fn func(*pipeline.Operator) error) (err error) {
	db, _, err := openStore(ctx, cfg, acc)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, db.Close()) }()
	return fn(pipeline.NewOperator(db))
}

// parseID reads a positive decimal id given on the command line.
func parseID(raw string) (int64, bool) {
	n, err := strconv.ParseInt(raw, 10, 64)
	return n, err == nil && n > 0 && raw[0] != '+'
}
