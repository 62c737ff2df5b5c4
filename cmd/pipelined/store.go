package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// openStore opens the database named by dsn and applies pending
// migrations, as every command does first.
func openStore(ctx context.Context, dsn string) (*pipelinestore.DB, error) {
	db, err := pipelinestore.Open(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := db.Migrate(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("migrate database: %w", err), db.Close())
	}
	return db, nil
}

// withService opens the store, runs fn on a Service over it and closes the
// store again.
func withService(ctx context.Context, dsn string, fn func(*pipeline.Service) error) (err error) {
	db, err := openStore(ctx, dsn)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, db.Close()) }()
	return fn(pipeline.NewService(db))
}
