package pipeline_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// key is an idempotency key.
func key(k string) *pipeline.Idempotency {
	return &pipeline.Idempotency{Key: k}
}

func TestService_Idempotency(t *testing.T) {
	each(t, "a repeated key replays the result", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		first, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "Once", Idempotency: key("k1")})
		require.NoError(t, err)
		again, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "Once", Idempotency: key("k1")})
		require.NoError(t, err)
		assert.True(t, again.Replayed)
		assert.False(t, first.Replayed)
		assert.Equal(t, first.Value.ID, again.Value.ID)
		assert.Equal(t, first.Value.CreatedAt.Truncate(time.Microsecond), again.Value.CreatedAt.Truncate(time.Microsecond))
		assert.Len(t, w.Activity(t), 1, "the action happened once")
	})
	each(t, "the key is bound to the request", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		_, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "Once", Idempotency: key("k1")})
		require.NoError(t, err)
		_, err = w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "Other", Idempotency: key("k1")})
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Contains(t, pipeline.Fields(err), pipeline.IdempotencyField)
	})
	each(t, "the key is bound to the operation and its input", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		job, ada := w.Job("backend"), w.Res.Candidates["ada"]
		note := func(content string) (pipeline.Result[pipeline.Note], error) {
			return w.Svc.AddNote(ctx, job, ada, pipeline.NewNote{Content: content, Idempotency: &pipeline.Idempotency{Key: "n"}})
		}
		first, err := note("Hello.")
		require.NoError(t, err)
		again, err := note("Hello.")
		require.NoError(t, err)
		assert.True(t, again.Replayed)
		assert.Equal(t, first.Value.ID, again.Value.ID)
		_, err = note("Goodbye.")
		assert.ErrorIs(t, err, pipeline.ErrValidation)
		_, err = w.Svc.RateCandidate(ctx, job, ada, pipeline.NewRating{Value: pipeline.Maybe, Idempotency: &pipeline.Idempotency{Key: "n"}})
		assert.ErrorIs(t, err, pipeline.ErrValidation, "another operation")
		_, err = w.Svc.AddNote(ctx, w.Job("design"), ada, pipeline.NewNote{Content: "Hello.", Idempotency: &pipeline.Idempotency{Key: "n"}})
		assert.ErrorIs(t, err, pipeline.ErrNotFound, "another record, out of reach")
	})
	each(t, "text is bound as sent", func(t *testing.T, w world) {
		// Text that is not UTF-8 is not the replacement character that
		// encoding it as JSON would make of it.
		ctx := w.As(t, "olivia")
		job, ada := w.Job("backend"), w.Res.Candidates["ada"]
		_, err := w.Svc.AddNote(ctx, job, ada, pipeline.NewNote{Content: "\ufffd", Idempotency: key("t")})
		require.NoError(t, err)
		_, err = w.Svc.AddNote(ctx, job, ada, pipeline.NewNote{Content: "\xff", Idempotency: key("t")})
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Contains(t, pipeline.Fields(err), pipeline.IdempotencyField)
	})
	each(t, "the key is bound to the user", func(t *testing.T, w world) {
		_, err := w.Svc.CreateJob(w.As(t, "olivia"), pipeline.NewJob{Title: "Once", Idempotency: key("k1")})
		require.NoError(t, err)
		_, err = w.Svc.CreateJob(w.As(t, "adam"), pipeline.NewJob{Title: "Once", Idempotency: key("k1")})
		assert.ErrorIs(t, err, pipeline.ErrValidation)
	})
	each(t, "keys are scoped to the team", func(t *testing.T, w world) {
		_, err := w.Svc.CreateJob(w.As(t, "olivia"), pipeline.NewJob{Title: "Once", Idempotency: key("k1")})
		require.NoError(t, err)
		res, err := w.Svc.CreateJob(w.As(t, "gary"), pipeline.NewJob{Title: "Once", Idempotency: key("k1")})
		require.NoError(t, err)
		assert.False(t, res.Replayed)
	})
}

// TestService_IdempotencyKeys: which keys a call takes, when it stores one,
// and what comes before the key.
func TestService_IdempotencyKeys(t *testing.T) {
	each(t, "a failed call is not stored", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		_, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "", Idempotency: key("k2")})
		require.ErrorIs(t, err, pipeline.ErrValidation)
		res, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "Fixed", Idempotency: key("k2")})
		require.NoError(t, err, "its key can be retried")
		assert.False(t, res.Replayed)
	})
	for name, k := range map[string]string{"an empty key": "", "a key with a tab": "a\tb", "a key of 256 characters": strings.Repeat("k", 256)} {
		each(t, name, func(t *testing.T, w world) {
			_, err := w.Svc.CreateJob(w.As(t, "olivia"), pipeline.NewJob{Title: "x", Idempotency: key(k)})
			require.ErrorIs(t, err, pipeline.ErrValidation)
			assert.Contains(t, pipeline.Fields(err), pipeline.IdempotencyField)
		})
	}
	each(t, "the record comes first", func(t *testing.T, w world) {
		// A key, valid or not, does not turn a job the caller cannot reach
		// into anything but not found.
		title := "Renamed"
		for _, k := range []string{"", "k1", "fresh"} {
			_, err := w.Svc.UpdateJob(w.As(t, "mia"), w.Job("design"), pipeline.JobPatch{Title: &title, Idempotency: key(k)})
			assert.ErrorIs(t, err, pipeline.ErrNotFound, "key %q", k)
		}
	})
	each(t, "concurrent calls with one key act once", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		var wg sync.WaitGroup
		results := make([]pipeline.Result[pipeline.Job], 20)
		errs := make([]error, len(results))
		for i := range results {
			wg.Go(func() {
				results[i], errs[i] = w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "Raced", Idempotency: key("race")})
			})
		}
		wg.Wait()
		created := 0
		for i, err := range errs {
			switch {
			case err == nil && !results[i].Replayed:
				created++
			case err == nil:
			default:
				assert.ErrorIs(t, err, pipeline.ErrConflict, "every other call is a replay or a conflict")
			}
		}
		assert.Equal(t, 1, created)
		assert.Len(t, w.Activity(t), 1)
	})
}

// TestService_IdempotencyWindow: a key replays for 24 hours, then it is
// forgotten and the same request acts again; the Operator purges expired
// records.
func TestService_IdempotencyWindow(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		now := time.Now().UTC().Truncate(time.Second)
		w := storetest.Seeded(t, db, pipeline.WithClock(pipeline.ClockFunc(func() time.Time { return now })))
		ctx := w.As(t, "olivia")
		create := func() bool {
			t.Helper()
			res, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "Daily", Idempotency: key("daily")})
			require.NoError(t, err)
			return res.Replayed
		}
		require.False(t, create())
		now = now.Add(pipeline.IdempotencyWindow - time.Second)
		require.True(t, create(), "still within 24 hours")
		now = now.Add(2 * time.Second)
		require.False(t, create(), "past 24 hours the key is forgotten and the request acts")
		require.True(t, create(), "and the new result is the one replayed")
		assert.Len(t, w.Activity(t), 2)

		n, err := w.Op.PurgeIdempotency(context.Background())
		require.NoError(t, err)
		assert.Zero(t, n, "the live record stays")
		now = now.Add(pipeline.IdempotencyWindow + time.Second)
		n, err = w.Op.PurgeIdempotency(context.Background())
		require.NoError(t, err)
		assert.EqualValues(t, 1, n, "an expired record is purged")
	})
}
