package pipelinestore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

func TestStore_Idempotency(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := seeded(t, db)
		ctx := context.Background()
		acme, globex := f.Res.Teams["acme"], f.Res.Teams["globex"]
		t0 := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
		write := func(fn func(tx pipeline.Tx) error) {
			t.Helper()
			require.NoError(t, db.Write(ctx, fn))
		}
		record := func(team int64, key string, since time.Time) *pipeline.IdempotencyRecord {
			t.Helper()
			var rec *pipeline.IdempotencyRecord
			write(func(tx pipeline.Tx) error {
				ok, r, err := tx.Idempotency().Claim(ctx, pipeline.ClaimKeyParams{TeamID: team, Key: key, Since: since}).Outcome(ctx)
				assert.True(t, ok, "the key is free")
				rec = r
				return err
			})
			return rec
		}

		first := pipeline.IdempotencyRecord{
			TeamID: acme, Key: "k-1", UserID: f.User("olivia"), Request: "POST /a {}",
			Result: []byte(`{"ID":1}`), CreatedAt: t0,
		}
		write(func(tx pipeline.Tx) error { return tx.Idempotency().Save(ctx, first) })

		rec := record(acme, "k-1", t0.Add(-pipeline.IdempotencyWindow))
		require.NotNil(t, rec)
		assert.Equal(t, first, *rec)
		assert.Equal(t, first, *record(acme, "k-1", t0), "created at since is still live")
		assert.Nil(t, record(acme, "k-1", t0.Add(time.Microsecond)), "older than since")
		assert.Nil(t, record(globex, "k-1", t0.Add(-time.Hour)), "keys are per team")
		assert.Nil(t, record(acme, "k-2", t0.Add(-time.Hour)))

		// Once expired, the key takes a new record.
		second := first
		second.UserID, second.Request, second.Result = f.User("adam"), "PATCH /b {}", []byte(`{"ID":2}`)
		second.CreatedAt = t0.Add(25 * time.Hour)
		write(func(tx pipeline.Tx) error { return tx.Idempotency().Save(ctx, second) })
		rec = record(acme, "k-1", second.CreatedAt.Add(-pipeline.IdempotencyWindow))
		require.NotNil(t, rec)
		assert.Equal(t, second, *rec)

		other := first
		other.Key, other.CreatedAt = "k-old", t0
		write(func(tx pipeline.Tx) error { return tx.Idempotency().Save(ctx, other) })
		n, err := db.Idempotency().Purge(ctx, t0.Add(time.Hour))
		require.NoError(t, err)
		assert.Equal(t, int64(1), n)
		assert.Nil(t, record(acme, "k-old", t0.Add(-time.Hour)))
		assert.NotNil(t, record(acme, "k-1", t0), "newer records stay")
	})
}

// TestStore_ClaimIdempotencyKey holds a key's lock in one transaction and
// tries it from another: on PostgreSQL the second is refused until the
// first ends; on SQLite transactions are serialized, so the lock is always
// free.
func TestStore_ClaimIdempotencyKey(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := seeded(t, db)
		ctx := context.Background()
		acme := f.Res.Teams["acme"]
		lock := func(team int64, key string) bool {
			t.Helper()
			var ok bool
			require.NoError(t, db.Write(ctx, func(tx pipeline.Tx) error {
				var err error
				ok, _, err = tx.Idempotency().Claim(ctx, pipeline.ClaimKeyParams{TeamID: team, Key: key, Since: time.Time{}}).Outcome(ctx)
				return err
			}))
			return ok
		}
		if db.Dialect() == pipelinestore.DialectSQLite {
			assert.True(t, lock(acme, "k"))
			assert.True(t, lock(acme, "k"))
			return
		}

		held, release, done := make(chan struct{}), make(chan struct{}), make(chan error)
		// Another deployment on the same database, in a schema of its own,
		// with a team of the same id.
		other := storetest.OpenPostgres(t)
		otherTeam := storetest.Seeded(t, other).Res.Teams["acme"]
		require.Equal(t, acme, otherTeam)
		go func() {
			done <- db.Write(ctx, func(tx pipeline.Tx) error {
				ok, _, err := tx.Idempotency().Claim(ctx, pipeline.ClaimKeyParams{TeamID: acme, Key: "k", Since: time.Time{}}).Outcome(ctx)
				if err != nil || !ok {
					close(held)
					return err
				}
				close(held)
				<-release
				return nil
			})
		}()
		<-held
		assert.False(t, lock(acme, "k"), "held by the other transaction")
		assert.True(t, lock(acme, "other key"))
		assert.True(t, lock(f.Res.Teams["globex"], "k"), "keys are per team")
		require.NoError(t, other.Write(ctx, func(tx pipeline.Tx) error {
			ok, _, err := tx.Idempotency().Claim(ctx, pipeline.ClaimKeyParams{TeamID: otherTeam, Key: "k", Since: time.Time{}}).Outcome(ctx)
			assert.True(t, ok, "keys are per schema")
			return err
		}))
		close(release)
		require.NoError(t, <-done)
		assert.True(t, lock(acme, "k"), "released at the end of the transaction")
	})
}
