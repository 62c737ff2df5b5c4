package pipeline_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// TestService_JobStatusTransitions: any status may follow any other; a
// change is one job.updated entry naming both statuses, setting the status
// a job has already is no change at all.
func TestService_JobStatusTransitions(t *testing.T) {
	statuses := []pipeline.JobStatus{pipeline.JobOpen, pipeline.JobDraft, pipeline.JobClosed}
	eachClockedWorld(t, "every pair", func(t *testing.T, w world, clock *time.Time) {
		ctx := w.As(t, "olivia")
		for _, from := range statuses {
			for _, to := range statuses {
				t.Run(fmt.Sprintf("%s to %s", from, to), func(t *testing.T) {
					created, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: fmt.Sprintf("From %s to %s", from, to)})
					require.NoError(t, err)
					id := created.Value.ID
					if from != pipeline.JobOpen {
						_, err = w.Svc.UpdateJob(ctx, id, pipeline.JobPatch{Status: &from})
						require.NoError(t, err)
					}
					before := len(w.Activity(t))
					*clock = clock.Add(time.Minute)
					res, err := w.Svc.UpdateJob(ctx, id, pipeline.JobPatch{Status: &to})
					require.NoError(t, err)
					assert.Equal(t, to, res.Value.Status)
					got, err := w.Svc.GetJob(ctx, id)
					require.NoError(t, err)
					assert.Equal(t, to, got.Status, "stored")
					log := w.Activity(t)
					if from == to {
						assert.Len(t, log, before, "no change, no entry")
						assert.True(t, got.UpdatedAt.Before(*clock), "nor a new update time")
						return
					}
					require.Len(t, log, before+1)
					last := log[len(log)-1]
					assert.Equal(t, pipeline.ActionJobUpdated, last.Action)
					assert.Equal(t, id, last.SubjectID)
					assert.Equal(t, id, last.JobID)
					assert.Equal(t, map[string]any{"status": map[string]any{"before": string(from), "after": string(to)}}, changesOf(t, last))
					assert.True(t, got.UpdatedAt.Equal(*clock), "the update time moves")
				})
			}
		}
	})
}

// TestService_JobLimitRules: the plan's job limit counts every job of the
// team that is not closed, whoever owns it, and holds under concurrent
// writes.
func TestService_JobLimitRules(t *testing.T) {
	open, draft, closed := pipeline.JobOpen, pipeline.JobDraft, pipeline.JobClosed
	eachWorld(t, "it counts jobs the caller cannot see", func(t *testing.T, w world) {
		fillToLimit(t, w, acmeActiveJobs)
		assert.Equal(t, []string{"Backend Engineer"}, listedJobs(t, w, "mia"), "mia sees none of the fillers")
		_, err := w.Svc.CreateJob(w.As(t, "mia"), pipeline.NewJob{Title: "Over the limit"})
		assert.ErrorIs(t, err, pipeline.ErrForbidden)
		_, err = w.Svc.CreateJob(w.As(t, "gary"), pipeline.NewJob{Title: "Another team's limit"})
		assert.NoError(t, err, "nor does it count on another team")
	})
	eachWorld(t, "at the limit, moving between open and draft is allowed", func(t *testing.T, w world) {
		fillToLimit(t, w, acmeActiveJobs)
		ctx := w.As(t, "olivia")
		_, err := w.Svc.UpdateJob(ctx, w.Job("backend"), pipeline.JobPatch{Status: &draft})
		require.NoError(t, err)
		_, err = w.Svc.UpdateJob(ctx, w.Job("design"), pipeline.JobPatch{Status: &open})
		require.NoError(t, err)
		_, err = w.Svc.UpdateJob(ctx, w.Job("design"), pipeline.JobPatch{Status: &closed, Title: new("Designer, closed")})
		require.NoError(t, err, "closing along with another change")
		_, err = w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "In the freed slot"})
		require.NoError(t, err)
		_, err = w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "Over again"})
		assert.ErrorIs(t, err, pipeline.ErrForbidden)
	})
	eachWorld(t, "a refused reopening changes and logs nothing", func(t *testing.T, w world) {
		fillToLimit(t, w, acmeActiveJobs)
		ctx := w.As(t, "olivia")
		before := len(w.Activity(t))
		_, err := w.Svc.UpdateJob(ctx, w.Job("archive"), pipeline.JobPatch{Status: &open, Title: new("Reopened")})
		require.ErrorIs(t, err, pipeline.ErrForbidden)
		j, err := w.Svc.GetJob(ctx, w.Job("archive"))
		require.NoError(t, err)
		assert.Equal(t, pipeline.JobClosed, j.Status)
		assert.Equal(t, "Old Role", j.Title, "the whole patch is refused")
		assert.Len(t, w.Activity(t), before)
		res, err := w.Svc.UpdateJob(ctx, w.Job("archive"), pipeline.JobPatch{Status: &closed})
		require.NoError(t, err, "setting closed again is no reopening")
		assert.Equal(t, pipeline.JobClosed, res.Value.Status)
	})
	eachWorld(t, "concurrent reopenings and creations share the last slot", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		var closedIDs []int64
		for i := range 4 {
			res, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: fmt.Sprintf("To close %d", i)})
			require.NoError(t, err)
			_, err = w.Svc.UpdateJob(ctx, res.Value.ID, pipeline.JobPatch{Status: &closed})
			require.NoError(t, err)
			closedIDs = append(closedIDs, res.Value.ID)
		}
		fillToLimit(t, w, acmeActiveJobs+1) // one slot left
		var wg sync.WaitGroup
		errs := make([]error, 2*len(closedIDs))
		start := make(chan struct{})
		for i, id := range closedIDs {
			wg.Go(func() {
				<-start
				_, errs[2*i] = w.Svc.UpdateJob(ctx, id, pipeline.JobPatch{Status: &open})
			})
			wg.Go(func() {
				<-start
				_, errs[2*i+1] = w.Svc.CreateJob(ctx, pipeline.NewJob{Title: fmt.Sprintf("Racer %d", i)})
			})
		}
		close(start)
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
				continue
			}
			assert.ErrorIs(t, err, pipeline.ErrForbidden)
		}
		assert.Equal(t, 1, ok, "exactly the one free slot is taken")
		active := 0
		for _, st := range []pipeline.JobStatus{open, draft} {
			l, err := w.Svc.ListJobs(ctx, pipeline.JobFilter{Status: st, Page: 1})
			require.NoError(t, err)
			active += l.Total
		}
		assert.Equal(t, acmeJobLimit, active)
	})
}

// TestService_JobWrites: what creating and updating a job store and log.
func TestService_JobWrites(t *testing.T) {
	eachWorld(t, "creating logs every field the job starts with", func(t *testing.T, w world) {
		res, err := w.Svc.CreateJob(w.As(t, "nina"), pipeline.NewJob{Title: "QA Lead", Description: `<p class="x">Tests & "quotes"</p>`})
		require.NoError(t, err)
		j := res.Value
		got, err := w.Svc.GetJob(w.As(t, "nina"), j.ID)
		require.NoError(t, err)
		assert.Equal(t, j, got, "what the write returns is what is read back")
		log := w.Activity(t)
		require.Len(t, log, 1)
		a := log[0]
		assert.Equal(t, j.ID, a.JobID)
		assert.Equal(t, w.User("nina"), a.UserID)
		assert.Equal(t, map[string]any{
			"title":                map[string]any{"before": nil, "after": "QA Lead"},
			"description":          map[string]any{"before": nil, "after": `<p class="x">Tests & "quotes"</p>`},
			"status":               map[string]any{"before": nil, "after": "open"},
			"work_mode":            map[string]any{"before": nil, "after": "onsite"},
			"employment_type":      map[string]any{"before": nil, "after": "full_time"},
			"application_deadline": map[string]any{"before": nil, "after": j.ApplicationDeadline.Format(time.DateOnly)},
		}, changesOf(t, a))
	})
	eachClockedWorld(t, "the deadline is 30 days after the day of creation", func(t *testing.T, w world, clock *time.Time) {
		ctx := w.As(t, "olivia")
		*clock = time.Date(2026, 2, 27, 23, 59, 0, 0, time.UTC)
		res, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "Late in February"})
		require.NoError(t, err)
		assert.Equal(t, time.Date(2026, 3, 29, 0, 0, 0, 0, time.UTC), res.Value.ApplicationDeadline)
		assert.Equal(t, *clock, res.Value.CreatedAt)
		assert.Equal(t, *clock, res.Value.UpdatedAt)
	})
	eachClockedWorld(t, "an update logs only what changed", func(t *testing.T, w world, clock *time.Time) {
		ctx := w.As(t, "olivia")
		*clock = clock.Add(time.Hour)
		open := pipeline.JobOpen
		res, err := w.Svc.UpdateJob(ctx, w.Job("backend"), pipeline.JobPatch{
			Title: new("Backend Engineer"), Description: new("<p>Go.</p>"), Status: &open})
		require.NoError(t, err)
		assert.Equal(t, "<p>Go.</p>", res.Value.Description)
		assert.Equal(t, *clock, res.Value.UpdatedAt)
		log := w.Activity(t)
		require.Len(t, log, 1)
		assert.Equal(t, map[string]any{
			"description": map[string]any{"before": "<p>Go and PostgreSQL.</p>", "after": "<p>Go.</p>"},
		}, changesOf(t, log[0]))
	})
	eachClockedWorld(t, "a patch to equal values writes nothing", func(t *testing.T, w world, clock *time.Time) {
		ctx := w.As(t, "olivia")
		before, err := w.Svc.GetJob(ctx, w.Job("design"))
		require.NoError(t, err)
		*clock = clock.Add(time.Hour)
		draft := pipeline.JobDraft
		res, err := w.Svc.UpdateJob(ctx, w.Job("design"), pipeline.JobPatch{
			Title: new(before.Title), Description: new(before.Description), Status: &draft})
		require.NoError(t, err)
		assert.Equal(t, before, res.Value)
		after, err := w.Svc.GetJob(ctx, w.Job("design"))
		require.NoError(t, err)
		assert.Equal(t, before.UpdatedAt, after.UpdatedAt)
		assert.Empty(t, w.Activity(t))
	})
	eachWorld(t, "each invalid field of a patch is named", func(t *testing.T, w world) {
		archived := pipeline.JobStatus("archived")
		for _, tc := range []struct {
			name  string
			patch pipeline.JobPatch
			field string
		}{
			{"nothing to change", pipeline.JobPatch{}, "body"},
			{"a title of 256 characters", pipeline.JobPatch{Title: new(strings.Repeat("ü", 256))}, "title"},
			{"an empty title", pipeline.JobPatch{Title: new("")}, "title"},
			{"a description of 65,536 characters", pipeline.JobPatch{Description: new(strings.Repeat("ü", 65536))}, "description"},
			{"an unknown status", pipeline.JobPatch{Status: &archived}, "status"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := w.Svc.UpdateJob(w.As(t, "olivia"), w.Job("frontend"), tc.patch)
				require.ErrorIs(t, err, pipeline.ErrValidation)
				assert.Equal(t, []string{tc.field}, fieldNames(err))
			})
		}
		_, err := w.Svc.UpdateJob(w.As(t, "olivia"), w.Job("frontend"), pipeline.JobPatch{
			Title: new(strings.Repeat("ü", 255)), Description: new(strings.Repeat("ü", 65535))})
		require.NoError(t, err, "at the limits")
		assert.Len(t, w.Activity(t), 1, "only the valid patch is logged")
	})
	eachWorld(t, "the fields of an invalid patch are all reported, and nothing is written", func(t *testing.T, w world) {
		bad := pipeline.JobStatus("Closed")
		_, err := w.Svc.UpdateJob(w.As(t, "olivia"), w.Job("backend"), pipeline.JobPatch{
			Title: new(" \t"), Description: new("ok"), Status: &bad})
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Equal(t, []string{"status", "title"}, fieldNames(err))
		j, err := w.Svc.GetJob(w.As(t, "olivia"), w.Job("backend"))
		require.NoError(t, err)
		assert.Equal(t, "<p>Go and PostgreSQL.</p>", j.Description, "the valid field is not applied alone")
		assert.Empty(t, w.Activity(t))
	})
}

// TestService_ListJobsFilters: the status, search and page of the job list.
func TestService_ListJobsFilters(t *testing.T) {
	eachWorld(t, "search is a case-insensitive substring of the title", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		for search, want := range map[string][]string{
			"ENGINEER":   {"Backend Engineer"},
			"ingÉnieur":  {"Frontend Ingénieur"},
			"end":        {"Frontend Ingénieur", "Backend Engineer"},
			"designer":   nil, // a draft: not in the default status
			"nobody has": nil,
		} {
			l, err := w.Svc.ListJobs(ctx, pipeline.JobFilter{Search: search})
			require.NoError(t, err)
			var titles []string
			for _, j := range l.Items {
				titles = append(titles, j.Title)
			}
			assert.Equal(t, want, titles, search)
			assert.Equal(t, len(want), l.Total, search)
		}
		l, err := w.Svc.ListJobs(ctx, pipeline.JobFilter{Search: "designer", Status: pipeline.JobDraft})
		require.NoError(t, err)
		assert.Equal(t, 1, l.Total, "search and status together")
	})
	eachWorld(t, "pages of fifteen, newest first", func(t *testing.T, w world) {
		ctx := w.As(t, "gary")
		for i := range pipeline.PageSize + 2 {
			_, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: fmt.Sprintf("Globex %02d", i)})
			require.NoError(t, err)
		}
		var titles []string
		for page := 1; page <= 3; page++ {
			l, err := w.Svc.ListJobs(ctx, pipeline.JobFilter{Page: page})
			require.NoError(t, err)
			assert.Equal(t, page, l.Page)
			assert.Equal(t, pipeline.PageSize+3, l.Total, "the fixture's Ops Lead included")
			assert.Equal(t, 2, l.LastPage())
			switch page {
			case 1:
				assert.Len(t, l.Items, pipeline.PageSize)
			case 2:
				assert.Len(t, l.Items, 3)
			default:
				assert.Empty(t, l.Items, "past the last page")
			}
			for _, j := range l.Items {
				titles = append(titles, j.Title)
			}
		}
		require.Len(t, titles, pipeline.PageSize+3)
		assert.Equal(t, "Ops Lead", titles[len(titles)-1], "the oldest comes last")
		assert.Equal(t, "Globex 16", titles[0], "the newest first")
	})
}

// TestService_StagesOrder: a job's stages in pipeline order.
func TestService_StagesOrder(t *testing.T) {
	eachWorld(t, "a seeded job's and a created job's", func(t *testing.T, w world) {
		ctx := w.As(t, "nina")
		created, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "New pipeline"})
		require.NoError(t, err)
		for _, job := range []int64{w.Job("frontend"), created.Value.ID} {
			stages, err := w.Svc.ListStages(ctx, job)
			require.NoError(t, err)
			require.Len(t, stages, len(pipeline.DefaultStages))
			for i, st := range stages {
				assert.Equal(t, pipeline.DefaultStages[i], st.Name)
				assert.Equal(t, job, st.JobID)
				if i > 0 {
					assert.Greater(t, st.Position, stages[i-1].Position, "in pipeline order")
				}
			}
			if job == w.Job("frontend") {
				assert.Equal(t, w.Res.Stages["frontend"]["Applied"], stages[0].ID)
			}
		}
	})
	eachWorld(t, "jobs are created on the caller's current team", func(t *testing.T, w world) {
		for token, team := range map[string]string{"gary": "globex", "mia": "acme", "adam": "acme"} {
			res, err := w.Svc.CreateJob(w.As(t, token), pipeline.NewJob{Title: "Made by " + token})
			require.NoError(t, err)
			assert.Equal(t, w.Res.Teams[team], res.Value.TeamID, token)
			assert.Equal(t, w.User(token), res.Value.OwnerID, token)
			log := w.Activity(t)
			assert.Equal(t, w.Res.Teams[team], log[len(log)-1].TeamID, "the entry is the job's team's")
		}
	})
}

// TestService_SearchIsLiteral: a search is a plain substring: the wildcard
// characters of SQL patterns match only themselves.
func TestService_SearchIsLiteral(t *testing.T) {
	eachWorld(t, "jobs and candidates", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		_, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "100% remote_role"})
		require.NoError(t, err)
		for search, want := range map[string]int{"%": 1, "_": 1, "0%": 1, "%remote": 0, "o_e": 0, `\`: 0, "remote_role": 1} {
			l, err := w.Svc.ListJobs(ctx, pipeline.JobFilter{Search: search})
			require.NoError(t, err)
			assert.Equal(t, want, l.Total, "jobs matching %q", search)
		}
		for _, search := range []string{"%", "_", "a%e", `\%`} {
			l, err := w.Svc.ListCandidates(ctx, w.Job("backend"), pipeline.CandidateFilter{Search: search})
			require.NoError(t, err)
			assert.Zero(t, l.Total, "candidates matching %q", search)
		}
	})
}
