package pipelinestore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// crowded seeds the fixture world with 20 more candidates on backend: two a
// day from 2026-02-01, in Interview, plus one with an accented name.
func crowded(t *testing.T, db *pipelinestore.DB) fixture {
	t.Helper()
	w := storetest.World(time.Now())
	for i := range 20 {
		w.Jobs[0].Candidates = append(w.Jobs[0].Candidates, pipeline.SeedCandidate{
			Key: fmt.Sprintf("extra%02d", i), Name: fmt.Sprintf("Extra %02d", i), Email: fmt.Sprintf("extra%02d@example.test", i),
			Applied: fmt.Sprintf("2026-02-%02d", 1+i/2), Stage: "Interview",
		})
	}
	w.Jobs[0].Candidates = append(w.Jobs[0].Candidates, pipeline.SeedCandidate{
		Key: "zoe", Name: "Zoë Ångström", Email: "z_100%@example.test", Applied: "2026-01-01", Stage: "Offer",
	})
	op := pipeline.NewOperator(db)
	res, err := op.Seed(context.Background(), w)
	require.NoError(t, err)
	return fixture{DB: db, Svc: pipeline.NewService(db), Op: op, Res: res}
}

// listBackend lists backend's candidates as olivia; a page of 0 is the
// first, as the Service passes it.
func listBackend(t *testing.T, f fixture, filter pipeline.CandidateFilter) pipeline.List[pipeline.Candidate] {
	t.Helper()
	filter.Page = max(filter.Page, 1)
	l, err := f.DB.Candidates().List(context.Background(), pipeline.ListCandidatesParams{Viewer: f.User("olivia"), JobID: f.Job("backend"), Filter: filter})
	require.NoError(t, err)
	return l
}

// candidateKeys are the fixture keys of a list's candidates, in order.
func candidateKeys(f fixture, l pipeline.List[pipeline.Candidate]) []string {
	var out []string
	for _, c := range l.Items {
		for k, id := range f.Res.Candidates {
			if id == c.ID {
				out = append(out, k)
			}
		}
	}
	return out
}

func TestStore_ListCandidates(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := crowded(t, db)
		list := func(filter pipeline.CandidateFilter) pipeline.List[pipeline.Candidate] {
			t.Helper()
			return listBackend(t, f, filter)
		}
		keys := func(l pipeline.List[pipeline.Candidate]) []string { return candidateKeys(f, l) }

		t.Run("pages in order", func(t *testing.T) {
			// Newest applicant first; the same day by id, descending.
			var want []string
			for i := 19; i >= 0; i-- {
				want = append(want, fmt.Sprintf("extra%02d", i))
			}
			want = append(want, "grace", "ada", "linus", "zoe")
			var got []string
			for p := 1; p <= 2; p++ {
				l := list(pipeline.CandidateFilter{Page: p})
				assert.Equal(t, 24, l.Total)
				assert.Equal(t, 2, l.LastPage())
				got = append(got, keys(l)...)
			}
			assert.Equal(t, want, got)
			l := list(pipeline.CandidateFilter{Page: 3})
			assert.Empty(t, l.Items)
			assert.Equal(t, 24, l.Total)
			assert.Equal(t, 3, l.Page)
		})
		t.Run("elements", func(t *testing.T) {
			l := list(pipeline.CandidateFilter{Search: "lovelace"})
			require.Len(t, l.Items, 1)
			ada := l.Items[0]
			assert.Equal(t, pipeline.Candidate{
				ID: f.Res.Candidates["ada"], JobID: f.Job("backend"), TeamID: f.Res.Teams["acme"],
				Name: "Ada Lovelace", Email: "ada@example.test", Applied: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC),
				StageID: f.Res.Stages["backend"]["Applied"], Stage: "Applied", Status: pipeline.CandidateActive,
				ResumeURL: "https://files.example.test/ada.pdf",
			}, ada)
		})
		t.Run("job without candidates", func(t *testing.T) {
			l, err := db.Candidates().List(context.Background(), pipeline.ListCandidatesParams{Viewer: f.User("olivia"), JobID: f.Job("archive"), Filter: pipeline.CandidateFilter{Page: 1}})
			require.NoError(t, err)
			assert.Empty(t, l.Items)
			assert.Zero(t, l.Total)
		})
	})
}

func TestStore_ListCandidates_Filters(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := crowded(t, db)
		list := func(filter pipeline.CandidateFilter) pipeline.List[pipeline.Candidate] {
			t.Helper()
			return listBackend(t, f, filter)
		}
		keys := func(l pipeline.List[pipeline.Candidate]) []string { return candidateKeys(f, l) }

		t.Run("search name or email", func(t *testing.T) {
			assert.Equal(t, []string{"grace"}, keys(list(pipeline.CandidateFilter{Search: "GRACE@"})))
			assert.Equal(t, []string{"zoe"}, keys(list(pipeline.CandidateFilter{Search: "ÅNGSTRÖM"})))
			assert.Equal(t, []string{"zoe"}, keys(list(pipeline.CandidateFilter{Search: "%"})))
			assert.Equal(t, []string{"zoe"}, keys(list(pipeline.CandidateFilter{Search: "z_1"})))
			assert.Empty(t, keys(list(pipeline.CandidateFilter{Search: "a_1"})), "_ is no wildcard")
			l := list(pipeline.CandidateFilter{Search: "extra1", Page: 1})
			assert.Equal(t, 10, l.Total)
			l = list(pipeline.CandidateFilter{Search: "nobody"})
			assert.Zero(t, l.Total)
		})
		t.Run("stage filter", func(t *testing.T) {
			stages := f.Res.Stages["backend"]
			assert.Equal(t, []string{"grace"}, keys(list(pipeline.CandidateFilter{StageID: stages["Screening"]})))
			l := list(pipeline.CandidateFilter{StageID: stages["Interview"], Page: 2})
			assert.Len(t, l.Items, 5)
			assert.Equal(t, 20, l.Total)
			l = list(pipeline.CandidateFilter{StageID: stages["Hired"]})
			assert.Empty(t, l.Items)
			assert.Zero(t, l.Total)
			l = list(pipeline.CandidateFilter{StageID: stages["Interview"], Search: "extra0"})
			assert.Equal(t, 10, l.Total)
		})
		t.Run("stage of another job", func(t *testing.T) {
			for _, stage := range []int64{f.Res.Stages["frontend"]["Applied"], f.Res.Stages["ops"]["Applied"], 1 << 40} {
				_, err := db.Candidates().List(context.Background(), pipeline.ListCandidatesParams{Viewer: f.User("olivia"), JobID: f.Job("backend"), Filter: pipeline.CandidateFilter{StageID: stage, Page: 1}})
				assert.ErrorIs(t, err, pipeline.ErrStageNotInJob)
			}
		})
	})
}
