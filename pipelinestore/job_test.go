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

// TestStore_Visibility checks every viewer query against the visibility
// rule: owners and admins reach all of their team's jobs, members the jobs
// they own or are assigned to, nobody another team's jobs.
func TestStore_Visibility(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := seeded(t, db)
		ctx := context.Background()
		tests := []struct {
			name    string
			viewer  string
			reaches []string
		}{
			{"owner", "olivia", []string{"backend", "frontend", "design", "archive"}},
			{"admin", "adam", []string{"backend", "frontend", "design", "archive"}},
			{"member owning", "nina", []string{"frontend"}},
			{"member assigned", "mia", []string{"backend"}},
			{"other team", "gary", []string{"ops"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				viewer := f.User(tt.viewer)
				reach := map[string]bool{}
				for _, k := range tt.reaches {
					reach[k] = true
				}
				for jobKey, jobID := range f.Res.Jobs {
					requireReach(t, f, viewer, jobKey, jobID, reach[jobKey])
				}

				var listed []string
				for _, status := range []pipeline.JobStatus{pipeline.JobOpen, pipeline.JobDraft, pipeline.JobClosed} {
					l, err := db.Jobs().List(ctx, pipeline.ListJobsParams{Viewer: viewer, Filter: pipeline.JobFilter{Status: status, Page: 1}})
					require.NoError(t, err)
					assert.Equal(t, len(l.Items), l.Total)
					for _, j := range l.Items {
						assert.Equal(t, status, j.Status)
						for k, id := range f.Res.Jobs {
							if id == j.ID {
								listed = append(listed, k)
							}
						}
					}
				}
				assert.ElementsMatch(t, tt.reaches, listed)
			})
		}

		t.Run("candidate of another job", func(t *testing.T) {
			_, err := db.Candidates().Get(ctx, pipeline.CandidateParams{Viewer: f.User("olivia"), JobID: f.Job("backend"), ID: f.Res.Candidates["ken"]})
			requireCode(t, pipeline.ENotFound, err)
		})
		t.Run("no such job", func(t *testing.T) {
			_, err := db.Jobs().Get(ctx, pipeline.JobParams{Viewer: f.User("olivia"), ID: 1 << 40})
			requireCode(t, pipeline.ENotFound, err)
			_, err = db.Jobs().Stages(ctx, pipeline.JobParams{Viewer: f.User("olivia"), ID: 1 << 40})
			requireCode(t, pipeline.ENotFound, err)
		})
	})
}

// candidateOf names a candidate of each job that has one, to read through
// the job.
var candidateOf = map[string]string{"backend": "ada", "frontend": "ken", "design": "don", "ops": "ola"}

// requireReach checks that every query on a job, and on its candidate, finds
// it for viewer when reachable, and answers not found otherwise.
func requireReach(t *testing.T, f fixture, viewer int64, jobKey string, jobID int64, reachable bool) {
	t.Helper()
	ctx, db := context.Background(), f.DB
	_, err := db.Jobs().Get(ctx, pipeline.JobParams{Viewer: viewer, ID: jobID})
	_, serr := db.Jobs().Stages(ctx, pipeline.JobParams{Viewer: viewer, ID: jobID})
	_, lerr := db.Candidates().List(ctx, pipeline.ListCandidatesParams{Viewer: viewer, JobID: jobID, Filter: pipeline.CandidateFilter{Page: 1}})
	// The stage filter is checked only for a reachable job.
	_, ferr := db.Candidates().List(ctx, pipeline.ListCandidatesParams{Viewer: viewer, JobID: jobID, Filter: pipeline.CandidateFilter{StageID: 1 << 40, Page: 1}})
	var cerr error
	if c, ok := candidateOf[jobKey]; ok {
		_, cerr = db.Candidates().Get(ctx, pipeline.CandidateParams{Viewer: viewer, JobID: jobID, ID: f.Res.Candidates[c]})
	}
	if reachable {
		require.NoError(t, err, jobKey)
		require.NoError(t, serr, jobKey)
		require.NoError(t, lerr, jobKey)
		require.ErrorIs(t, ferr, pipeline.ErrStageNotInJob, jobKey)
		require.NoError(t, cerr, jobKey)
	} else {
		requireCode(t, pipeline.ENotFound, err)
		requireCode(t, pipeline.ENotFound, serr)
		requireCode(t, pipeline.ENotFound, lerr)
		requireCode(t, pipeline.ENotFound, ferr)
		if _, ok := candidateOf[jobKey]; ok {
			requireCode(t, pipeline.ENotFound, cerr)
		}
	}
	err = db.Write(ctx, func(tx pipeline.Tx) error {
		_, err := tx.Jobs().Lock(ctx, pipeline.JobParams{Viewer: viewer, ID: jobID})
		if c, ok := candidateOf[jobKey]; ok && err == nil {
			_, err = tx.Candidates().Lock(ctx, pipeline.LockCandidateParams{Viewer: viewer, JobID: jobID, ID: f.Res.Candidates[c]})
		}
		return err
	})
	if reachable {
		require.NoError(t, err, jobKey)
	} else {
		requireCode(t, pipeline.ENotFound, err)
	}
}

// insertJobs stores n open jobs on globex owned by gary, created a minute
// apart after base, pairs of them at the same instant to exercise the id
// tie-break; it returns their ids in insertion order.
func insertJobs(t *testing.T, f fixture, n int, title func(i int) string) []int64 {
	t.Helper()
	ctx := context.Background()
	base := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	ids := make([]int64, n)
	require.NoError(t, f.DB.Write(ctx, func(tx pipeline.Tx) error {
		for i := range n {
			at := base.Add(time.Duration(i/2) * time.Minute)
			j, err := tx.Jobs().Insert(ctx, pipeline.InsertJobParams{Job: pipeline.Job{
				TeamID: f.Res.Teams["globex"], OwnerID: f.User("gary"), Title: title(i), Status: pipeline.JobOpen,
				WorkMode: "onsite", EmploymentType: "full_time", ApplicationDeadline: at, CreatedAt: at, UpdatedAt: at,
			}, Stages: []string{"Applied"}})
			if err != nil {
				return err
			}
			ids[i] = j.ID
		}
		return nil
	}))
	return ids
}

func TestStore_ListJobs(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := seeded(t, db)
		ctx := context.Background()
		gary := f.User("gary")
		ids := insertJobs(t, f, 31, func(i int) string { return fmt.Sprintf("Job %02d", i) })
		// Newest first: the inserted jobs in reverse (same instants broken
		// by id, descending), then ops, created in January.
		want := []int64{}
		for i := len(ids) - 1; i >= 0; i-- {
			want = append(want, ids[i])
		}
		want = append(want, f.Job("ops"))

		t.Run("pages", func(t *testing.T) {
			var got []int64
			for p := 1; p <= 3; p++ {
				l, err := db.Jobs().List(ctx, pipeline.ListJobsParams{Viewer: gary, Filter: pipeline.JobFilter{Status: pipeline.JobOpen, Page: p}})
				require.NoError(t, err)
				assert.Equal(t, 32, l.Total)
				assert.Equal(t, p, l.Page)
				assert.Equal(t, pipeline.PageSize, l.PerPage)
				assert.Equal(t, 3, l.LastPage())
				for _, j := range l.Items {
					got = append(got, j.ID)
				}
			}
			assert.Equal(t, want, got)
		})
		t.Run("past the last page", func(t *testing.T) {
			l, err := db.Jobs().List(ctx, pipeline.ListJobsParams{Viewer: gary, Filter: pipeline.JobFilter{Status: pipeline.JobOpen, Page: 7}})
			require.NoError(t, err)
			assert.Empty(t, l.Items)
			assert.Equal(t, 32, l.Total)
			assert.Equal(t, 7, l.Page)
		})
		t.Run("page zero is the first", func(t *testing.T) {
			l, err := db.Jobs().List(ctx, pipeline.ListJobsParams{Viewer: gary, Filter: pipeline.JobFilter{Status: pipeline.JobOpen, Page: 1}})
			require.NoError(t, err)
			assert.Equal(t, 1, l.Page)
			assert.Len(t, l.Items, 15)
		})
		t.Run("status filter", func(t *testing.T) {
			l, err := db.Jobs().List(ctx, pipeline.ListJobsParams{Viewer: gary, Filter: pipeline.JobFilter{Status: pipeline.JobDraft, Page: 2}})
			require.NoError(t, err)
			assert.Empty(t, l.Items)
			assert.Zero(t, l.Total)
		})
		t.Run("empty", func(t *testing.T) {
			l, err := db.Jobs().List(ctx, pipeline.ListJobsParams{Viewer: f.User("nina"), Filter: pipeline.JobFilter{Status: pipeline.JobClosed, Page: 1}})
			require.NoError(t, err)
			assert.Empty(t, l.Items)
			assert.Zero(t, l.Total)
			assert.Equal(t, 1, l.LastPage())
		})
	})
}

func TestStore_ListJobs_Search(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := seeded(t, db)
		ctx := context.Background()
		titles := []string{"100% remote", "1000 remote", "a_b", "aXb", `back\slash`, `backslash`, "ÉCOLE Straße"}
		ids := insertJobs(t, f, len(titles), func(i int) string { return titles[i] })
		byTitle := map[string]int64{}
		for i, title := range titles {
			byTitle[title] = ids[i]
		}
		search := func(viewer int64, s string) []string {
			t.Helper()
			l, err := db.Jobs().List(ctx, pipeline.ListJobsParams{Viewer: viewer, Filter: pipeline.JobFilter{Status: pipeline.JobOpen, Search: s, Page: 1}})
			require.NoError(t, err)
			assert.Equal(t, len(l.Items), l.Total)
			var out []string
			for _, j := range l.Items {
				out = append(out, j.Title)
			}
			return out
		}
		olivia, gary := f.User("olivia"), f.User("gary")
		assert.Equal(t, []string{"Frontend Ingénieur"}, search(olivia, "INGÉNIEUR"))
		assert.Equal(t, []string{"Frontend Ingénieur"}, search(olivia, "ingénieur"))
		assert.Equal(t, []string{"Backend Engineer"}, search(olivia, "kend eng"))
		assert.Empty(t, search(olivia, "Ops"), "another team's job")
		assert.Equal(t, []string{"100% remote"}, search(gary, "%"))
		assert.Equal(t, []string{"100% remote"}, search(gary, "0% R"))
		assert.Equal(t, []string{"a_b"}, search(gary, "_"))
		assert.Equal(t, []string{"a_b"}, search(gary, "A_B"))
		assert.Equal(t, []string{`back\slash`}, search(gary, `\`))
		assert.Equal(t, []string{`back\slash`}, search(gary, `K\S`))
		assert.Equal(t, []string{"ÉCOLE Straße"}, search(gary, "école"))
		assert.Len(t, search(gary, ""), len(titles)+1)
		assert.Empty(t, search(gary, "no such title"))
	})
}
