package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// access says what a command may do to the schema (decisions §8).
type access int

const (
	// writes: a command that writes brings the schema up to date first
	// when PIPELINE_AUTO_MIGRATE allows, else refuses a schema that is
	// behind. A schema already current is only read.
	writes access = iota
	// reads: a command that only reads never changes the schema, nor
	// creates a SQLite file: it refuses a schema that is behind, whatever
	// PIPELINE_AUTO_MIGRATE says.
	reads
	// migrates: migrate, which leaves the schema to the command.
	migrates
)

// openStore opens the configured database with opts and brings it to the
// schema the command needs (see access); it returns the migrations it
// applied.
func openStore(ctx context.Context, cfg config, acc access, opts ...pipelinestore.Option) (*pipelinestore.DB, []pipelinestore.Migration, error) {
	if acc == reads {
		if err := sqliteExists(cfg.DB); err != nil {
			return nil, nil, err
		}
	}
	opts = append(opts, pipelinestore.WithMaxConns(cfg.MaxConns))
	if cfg.Blobs != nil {
		opts = append(opts, pipelinestore.WithBlobStore(cfg.Blobs))
	}
	if !cfg.Pooled {
		// A direct connection (or a session pooler) keeps prepared
		// statements; behind a transaction pooler nothing may stay on one.
		opts = append(opts, pipelinestore.WithPreparedStatements())
	}
	db, err := pipelinestore.Open(ctx, cfg.DB, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("open database: %w", err)
	}
	applied, err := prepareSchema(ctx, db, cfg, acc)
	if err != nil {
		return nil, nil, errors.Join(err, db.Close())
	}
	return db, applied, nil
}

// sqliteExists refuses a DSN naming a SQLite file that is not there, which
// opening would create.
func sqliteExists(dsn string) error {
	if pipelinestore.IsPostgres(dsn) {
		return nil
	}
	path := strings.TrimPrefix(dsn, "sqlite:")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no SQLite database at %s (PIPELINE_DB or -db); this command only reads and creates none: run \"pipelined migrate\" to create it", path)
	} else if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	return nil
}

// prepareSchema checks the schema, only reading, and applies what is
// pending when the command writes and PIPELINE_AUTO_MIGRATE allows; it
// returns what it applied.
func prepareSchema(ctx context.Context, db *pipelinestore.DB, cfg config, acc access) ([]pipelinestore.Migration, error) {
	if acc == migrates {
		return nil, nil
	}
	if acc == writes && cfg.AutoMigrate {
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
