package pipelinestore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/migrate"
)

// migrations holds the schema, one folder per dialect because the SQL
// differs (identity columns, timestamptz, jsonb, bytea).
//
//go:embed migrations
var migrations embed.FS

// Migrate applies the pending migrations; with none pending it changes
// nothing. On PostgreSQL concurrent migrations of the same schema (several
// servers starting at once) are serialized by an advisory lock, and run
// without the statement timeout of WithStatementTimeout, which waiting for
// that lock or building an index may rightly exceed.
func (db *DB) Migrate(ctx context.Context) error {
	sub, err := fs.Sub(migrations, "migrations/"+db.dialect)
	if err != nil {
		return err
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(sub); err != nil {
		return err
	}
	b := db.w.bun
	if db.migrateDSN != "" {
		connector, err := pgConnector(db.migrateDSN)
		if err != nil {
			return err
		}
		b = bun.NewDB(sql.OpenDB(connector), pgdialect.New())
		defer b.Close()
		for _, h := range db.w.hooks {
			b.AddQueryHook(h)
		}
	}
	m := migrate.NewMigrator(b, ms, migrate.WithMarkAppliedOnSuccess(true))

	if db.dialect == DialectPostgres {
		conn, err := b.Conn(ctx)
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
	return nil
}
