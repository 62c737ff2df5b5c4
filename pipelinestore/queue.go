package pipelinestore

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// Webhook messages are River jobs: River owns its tables (migrated by
// Migrate), and a message is inserted with InsertTx inside the transaction
// of the write that logs its entry, so it exists exactly when the write
// committed. On PostgreSQL River runs on the store's own database/sql pool
// (riverdatabasesql); on SQLite on the one writer connection
// (riversqlite), where its statements queue with the API's writes.

// deliveryQueue is the River queue of webhook messages.
const deliveryQueue = "webhooks"

// deliveryArgs is a message as a River job's arguments.
type deliveryArgs struct {
	pipeline.WebhookMessage
}

// Kind names the job kind.
func (deliveryArgs) Kind() string { return "pipeline_webhook_delivery" }

// InsertOpts puts messages on their queue with the contract's number of
// attempts.
func (deliveryArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: deliveryQueue, MaxAttempts: pipeline.MaxDeliveryAttempts}
}

// riverDriver is River's driver on the pool that runs writes.
func (db *DB) riverDriver() riverdriver.Driver[*sql.Tx] { return db.riverDriverOn(db.w.bun.DB) }

// riverDriverOn is River's driver on the pool sqldb of the database.
func (db *DB) riverDriverOn(sqldb *sql.DB) riverdriver.Driver[*sql.Tx] {
	if db.dialect == DialectPostgres {
		return riverdatabasesql.New(sqldb)
	}
	return riversqlite.New(sqldb)
}

// quiet is the logger of River's insert-only client and migrator: they
// would otherwise log to stdout, which commands print their results on.
var quiet = slog.New(slog.DiscardHandler)

// newInserter returns the insert-only River client of the store.
func (db *DB) newInserter() (*river.Client[*sql.Tx], error) {
	c, err := river.NewClient(db.riverDriver(), &river.Config{Logger: quiet})
	if err != nil {
		return nil, fmt.Errorf("pipelinestore: River client: %w", err)
	}
	return c, nil
}

// riverStatus is how River's migrations stand, named "river_<version>_<name>";
// it only reads.
func (db *DB) riverStatus(ctx context.Context, sqldb *sql.DB) (MigrationStatus, error) {
	m, err := rivermigrate.New(db.riverDriverOn(sqldb), &rivermigrate.Config{Logger: quiet})
	if err != nil {
		return MigrationStatus{}, err
	}
	existing, err := m.ExistingVersions(ctx)
	if err != nil {
		return MigrationStatus{}, err
	}
	applied := map[int]bool{}
	for _, v := range existing {
		applied[v.Version] = true
	}
	var st MigrationStatus
	for _, v := range m.AllVersions() {
		x := Migration{Name: fmt.Sprintf("river_%03d_%s", v.Version, v.Name)}
		if applied[v.Version] {
			st.Applied = append(st.Applied, x)
		} else {
			st.Pending = append(st.Pending, x)
		}
	}
	return st, nil
}

// migrateRiver applies River's own migrations.
func (db *DB) migrateRiver(ctx context.Context, sqldb *sql.DB) error {
	m, err := rivermigrate.New(db.riverDriverOn(sqldb), &rivermigrate.Config{Logger: quiet})
	if err != nil {
		return err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("pipelinestore: migrate River: %w", err)
	}
	return nil
}

// enqueuePending inserts the messages of the entries logged so far, and
// the River jobs the transaction left for the end (see tx.jobs), with
// River's own insert after the writes waiting in the batch, which River's
// statements must follow. On PostgreSQL it is the write's last statement.
func (t *tx) enqueuePending(ctx context.Context) error {
	if err := t.run.flush(ctx); err != nil || len(t.pending)+len(t.jobs) == 0 {
		return err
	}
	params := t.jobs
	for _, m := range t.pending {
		params = append(params, river.InsertManyParams{Args: deliveryArgs{m}})
	}
	t.pending, t.jobs = nil, nil
	// Nothing reads the inserted jobs back, so River's insert without
	// RETURNING does.
	_, err := t.river.InsertManyFastTx(ctx, t.run.tx.Tx, params)
	return err
}
