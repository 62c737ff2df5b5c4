package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// openStore opens the configured database and applies pending
// migrations, as every command does first.
func openStore(ctx context.Context, cfg config, opts ...pipelinestore.Option) (*pipelinestore.DB, error) {
	db, err := pipelinestore.Open(ctx, cfg.DB, append(opts, pipelinestore.WithMaxConns(cfg.MaxConns))...)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := db.Migrate(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("migrate database: %w", err), db.Close())
	}
	return db, nil
}

// openServed opens the store as the serving commands do: no statement runs
// longer than a request may.
func openServed(ctx context.Context, cfg config) (*pipelinestore.DB, error) {
	return openStore(ctx, cfg, pipelinestore.WithStatementTimeout(cfg.RequestTimeout))
}

// withOperator opens the store, runs fn on an Operator over it and closes
// the store again.
func withOperator(ctx context.Context, cfg config, fn func(*pipeline.Operator) error) (err error) {
	db, err := openStore(ctx, cfg)
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
