package pipeline_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// keyedWrite is one write of the Service called with an idempotency key:
// variant picks one of two different requests.
type keyedWrite struct {
	name string
	call func(ctx context.Context, w world, idem *pipeline.Idempotency, variant int) (value any, replayed bool, err error)
}

// result spreads a write's result for keyedWrite.
func result[T any](r pipeline.Result[T], err error) (any, bool, error) {
	return r.Value, r.Replayed, err
}

// keyedWritesOf are the writes of the Service that take an input, on
// records olivia reaches.
func keyedWritesOf() []keyedWrite {
	titles := []string{"First title", "Second title"}
	stages := []string{"Interview", "Offer"}
	ratings := []pipeline.RatingValue{pipeline.GoodFit, pipeline.NotAFit}
	return []keyedWrite{
		{"create job", func(ctx context.Context, w world, idem *pipeline.Idempotency, v int) (any, bool, error) {
			return result(w.Svc.CreateJob(ctx, pipeline.NewJob{Title: titles[v], Idempotency: idem}))
		}},
		{"update job", func(ctx context.Context, w world, idem *pipeline.Idempotency, v int) (any, bool, error) {
			return result(w.Svc.UpdateJob(ctx, w.Job("backend"), pipeline.JobPatch{Title: &titles[v], Idempotency: idem}))
		}},
		{"move candidate", func(ctx context.Context, w world, idem *pipeline.Idempotency, v int) (any, bool, error) {
			return result(w.Svc.MoveCandidate(ctx, w.Job("backend"), w.Res.Candidates["ada"],
				pipeline.CandidateMove{StageID: w.Res.Stages["backend"][stages[v]], Idempotency: idem}))
		}},
		{"add note", func(ctx context.Context, w world, idem *pipeline.Idempotency, v int) (any, bool, error) {
			return result(w.Svc.AddNote(ctx, w.Job("backend"), w.Res.Candidates["ada"], pipeline.NewNote{Content: titles[v], Idempotency: idem}))
		}},
		{"rate candidate", func(ctx context.Context, w world, idem *pipeline.Idempotency, v int) (any, bool, error) {
			return result(w.Svc.RateCandidate(ctx, w.Job("backend"), w.Res.Candidates["ada"], pipeline.NewRating{Value: ratings[v], Idempotency: idem}))
		}},
		{"create webhook", func(ctx context.Context, w world, idem *pipeline.Idempotency, v int) (any, bool, error) {
			return result(w.Svc.CreateWebhook(ctx, pipeline.NewWebhook{URL: "https://hooks.example.test/" + titles[v][:5], Idempotency: idem}))
		}},
		{"create tag", func(ctx context.Context, w world, idem *pipeline.Idempotency, v int) (any, bool, error) {
			return result(w.Svc.CreateTag(ctx, pipeline.NewTag{Name: titles[v], Idempotency: idem}))
		}},
		{"send message", func(ctx context.Context, w world, idem *pipeline.Idempotency, v int) (any, bool, error) {
			return result(w.Svc.SendMessage(ctx, w.Job("backend"), w.Res.Candidates["ada"], pipeline.NewMessage{Subject: titles[v], Body: "Hello.", Idempotency: idem}))
		}},
	}
}

// TestService_ReplayEveryWrite: each write replays its stored result for
// its key, refuses the key for another request or another user, and acts
// once.
func TestService_ReplayEveryWrite(t *testing.T) {
	eachWorld(t, "each write", func(t *testing.T, w world) {
		for _, kw := range keyedWritesOf() {
			t.Run(kw.name, func(t *testing.T) {
				ctx := w.As(t, "olivia")
				idem := func() *pipeline.Idempotency { return &pipeline.Idempotency{Key: "once-" + kw.name} }
				before := len(w.Activity(t))
				first, replayed, err := kw.call(ctx, w, idem(), 0)
				require.NoError(t, err)
				assert.False(t, replayed)
				require.Len(t, w.Activity(t), before+1)
				for range 2 {
					again, replayed, err := kw.call(ctx, w, idem(), 0)
					require.NoError(t, err)
					assert.True(t, replayed)
					assert.Equal(t, first, again, "the stored result")
				}
				_, _, err = kw.call(ctx, w, idem(), 1)
				require.ErrorIs(t, err, pipeline.ErrValidation, "another request")
				assert.Equal(t, []string{pipeline.IdempotencyField}, fieldNames(err))
				_, _, err = kw.call(w.As(t, "adam"), w, idem(), 0)
				require.ErrorIs(t, err, pipeline.ErrValidation, "another user of the team")
				assert.Equal(t, []string{pipeline.IdempotencyField}, fieldNames(err))
				assert.Len(t, w.Activity(t), before+1, "the write acted once")
				_, replayed, err = kw.call(ctx, w, &pipeline.Idempotency{Key: "fresh-" + kw.name}, 1)
				require.NoError(t, err, "another key acts")
				assert.False(t, replayed)
			})
		}
	})
}

// TestService_ReplayRules: what a replay does and does not do.
func TestService_ReplayRules(t *testing.T) {
	eachWorld(t, "a replay does not act again, even on a record changed since", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		job := w.Job("backend")
		keyed := func() pipeline.JobPatch {
			return pipeline.JobPatch{Title: new("Keyed title"), Idempotency: &pipeline.Idempotency{Key: "rename"}}
		}
		_, err := w.Svc.UpdateJob(ctx, job, keyed())
		require.NoError(t, err)
		_, err = w.Svc.UpdateJob(ctx, job, pipeline.JobPatch{Title: new("Later title")})
		require.NoError(t, err)
		res, err := w.Svc.UpdateJob(ctx, job, keyed())
		require.NoError(t, err)
		assert.True(t, res.Replayed)
		assert.Equal(t, "Keyed title", res.Value.Title, "what the first call returned")
		j, err := w.Svc.GetJob(ctx, job)
		require.NoError(t, err)
		assert.Equal(t, "Later title", j.Title, "the job is left as it is")
		assert.Len(t, w.Activity(t), 2)
	})
	eachWorld(t, "an unchanged write is stored and replayed too", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		move := func() (pipeline.Result[pipeline.Candidate], error) {
			return w.Svc.MoveCandidate(ctx, w.Job("backend"), w.Res.Candidates["grace"], pipeline.CandidateMove{
				StageID: w.Res.Stages["backend"]["Screening"], Idempotency: &pipeline.Idempotency{Key: "stay"}})
		}
		first, err := move()
		require.NoError(t, err)
		assert.False(t, first.Replayed)
		again, err := move()
		require.NoError(t, err)
		assert.True(t, again.Replayed)
		assert.Equal(t, first.Value, again.Value)
		assert.Empty(t, w.Activity(t))
	})
	eachWorld(t, "a refused write leaves its key free", func(t *testing.T, w world) {
		fillToLimit(t, w, acmeActiveJobs)
		ctx := w.As(t, "olivia")
		create := func() (pipeline.Result[pipeline.Job], error) {
			return w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "Waiting", Idempotency: &pipeline.Idempotency{Key: "wait"}})
		}
		_, err := create()
		require.ErrorIs(t, err, pipeline.ErrForbidden)
		closed := pipeline.JobClosed
		_, err = w.Svc.UpdateJob(ctx, w.Job("design"), pipeline.JobPatch{Status: &closed})
		require.NoError(t, err)
		res, err := create()
		require.NoError(t, err, "the forbidden answer was not stored")
		assert.False(t, res.Replayed)
	})
	eachClockedWorld(t, "after 24 hours a key is free for any request", func(t *testing.T, w world, clock *time.Time) {
		ctx := w.As(t, "mia")
		job, ada := w.Job("backend"), w.Res.Candidates["ada"]
		note := func(content string) (pipeline.Result[pipeline.Note], error) {
			return w.Svc.AddNote(ctx, job, ada, pipeline.NewNote{Content: content, Idempotency: &pipeline.Idempotency{Key: "daily-note"}})
		}
		first, err := note("Monday")
		require.NoError(t, err)
		*clock = clock.Add(pipeline.IdempotencyWindow - time.Second)
		again, err := note("Monday")
		require.NoError(t, err)
		assert.True(t, again.Replayed, "within 24 hours")
		assert.Equal(t, first.Value.ID, again.Value.ID)
		_, err = note("Tuesday")
		assert.ErrorIs(t, err, pipeline.ErrValidation)
		*clock = clock.Add(2 * time.Second)
		other, err := note("Tuesday")
		require.NoError(t, err, "an expired key binds nothing")
		assert.False(t, other.Replayed)
		assert.NotEqual(t, first.Value.ID, other.Value.ID)
		c, err := w.Svc.GetCandidate(ctx, job, ada)
		require.NoError(t, err)
		assert.Equal(t, 2, c.NotesCount)
		_, err = w.Svc.AddNote(w.As(t, "olivia"), job, ada, pipeline.NewNote{Content: "Tuesday", Idempotency: &pipeline.Idempotency{Key: "daily-note"}})
		assert.ErrorIs(t, err, pipeline.ErrValidation, "and the new request holds the key")
	})
}
