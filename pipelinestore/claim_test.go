package pipelinestore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// TestStore_ClaimWithRead: a key's claim waits for the transaction's next
// statement (on PostgreSQL, in its batch), a candidate's locking read or an
// intake's; claim and read each find what they would find alone.
func TestStore_ClaimWithRead(t *testing.T) {
	ctx := context.Background()
	since := time.Now().Add(-pipeline.IdempotencyWindow)
	each(t, "a reachable candidate and a free key", func(t *testing.T, f fixture) {
		job, ada := f.Job("backend"), f.Res.Candidates["ada"]
		interview := f.Res.Stages["backend"]["Interview"]
		require.NoError(t, f.DB.Write(ctx, func(tx pipeline.Tx) error {
			kc := tx.Idempotency().Claim(ctx, pipeline.ClaimKeyParams{TeamID: f.Res.Teams["acme"], Key: "move-1", Since: since})
			l, err := tx.Candidates().Lock(ctx, pipeline.LockCandidateParams{Viewer: f.User("olivia"), JobID: job, ID: ada, Stage: interview})
			require.NoError(t, err)
			c, st := l.Candidate, l.Stage
			assert.Equal(t, "Ada Lovelace", c.Name)
			assert.Equal(t, "Applied", c.Stage)
			require.NotNil(t, st)
			assert.Equal(t, pipeline.Stage{ID: interview, JobID: job, Name: "Interview", Position: 3}, *st)
			free, rec, err := kc.Outcome(ctx)
			assert.True(t, free)
			assert.Nil(t, rec)
			return err
		}))
	})
	each(t, "a job's intake and a free key", func(t *testing.T, f fixture) {
		require.NoError(t, f.DB.Write(ctx, func(tx pipeline.Tx) error {
			kc := tx.Idempotency().Claim(ctx, pipeline.ClaimKeyParams{TeamID: f.Res.Teams["acme"], Key: "intake-1", Since: since})
			it, err := tx.Candidates().Intake(ctx, pipeline.IntakeParams{Viewer: f.User("olivia"), JobID: f.Job("backend"), Stage: 0, Email: "ADA@example.test"})
			require.NoError(t, err)
			assert.Equal(t, f.Job("backend"), it.Job.ID)
			require.NotNil(t, it.Stage)
			assert.Equal(t, "Applied", it.Stage.Name)
			assert.True(t, it.EmailTaken, "in any letter case")
			free, rec, err := kc.Outcome(ctx)
			assert.True(t, free)
			assert.Nil(t, rec)
			return err
		}))
	})
	each(t, "a key with a record", func(t *testing.T, f fixture) {
		stored := pipeline.IdempotencyRecord{
			TeamID: f.Res.Teams["acme"], Key: "note-1", UserID: f.User("olivia"), Request: "POST /x {}",
			Result: []byte(`{"id":7}`), CreatedAt: time.Now().UTC().Truncate(time.Microsecond),
		}
		require.NoError(t, f.DB.Write(ctx, func(tx pipeline.Tx) error { return tx.Idempotency().Save(ctx, stored) }))
		require.NoError(t, f.DB.Write(ctx, func(tx pipeline.Tx) error {
			kc := tx.Idempotency().Claim(ctx, pipeline.ClaimKeyParams{TeamID: stored.TeamID, Key: stored.Key, Since: since})
			c, err := tx.Candidates().Lock(ctx, pipeline.LockCandidateParams{Viewer: f.User("olivia"), JobID: f.Job("backend"), ID: f.Res.Candidates["grace"]})
			require.NoError(t, err)
			assert.Equal(t, f.Res.Candidates["grace"], c.Candidate.ID)
			free, rec, err := kc.Outcome(ctx)
			assert.True(t, free)
			require.NotNil(t, rec)
			assert.Equal(t, stored, *rec)
			return err
		}))
	})
	each(t, "an unreachable candidate", func(t *testing.T, f fixture) {
		require.NoError(t, f.DB.Write(ctx, func(tx pipeline.Tx) error {
			kc := tx.Idempotency().Claim(ctx, pipeline.ClaimKeyParams{TeamID: f.Res.Teams["globex"], Key: "k", Since: since})
			_, err := tx.Candidates().Lock(ctx, pipeline.LockCandidateParams{Viewer: f.User("gary"), JobID: f.Job("backend"), ID: f.Res.Candidates["ada"]})
			assert.ErrorIs(t, err, pipeline.ErrNotFound)
			_, err = tx.Candidates().Lock(ctx, pipeline.LockCandidateParams{Viewer: f.User("gary"), JobID: f.Job("backend"), ID: f.Res.Candidates["ada"], Stage: f.Res.Stages["backend"]["Interview"]})
			assert.ErrorIs(t, err, pipeline.ErrNotFound)
			_, err = tx.Candidates().Intake(ctx, pipeline.IntakeParams{Viewer: f.User("gary"), JobID: f.Job("backend"), Stage: 0, Email: "new@example.test"})
			assert.ErrorIs(t, err, pipeline.ErrNotFound)
			free, rec, err := kc.Outcome(ctx)
			assert.True(t, free, "claimed all the same")
			assert.Nil(t, rec)
			return err
		}))
	})
	each(t, "a key held by another transaction", func(t *testing.T, f fixture) {
		if f.DB.Dialect() == "sqlite" {
			t.Skip("SQLite runs one write transaction at a time: no key is held by another")
		}
		acme := f.Res.Teams["acme"]
		held, release, done := make(chan struct{}), make(chan struct{}), make(chan error)
		go func() {
			done <- f.DB.Write(ctx, func(tx pipeline.Tx) error {
				_, _, err := tx.Idempotency().Claim(ctx, pipeline.ClaimKeyParams{TeamID: acme, Key: "k", Since: since}).Outcome(ctx)
				close(held)
				<-release
				return err
			})
		}()
		<-held
		require.NoError(t, f.DB.Write(ctx, func(tx pipeline.Tx) error {
			kc := tx.Idempotency().Claim(ctx, pipeline.ClaimKeyParams{TeamID: acme, Key: "k", Since: since})
			c, err := tx.Candidates().Lock(ctx, pipeline.LockCandidateParams{Viewer: f.User("olivia"), JobID: f.Job("backend"), ID: f.Res.Candidates["ada"]})
			require.NoError(t, err)
			assert.Equal(t, f.Res.Candidates["ada"], c.Candidate.ID)
			free, _, err := kc.Outcome(ctx)
			assert.False(t, free)
			return err
		}))
		close(release)
		require.NoError(t, <-done)
	})
}
