package main

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"
)

// schemaPrefix starts the name of every schema a run creates.
const schemaPrefix = "pipelinebench_"

// benchSchema is the fresh schema a run keeps its dataset in.
type benchSchema struct {
	Name string
	DSN  string // the server's DSN with search_path set to the schema
}

// createSchema creates a fresh, empty schema on the server named by dsn.
func createSchema(ctx context.Context, dsn string) (benchSchema, error) {
	name := schemaPrefix + randomHex(8)
	scoped, err := withSearchPath(dsn, name)
	if err != nil {
		return benchSchema{}, err
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return benchSchema{}, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{name}.Sanitize()); err != nil {
		return benchSchema{}, fmt.Errorf("create schema: %w", err)
	}
	return benchSchema{Name: name, DSN: scoped}, nil
}

// drop drops the schema and everything in it. It runs at the end of a run,
// also after an interrupt, so it does not take the run's context.
func (s benchSchema) drop(adminDSN string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, adminDSN)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{s.Name}.Sanitize()+" CASCADE")
	return err
}

// withSearchPath returns dsn with every connection's search_path set to
// schema, as the tests of pipelinestore do: both servers, the seed command
// and the dataset's own connection then work in the schema alone.
func withSearchPath(dsn, schema string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("-db: %w", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), nil
}
