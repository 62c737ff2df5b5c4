package pipeline_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// eachAt is each on a world whose clock reads *now.
func eachAt(t *testing.T, name string, fn func(t *testing.T, w world, now *time.Time)) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
			now := time.Now().UTC().Truncate(time.Second)
			clock := pipeline.WithClock(pipeline.ClockFunc(func() time.Time { return now }))
			fn(t, storetest.Seeded(t, db, clock), &now)
		})
	})
}

func TestService_ListNotes(t *testing.T) {
	eachAt(t, "newest first, paginated", func(t *testing.T, w world, now *time.Time) {
		job, ada := w.Job("backend"), w.Res.Candidates["ada"]
		var added []pipeline.Note
		for i := range 17 {
			// Two notes share each second, so that the id breaks ties;
			// the clock goes back and forth so that ids do not follow time.
			at := *now
			*now = now.Add(time.Duration((i/2)*(1-2*(i/2%2))) * time.Minute)
			author := []string{"olivia", "mia"}[i%2]
			res, err := w.Svc.AddNote(w.As(t, author), job, ada, pipeline.NewNote{Content: fmt.Sprintf("Note %d", i)})
			require.NoError(t, err)
			added = append(added, res.Value)
			*now = at
		}
		slices.SortFunc(added, func(a, b pipeline.Note) int {
			return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
		})
		ctx := w.As(t, "mia")
		var got []pipeline.Note
		for page, n := range []int{15, 2, 0} {
			l, err := w.Svc.ListNotes(ctx, job, ada, pipeline.NoteFilter{Page: page + 1})
			require.NoError(t, err)
			assert.Len(t, l.Items, n, "page %d", page+1)
			assert.Equal(t, 17, l.Total)
			assert.Equal(t, page+1, l.Page)
			assert.Equal(t, pipeline.PageSize, l.PerPage)
			got = append(got, l.Items...)
		}
		assert.Equal(t, added, got, "each note as it was created")
		assert.Equal(t, pipeline.User{ID: w.User("olivia"), Name: "Olivia Owner"}, got[len(got)-1].Author)

		first, err := w.Svc.ListNotes(ctx, job, ada, pipeline.NoteFilter{Page: 0})
		require.NoError(t, err)
		assert.Equal(t, 1, first.Page, "page 0 is the first")
		assert.Equal(t, added[:15], first.Items)
	})
	each(t, "a candidate without notes", func(t *testing.T, w world) {
		l, err := w.Svc.ListNotes(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["grace"], pipeline.NoteFilter{Page: 1})
		require.NoError(t, err)
		assert.Empty(t, l.Items)
		assert.Equal(t, 0, l.Total)
	})
	each(t, "a negative page", func(t *testing.T, w world) {
		_, err := w.Svc.ListNotes(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], pipeline.NoteFilter{Page: -1})
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Contains(t, pipeline.Fields(err), "page")
	})
	each(t, "not found before invalid", func(t *testing.T, w world) {
		_, err := w.Svc.ListNotes(w.As(t, "mia"), w.Job("design"), w.Res.Candidates["don"], pipeline.NoteFilter{Page: -1})
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
	})
	for token, want := range map[string]error{
		"olivia_candidates_read": nil,
		"olivia_jobs_read":       pipeline.ErrInsufficientScope,
		"olivia_messages":        pipeline.ErrInsufficientScope,
	} {
		each(t, "scope of "+token, func(t *testing.T, w world) {
			_, err := w.Svc.ListNotes(w.As(t, token), missing, missing, pipeline.NoteFilter{Page: 1})
			if want == nil {
				assert.ErrorIs(t, err, pipeline.ErrNotFound, "the scope passes, the candidate is missing")
				return
			}
			require.ErrorIs(t, err, want)
			assert.Equal(t, map[string]string{"required_scope": "candidates:read"}, err.(*pipeline.Error).Details)
		})
	}
}

// TestService_ListNotesVisibility: a candidate the caller cannot reach has
// no notes to list, even when it has some.
func TestService_ListNotesVisibility(t *testing.T) {
	for _, tc := range []struct {
		name, token, job, candidate string
		visible                     bool
	}{
		{"owner", "olivia", "backend", "ada", true},
		{"admin", "adam", "backend", "ada", true},
		{"member assigned to the job", "mia", "backend", "ada", true},
		{"member not assigned to the job", "nina", "backend", "ada", false},
		{"owner of another team", "gary", "backend", "ada", false},
		{"candidate of another job", "olivia", "backend", "ken", false},
	} {
		each(t, tc.name, func(t *testing.T, w world) {
			owner := w.As(t, "olivia")
			_, err := w.Svc.AddNote(owner, w.Job("backend"), w.Res.Candidates["ada"], pipeline.NewNote{Content: "Strong."})
			require.NoError(t, err)
			_, err = w.Svc.AddNote(owner, w.Job("frontend"), w.Res.Candidates["ken"], pipeline.NewNote{Content: "Later."})
			require.NoError(t, err)

			l, err := w.Svc.ListNotes(w.As(t, tc.token), w.Job(tc.job), w.Res.Candidates[tc.candidate], pipeline.NoteFilter{Page: 1})
			if !tc.visible {
				require.ErrorIs(t, err, pipeline.ErrNotFound)
				return
			}
			require.NoError(t, err)
			require.Len(t, l.Items, 1)
			assert.Equal(t, "Strong.", l.Items[0].Content)
			// An empty page of a reachable candidate still counts its notes.
			l, err = w.Svc.ListNotes(w.As(t, tc.token), w.Job(tc.job), w.Res.Candidates[tc.candidate], pipeline.NoteFilter{Page: 2})
			require.NoError(t, err)
			assert.Empty(t, l.Items)
			assert.Equal(t, 1, l.Total)
		})
	}
}

// noteProbes call the operations of this file's resource for the tables of
// operations (see probe).
var noteProbes = []operation{
	{pipeline.OpAddNote, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.AddNote(ctx, p.ref.Job, p.ref.Candidate, pipeline.NewNote{Content: pick(p, "Probe note.", " "), Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
	{pipeline.OpListNotes, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.ListNotes(ctx, p.ref.Job, p.ref.Candidate, pipeline.NoteFilter{Page: pick(p, 1, -1)})
		return err
	}},
}
