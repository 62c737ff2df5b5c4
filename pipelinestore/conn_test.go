package pipelinestore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestDB_LazyBegin: on PostgreSQL a transaction's BEGIN waits for its first
// statement and goes with it in one round trip; every statement of the
// transaction runs inside it, and a transaction that sent nothing ends
// cleanly.
func TestDB_LazyBegin(t *testing.T) {
	db := storetest.OpenPostgres(t)
	ctx := context.Background()
	const xid = "SELECT txid_current()"
	// The first Write prepares the store's statements on the pool.
	require.NoError(t, db.Write(ctx, func(pipeline.Tx) error { return nil }))
	for name, simple := range map[string]bool{"plain SQL first": true, "prepared statement first": false} {
		t.Run(name, func(t *testing.T) {
			var first, second int64
			before := pipelinestore.RoundTrips(db)
			require.NoError(t, db.Write(ctx, func(tx pipeline.Tx) error {
				if err := pipelinestore.TxGet(ctx, tx, simple, xid, nil, &first); err != nil {
					return err
				}
				return pipelinestore.TxGet(ctx, tx, false, xid, nil, &second)
			}))
			assert.Equal(t, first, second, "one transaction")
			// A statement outside the store's registry is prepared for
			// its transaction: a round trip to prepare, one to run. Plain
			// SQL carries BEGIN; a prepared statement first is prepared
			// in SQL on the connection too (a round trip), then run as
			// BEGIN with EXECUTE.
			want := map[bool]int64{true: 1 + 2 + 1, false: 1 + 1 + 1 + 2 + 1}[simple]
			assert.Equal(t, want, pipelinestore.RoundTrips(db)-before, "round trips")
		})
	}
	t.Run("nothing sent", func(t *testing.T) {
		before := pipelinestore.RoundTrips(db)
		require.NoError(t, db.Write(ctx, func(pipeline.Tx) error { return nil }))
		failed := errors.New("failed")
		require.ErrorIs(t, db.Write(ctx, func(pipeline.Tx) error { return failed }), failed)
		assert.Zero(t, pipelinestore.RoundTrips(db)-before, "no BEGIN, COMMIT or ROLLBACK")
		var x, y int64
		require.NoError(t, db.Write(ctx, func(tx pipeline.Tx) error {
			if err := pipelinestore.TxGet(ctx, tx, true, xid, nil, &x); err != nil {
				return err
			}
			return pipelinestore.TxGet(ctx, tx, true, xid, nil, &y)
		}), "the connections are as good as before")
		assert.Equal(t, x, y)
	})
	t.Run("a failed first statement rolls back", func(t *testing.T) {
		err := db.Write(ctx, func(tx pipeline.Tx) error {
			var n int64
			return pipelinestore.TxGet(ctx, tx, true, "SELECT 1/0", nil, &n)
		})
		require.Error(t, err)
		var x, y int64
		require.NoError(t, db.Write(ctx, func(tx pipeline.Tx) error {
			if err := pipelinestore.TxGet(ctx, tx, true, xid, nil, &x); err != nil {
				return err
			}
			return pipelinestore.TxGet(ctx, tx, false, xid, nil, &y)
		}))
		assert.Equal(t, x, y)
	})
}

// TestDB_LazyBegin_Execute: a transaction's first statement, when
// prepared, goes with BEGIN as an EXECUTE of it; its arguments reach it as
// the driver's binding would pass them: through EXECUTE for the types whose
// text the driver writes as theirs, bound as before for bytes.
func TestDB_LazyBegin_Execute(t *testing.T) {
	db := storetest.OpenPostgres(t)
	ctx := context.Background()
	const xid = "SELECT txid_current()"
	at := time.Date(2026, 11, 26, 8, 30, 1, 123456000, time.UTC)
	const text = `O'Brien \ Zoë $1 '' --`
	for name, c := range map[string]struct {
		query string
		args  []any
		want  string
	}{
		"numbers, text, booleans, times and NULL": {
			`SELECT concat_ws('|', $1::bigint, $2::text, $3::boolean, $4::timestamptz AT TIME ZONE 'UTC', $5::text IS NULL)`,
			[]any{int64(-42), text, true, at, nil},
			"-42|" + text + "|t|2026-11-26 08:30:01.123456|t",
		},
		"bytes": {`SELECT encode($1::bytea, 'escape')`, []any{[]byte("a'b")}, "a'b"},
	} {
		t.Run(name, func(t *testing.T) {
			var got string
			var first, second int64
			require.NoError(t, db.Write(ctx, func(tx pipeline.Tx) error {
				if err := pipelinestore.TxGet(ctx, tx, false, `SELECT txid_current(), (`+c.query+`)`, c.args, &first, &got); err != nil {
					return err
				}
				return pipelinestore.TxGet(ctx, tx, false, xid, nil, &second)
			}))
			assert.Equal(t, c.want, got)
			assert.Equal(t, first, second, "one transaction")
		})
	}
}

// TestDB_PreparedBatch: the writes a transaction sends together go as
// EXECUTEs of statements prepared in SQL on the connection, each planned
// once there, and do what they did as plain SQL.
func TestDB_PreparedBatch(t *testing.T) {
	ctx := context.Background()
	dsn := storetest.PostgresSchemaDSN(t)
	migrating, err := pipelinestore.Open(ctx, dsn)
	require.NoError(t, err)
	require.NoError(t, errors.Join(migrating.Migrate(ctx), migrating.Close()))
	// One connection, so that the statements' names are the ones read.
	db, err := pipelinestore.Open(ctx, dsn, pipelinestore.WithMaxConns(1))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	f := storetest.Seeded(t, db)
	olivia := f.As(t, "olivia")
	job, ada := f.Job("backend"), f.Res.Candidates["ada"]
	for i, stage := range []string{"Screening", "Interview"} {
		res, err := f.Svc.MoveCandidate(olivia, job, ada, pipeline.StageMove{StageID: f.Res.Stages["backend"][stage],
			Idempotency: &pipeline.Idempotency{Key: "move-" + stage}})
		require.NoError(t, err, i)
		assert.Equal(t, stage, res.Value.Stage)
	}
	c, err := f.Svc.Candidate(olivia, job, ada)
	require.NoError(t, err)
	assert.Equal(t, "Interview", c.Stage)

	var prepared string
	require.NoError(t, db.Write(ctx, func(tx pipeline.Tx) error {
		return pipelinestore.TxGet(ctx, tx, true,
			`SELECT string_agg(statement, ' | ') FROM pg_prepared_statements WHERE name LIKE 'pipeline\_%'`, nil, &prepared)
	}))
	for _, stmt := range []string{"UPDATE candidates SET stage_id", "INSERT INTO activity", "INSERT INTO idempotency_keys"} {
		assert.Contains(t, prepared, stmt)
	}
}
