package pipelinestore

import (
	"context"
	"embed"
	"fmt"
	"io/fs"

	"github.com/uptrace/bun/migrate"
)

// migrations holds the schema, one folder per dialect because the SQL
// differs (identity columns, timestamptz, jsonb, bytea).
//
//go:embed migrations
var migrations embed.FS

// Migrate applies the pending migrations, the store's and then those of
// River, the queue of webhook messages; with none pending it changes
// nothing. On PostgreSQL concurrent migrations of the same schema (several
// servers starting at once) are serialized by an advisory lock.
func (db *DB) Migrate(ctx context.Context) error {
	sub, err := fs.Sub(migrations, "migrations/"+db.dialect)
	if err != nil {
		return err
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(sub); err != nil {
		return err
	}
	m := migrate.NewMigrator(db.w.bun, ms, migrate.WithMarkAppliedOnSuccess(true))

	if db.dialect == DialectPostgres {
		conn, err := db.w.bun.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		const key = "hashtext('pipelinestore.migrate:' || current_schema())"
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock("+key+")"); err != nil {
			return err
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock("+key+")") //nolint:errcheck // the session ends with the connection anyway
	}

	if err := m.Init(ctx); err != nil {
		return fmt.Errorf("pipelinestore: migrate: %w", err)
	}
	if _, err := m.Migrate(ctx); err != nil {
		return fmt.Errorf("pipelinestore: migrate: %w", err)
	}
	return db.migrateRiver(ctx)
}
