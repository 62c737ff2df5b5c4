package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// access says what a command leaves to openStore about the schema.
type access int

const (
	// current: bring the schema up to date when PIPELINE_AUTO_MIGRATE
	// allows, else refuse a schema that is behind. A schema already current
	// is only read, so that a role without DDL rights runs the commands
	// that read.
	current access = iota
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

// prepareSchema checks the schema, only reading, and applies what is
// pending when PIPELINE_AUTO_MIGRATE allows (the operator contract: every
// command migrates first); it returns what it applied.
func prepareSchema(ctx context.Context, db *pipelinestore.DB, cfg config, acc access) ([]pipelinestore.Migration, error) {
	if acc == migrates {
		return nil, nil
	}
	if cfg.AutoMigrate {
		// On a current schema it only reads the status.
		applied, err := db.ApplyMigrations(ctx)
		if err != nil {
			return nil, fmt.Errorf("migrate database: %w", err)
		}
		return applied, nil
	}
	st, err := db.MigrationStatus(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the schema's migrations: %w", err)
	}
	if st.Current() {
		return nil, nil
	}
	return nil, fmt.Errorf("the database schema is behind: %d of %d migrations pending (the first: %s), and PIPELINE_AUTO_MIGRATE is false; run \"pipelined migrate\" first",
		len(st.Pending), len(st.Pending)+len(st.Applied), st.Pending[0].Name)
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
