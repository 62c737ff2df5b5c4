package pipelinestore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/migrate"
)

// migrations holds the schema, one folder per dialect because the SQL
// differs (identity columns, timestamptz, jsonb, bytea).
//
//go:embed migrations
var migrations embed.FS

// Migration is one migration of the schema; AppliedAt is zero while it is
// pending.
type Migration struct {
	Name      string    // its timestamp and title, e.g. "20260101000000_init"
	AppliedAt time.Time // when it was applied, in UTC
}

// MigrationStatus is how the database's schema stands against the
// migrations this package embeds.
type MigrationStatus struct {
	Applied []Migration // in the order they apply
	Pending []Migration // not applied yet, in the order they will apply
}

// Current reports whether no migration is pending.
func (s MigrationStatus) Current() bool { return len(s.Pending) == 0 }

// migrator returns a migrator, on b, of the embedded migrations of the
// database's dialect, and those migrations.
func (db *DB) migrator(b *bun.DB) (*migrate.Migrator, *migrate.Migrations, error) {
	sub, err := fs.Sub(migrations, "migrations/"+db.dialect)
	if err != nil {
		return nil, nil, err
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(sub); err != nil {
		return nil, nil, err
	}
	return migrate.NewMigrator(b, ms, migrate.WithMarkAppliedOnSuccess(true)), ms, nil
}

// MigrationStatus reads which migrations the database has applied. It only
// reads, so a role without DDL rights may call it; a database that was
// never migrated has every migration pending. Migrations the database has
// and this package does not know (a newer version applied them) are left
// out. Like migrating, it runs without the statement timeout of
// WithStatementTimeout.
func (db *DB) MigrationStatus(ctx context.Context) (MigrationStatus, error) {
	var st MigrationStatus
	err := db.onOperatorDB(func(b *bun.DB) (err error) {
		st, err = db.migrationStatus(ctx, b)
		return err
	})
	return st, err
}

// migrationStatus is MigrationStatus read on b.
func (db *DB) migrationStatus(ctx context.Context, b *bun.DB) (MigrationStatus, error) {
	m, all, err := db.migrator(b)
	if err != nil {
		return MigrationStatus{}, err
	}
	var ms migrate.MigrationSlice
	if ok, err := db.migrationTableExists(ctx, b); err != nil {
		return MigrationStatus{}, fmt.Errorf("pipelinestore: migration status: %w", err)
	} else if ok {
		if ms, err = m.MigrationsWithStatus(ctx); err != nil {
			return MigrationStatus{}, fmt.Errorf("pipelinestore: migration status: %w", err)
		}
	} else {
		ms = all.Sorted()
	}
	var st MigrationStatus
	for _, x := range ms {
		name := x.Name + "_" + x.Comment
		if x.IsApplied() {
			st.Applied = append(st.Applied, Migration{Name: name, AppliedAt: x.MigratedAt.UTC()})
		} else {
			st.Pending = append(st.Pending, Migration{Name: name})
		}
	}
	river, err := db.riverStatus(ctx, b.DB)
	if err != nil {
		return MigrationStatus{}, fmt.Errorf("pipelinestore: migration status: %w", err)
	}
	st.Applied = append(st.Applied, river.Applied...)
	st.Pending = append(st.Pending, river.Pending...)
	return st, nil
}

// migrationTableExists reports whether the table of applied migrations
// exists, without touching it.
func (db *DB) migrationTableExists(ctx context.Context, b *bun.DB) (bool, error) {
	q := `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'bun_migrations'`
	if db.dialect == DialectPostgres {
		q = `SELECT count(*) FROM (SELECT to_regclass('bun_migrations') AS t) AS r WHERE t IS NOT NULL`
	}
	var n int
	err := b.QueryRowContext(ctx, q).Scan(&n)
	return n > 0, err
}

// Migrate applies the pending migrations, the store's and then those of
// River, the queue of webhook messages; with none pending it changes
// nothing and needs no DDL rights (see ApplyMigrations).
func (db *DB) Migrate(ctx context.Context) error {
	_, err := db.ApplyMigrations(ctx)
	return err
}

// ApplyMigrations applies the pending migrations and returns them. With
// none pending it only reads the status, so a role without DDL rights may
// call it. On PostgreSQL concurrent migrations of the same schema (several
// servers starting at once) are serialized by an advisory lock held by a
// transaction (see lockMigrations), so migrating works the same directly
// and through a transaction pooler such as PgBouncer; migrations run
// without the statement timeout of WithStatementTimeout, which waiting for
// that lock or building an index may rightly exceed.
func (db *DB) ApplyMigrations(ctx context.Context) ([]Migration, error) {
	var applied []Migration
	err := db.onOperatorDB(func(b *bun.DB) (err error) {
		applied, err = db.applyMigrations(ctx, b)
		return err
	})
	return applied, err
}

// lockMigrations takes the lock that serializes migrations of the schema
// and returns what releases it. The lock belongs to a transaction that
// stays open on a connection of its own until then, not to a session: a
// transaction pooler lends that transaction one server connection for
// its whole life, where a session lock would stay behind on whichever
// server connection took it. b's pool needs a second connection for the
// migrations themselves.
func lockMigrations(ctx context.Context, b *bun.DB) (release func(), err error) {
	lock, err := b.DB.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	if _, err := lock.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext('pipelinestore.migrate:' || current_schema()))"); err != nil {
		_ = lock.Rollback()
		return nil, err
	}
	return func() { _ = lock.Rollback() }, nil
}

// applyMigrations is ApplyMigrations on b.
func (db *DB) applyMigrations(ctx context.Context, b *bun.DB) ([]Migration, error) {
	st, err := db.migrationStatus(ctx, b)
	if err != nil || st.Current() {
		return nil, err
	}
	m, _, err := db.migrator(b)
	if err != nil {
		return nil, err
	}
	if db.dialect == DialectPostgres {
		release, err := lockMigrations(ctx, b)
		if err != nil {
			return nil, err
		}
		defer release()
	}
	if err := m.Init(ctx); err != nil {
		return nil, fmt.Errorf("pipelinestore: migrate: %w", err)
	}
	if _, err := m.Migrate(ctx); err != nil {
		return nil, fmt.Errorf("pipelinestore: migrate: %w", err)
	}
	if err := db.migrateRiver(ctx, b.DB); err != nil {
		return nil, err
	}
	if slices.ContainsFunc(st.Pending, func(p Migration) bool { return p.Name == userEmailFoldMigration }) {
		if err := refoldUserEmails(ctx, b); err != nil {
			return nil, err
		}
	}
	after, err := db.migrationStatus(ctx, b)
	if err != nil {
		return nil, err
	}
	// What was pending before, as applied now; another process may have
	// applied some of it while this one waited for the lock.
	var applied []Migration
	for _, x := range after.Applied {
		if slices.ContainsFunc(st.Pending, func(p Migration) bool { return p.Name == x.Name }) {
			applied = append(applied, x)
		}
	}
	return applied, nil
}

// onOperatorDB runs fn on the database the operator's work runs on: a pool
// of its own without the statement timeout, closed when fn returns; the
// pool given with WithSQLDB, or SQLite's writer.
func (db *DB) onOperatorDB(fn func(b *bun.DB) error) error {
	if db.dsn == "" {
		return fn(db.w.bun)
	}
	connector, err := pgConnector(db.dsn, nil, false, db.roundTrips)
	if err != nil {
		return err
	}
	b := bun.NewDB(sql.OpenDB(connector), pgdialect.New())
	defer b.Close()
	for _, h := range db.w.hooks {
		b.AddQueryHook(h)
	}
	return fn(b)
}

// operatorTx runs fn in a transaction on the operator's database (see
// onOperatorDB), with a runner of the store's statements in it; Bun's
// statements run on its tx.
func (db *DB) operatorTx(ctx context.Context, fn func(ctx context.Context, run runner) error) error {
	return db.onOperatorDB(func(b *bun.DB) error {
		p := db.w
		if b != p.bun {
			// The statements are sent as text there (see pgConnector), so
			// the pool needs no statements of its own.
			p = &pool{bun: b, pg: p.pg, q: p.q, hooks: p.hooks}
		}
		return b.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			return fn(ctx, runner{p: p, tx: &tx})
		})
	})
}

// userEmailFoldMigration is the migration after which refoldUserEmails
// runs, once.
const userEmailFoldMigration = "20261204000000_user_email_fold"

// refoldUserEmails stores each user's email folded as pipeline.Fold folds
// it where SQL's lower() folded it otherwise (see the user_email_fold
// migration). Two users whose emails are one in any letter case, which
// SQLite let in before, stop the migration with a unique violation.
func refoldUserEmails(ctx context.Context, b *bun.DB) error {
	var users []userRow
	if err := b.NewSelect().Model(&users).Column("id", "email", "email_fold").Scan(ctx); err != nil {
		return fmt.Errorf("pipelinestore: migrate: read users: %w", err)
	}
	for _, u := range users {
		if fold := pipeline.Fold(u.Email); fold != u.EmailFold {
			if _, err := b.NewUpdate().Model((*userRow)(nil)).Set("email_fold = ?", fold).Where("id = ?", u.ID).Exec(ctx); err != nil {
				return fmt.Errorf("pipelinestore: migrate: user %d's email %q is another user's in another letter case: %w", u.ID, u.Email, err)
			}
		}
	}
	return nil
}
