package pipeline_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// TestService_ConcurrentWrites: writes to one record at once are applied one
// after the other, each logged with what it found, so the log's before and
// after values follow each other and end at what is stored.
func TestService_ConcurrentWrites(t *testing.T) {
	eachWorld(t, "moves of one candidate", func(t *testing.T, w world) {
		job, ada := w.Job("backend"), w.Res.Candidates["ada"]
		stages := []string{"Screening", "Interview", "Offer", "Hired", "Applied", "Offer"}
		var wg sync.WaitGroup
		errs := make([]error, len(stages))
		for i, st := range stages {
			token := []string{"olivia", "adam", "mia"}[i%3]
			ctx := w.As(t, token)
			wg.Go(func() {
				_, errs[i] = w.Svc.MoveCandidate(ctx, job, ada, pipeline.CandidateMove{StageID: w.Res.Stages["backend"][st]})
			})
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
		c, err := w.Svc.GetCandidate(w.As(t, "olivia"), job, ada)
		require.NoError(t, err)
		at := "Applied"
		for _, a := range w.Activity(t) {
			ch := changesOf(t, a)["stage"].(map[string]any)
			assert.Equal(t, at, ch["before"], "each move starts where the one before it ended")
			assert.NotEqual(t, ch["before"], ch["after"], "a move to the stage it found is not logged")
			at = ch["after"].(string)
		}
		assert.Equal(t, c.Stage, at, "the log ends at the stored stage")
	})
	eachWorld(t, "ratings by one user", func(t *testing.T, w world) {
		job, ken := w.Job("frontend"), w.Res.Candidates["ken"]
		ctx := w.As(t, "nina")
		values := []pipeline.RatingValue{pipeline.Maybe, pipeline.GoodFit, pipeline.NotAFit, pipeline.Maybe, pipeline.GoodFit, pipeline.GoodFit}
		var wg sync.WaitGroup
		errs := make([]error, len(values))
		for i, v := range values {
			wg.Go(func() {
				_, errs[i] = w.Svc.RateCandidate(ctx, job, ken, pipeline.NewRating{Value: v})
			})
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
		var before any
		log := w.Activity(t)
		require.NotEmpty(t, log)
		for _, a := range log {
			ch := changesOf(t, a)["rating"].(map[string]any)
			assert.Equal(t, before, ch["before"])
			before = ch["after"]
		}
		final, err := w.Svc.RateCandidate(ctx, job, ken, pipeline.NewRating{Value: pipeline.RatingValue(before.(string))})
		require.NoError(t, err)
		assert.Len(t, w.Activity(t), len(log), "the last logged value is the stored one: rating it again changes nothing")
		assert.Equal(t, pipeline.RatingValue(before.(string)), final.Value.Value)
	})
	eachWorld(t, "notes on one candidate", func(t *testing.T, w world) {
		job, grace := w.Job("backend"), w.Res.Candidates["grace"]
		const n = 8
		var wg sync.WaitGroup
		ids := make([]int64, n)
		for i := range n {
			ctx := w.As(t, []string{"olivia", "mia"}[i%2])
			wg.Go(func() {
				res, err := w.Svc.AddNote(ctx, job, grace, pipeline.NewNote{Content: fmt.Sprintf("Note %d", i)})
				if assert.NoError(t, err) {
					ids[i] = res.Value.ID
				}
			})
		}
		wg.Wait()
		c, err := w.Svc.GetCandidate(w.As(t, "mia"), job, grace)
		require.NoError(t, err)
		assert.Equal(t, n, c.NotesCount)
		logged := map[int64]bool{}
		for _, a := range w.Activity(t) {
			logged[int64(changesOf(t, a)["note_id"].(float64))] = true
		}
		for _, id := range ids {
			assert.True(t, logged[id], "note %d is logged", id)
		}
		assert.Len(t, logged, n)
	})
	eachWorld(t, "updates of one job", func(t *testing.T, w world) {
		job := w.Job("design")
		titles := []string{"Designer A", "Designer B", "Designer C", "Designer D"}
		var wg sync.WaitGroup
		for _, title := range titles {
			ctx := w.As(t, "olivia")
			wg.Go(func() {
				_, err := w.Svc.UpdateJob(ctx, job, pipeline.JobPatch{Title: new(title)})
				assert.NoError(t, err)
			})
		}
		wg.Wait()
		log := w.Activity(t)
		require.Len(t, log, len(titles))
		at := "Product Designer"
		for _, a := range log {
			ch := changesOf(t, a)["title"].(map[string]any)
			assert.Equal(t, at, ch["before"])
			at = ch["after"].(string)
		}
		j, err := w.Svc.GetJob(w.As(t, "olivia"), job)
		require.NoError(t, err)
		assert.Equal(t, at, j.Title)
	})
}
