package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

func TestService_ListJobs(t *testing.T) {
	each(t, "open jobs by default, newest first", func(t *testing.T, w world) {
		l, err := w.Svc.ListJobs(w.As(t, "olivia"), pipeline.JobFilter{})
		require.NoError(t, err)
		var titles []string
		for _, j := range l.Items {
			titles = append(titles, j.Title)
		}
		assert.Equal(t, []string{"Frontend Ingénieur", "Backend Engineer"}, titles)
		assert.Equal(t, 1, l.Page)
		assert.Equal(t, 2, l.Total)
	})
	for name, f := range map[string]pipeline.JobFilter{
		"status in capitals": {Status: "OPEN"},
		"negative page":      {Page: -1},
	} {
		each(t, name, func(t *testing.T, w world) {
			_, err := w.Svc.ListJobs(w.As(t, "olivia"), f)
			assert.ErrorIs(t, err, pipeline.ErrValidation)
		})
	}
}

func TestService_CreateJob(t *testing.T) {
	each(t, "ok", func(t *testing.T, w world) {
		ctx := w.As(t, "mia")
		before := time.Now().UTC()
		res, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "Data Engineer", Description: "<p>SQL</p>"})
		require.NoError(t, err)
		j := res.Value
		assert.False(t, res.Replayed)
		assert.Equal(t, pipeline.JobOpen, j.Status)
		assert.Equal(t, "onsite", j.WorkMode)
		assert.Equal(t, "full_time", j.EmploymentType)
		assert.Equal(t, pipeline.Date(j.CreatedAt).AddDate(0, 0, 30), j.ApplicationDeadline)
		assert.WithinDuration(t, before, j.CreatedAt, time.Minute)
		assert.Equal(t, w.Res.Teams["acme"], j.TeamID)
		assert.Equal(t, w.User("mia"), j.OwnerID)

		got, err := w.Svc.GetJob(ctx, j.ID)
		require.NoError(t, err, "the creator owns the job and so reaches it")
		assert.Equal(t, j.Title, got.Title)
		stages, err := w.Svc.ListStages(ctx, j.ID)
		require.NoError(t, err)
		var names []string
		for _, s := range stages {
			names = append(names, s.Name)
		}
		assert.Equal(t, pipeline.DefaultStages, names)

		log := w.Activity(t)
		require.Len(t, log, 1)
		a := log[0]
		assert.Equal(t, pipeline.ActionJobCreated, a.Action)
		assert.Equal(t, "job", a.SubjectType)
		assert.Equal(t, j.ID, a.SubjectID)
		assert.Equal(t, w.User("mia"), a.UserID)
		assert.Equal(t, w.Res.Teams["acme"], a.TeamID)
		assert.Equal(t, storetest.IP, a.IP)
		assert.NotZero(t, a.TokenID)
		var changes map[string]pipeline.Change
		require.NoError(t, json.Unmarshal(a.Changes, &changes))
		assert.Equal(t, pipeline.Change{Before: nil, After: "Data Engineer"}, changes["title"])
	})
	for name, in := range map[string]pipeline.NewJob{
		"missing title":                   {},
		"blank title":                     {Title: "   "},
		"title of 256 characters":         {Title: strings.Repeat("é", 256)},
		"description of 65536 characters": {Title: "x", Description: strings.Repeat("é", 65536)},
	} {
		each(t, name, func(t *testing.T, w world) {
			_, err := w.Svc.CreateJob(w.As(t, "mia"), in)
			require.ErrorIs(t, err, pipeline.ErrValidation)
			assert.Len(t, pipeline.Fields(err), 1)
			assert.Empty(t, w.Activity(t))
		})
	}
	each(t, "lengths count code points", func(t *testing.T, w world) {
		_, err := w.Svc.CreateJob(w.As(t, "mia"), pipeline.NewJob{
			Title: strings.Repeat("é", 255), Description: strings.Repeat("é", 65535)})
		assert.NoError(t, err)
	})
}

// fillJobs creates jobs on acme until n of its jobs are not closed; the
// fixture has 3 (backend, frontend, design) of its limit of 20.
func fillJobs(t *testing.T, w world, n int) {
	t.Helper()
	for i := range n - 3 {
		_, err := w.Svc.CreateJob(w.As(t, "olivia"), pipeline.NewJob{Title: fmt.Sprintf("Filler %d", i)})
		require.NoError(t, err)
	}
}

func TestService_JobLimit(t *testing.T) {
	closed, open, draft := pipeline.JobClosed, pipeline.JobOpen, pipeline.JobDraft
	each(t, "creating past the limit", func(t *testing.T, w world) {
		fillJobs(t, w, 20)
		_, err := w.Svc.CreateJob(w.As(t, "olivia"), pipeline.NewJob{Title: "One too many"})
		assert.ErrorIs(t, err, pipeline.ErrForbidden)
	})
	each(t, "closing a job frees a slot", func(t *testing.T, w world) {
		fillJobs(t, w, 20)
		ctx := w.As(t, "olivia")
		_, err := w.Svc.UpdateJob(ctx, w.Job("design"), pipeline.JobPatch{Status: &closed})
		require.NoError(t, err)
		_, err = w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "Fits again"})
		assert.NoError(t, err)
	})
	each(t, "reopening takes a slot", func(t *testing.T, w world) {
		fillJobs(t, w, 20)
		ctx := w.As(t, "olivia")
		_, err := w.Svc.UpdateJob(ctx, w.Job("archive"), pipeline.JobPatch{Status: &open})
		assert.ErrorIs(t, err, pipeline.ErrForbidden, "reopening over the limit")
		_, err = w.Svc.UpdateJob(ctx, w.Job("archive"), pipeline.JobPatch{Status: &draft})
		assert.ErrorIs(t, err, pipeline.ErrForbidden, "a draft counts as not closed")
		title := "Old Role, renamed"
		_, err = w.Svc.UpdateJob(ctx, w.Job("archive"), pipeline.JobPatch{Title: &title})
		require.NoError(t, err, "a closed job can still be edited")
		_, err = w.Svc.UpdateJob(ctx, w.Job("backend"), pipeline.JobPatch{Status: &closed})
		require.NoError(t, err)
		_, err = w.Svc.UpdateJob(ctx, w.Job("archive"), pipeline.JobPatch{Status: &open})
		assert.NoError(t, err, "closing one frees the slot for reopening another")
	})
	each(t, "a team without a limit", func(t *testing.T, w world) {
		_, err := w.Svc.CreateJob(w.As(t, "gary"), pipeline.NewJob{Title: "Unlimited"})
		assert.NoError(t, err)
	})
}

// TestService_JobLimit_Concurrent creates jobs at once with three slots
// left under the plan limit: exactly three may succeed.
func TestService_JobLimit_Concurrent(t *testing.T) {
	each(t, "exactly the free slots", func(t *testing.T, w world) {
		fillJobs(t, w, 17)
		ctx := w.As(t, "olivia")
		const n = 20
		var wg sync.WaitGroup
		errs := make([]error, n)
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				_, errs[i] = w.Svc.CreateJob(ctx, pipeline.NewJob{Title: fmt.Sprintf("Racer %d", i)})
			})
		}
		close(start)
		wg.Wait()
		ok, forbidden := 0, 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case pipeline.ErrorCode(err) == pipeline.EForbidden:
				forbidden++
			default:
				t.Errorf("unexpected error: %v", err)
			}
		}
		assert.Equal(t, 3, ok)
		assert.Equal(t, n-3, forbidden)
		assert.Len(t, w.Activity(t), 17, "14 fillers and 3 racers")
	})
}

func TestService_UpdateJob(t *testing.T) {
	title, draft, same := "Senior Backend Ingénieur", pipeline.JobDraft, "Backend Engineer"
	each(t, "ok", func(t *testing.T, w world) {
		ctx := w.As(t, "mia") // assigned to backend
		res, err := w.Svc.UpdateJob(ctx, w.Job("backend"), pipeline.JobPatch{Title: &title, Status: &draft})
		require.NoError(t, err)
		assert.Equal(t, title, res.Value.Title)
		assert.Equal(t, draft, res.Value.Status)
		got, err := w.Svc.GetJob(ctx, w.Job("backend"))
		require.NoError(t, err)
		assert.Equal(t, res.Value, got)

		l, err := w.Svc.ListJobs(ctx, pipeline.JobFilter{Status: draft, Search: "INGÉNIEUR"})
		require.NoError(t, err)
		require.Len(t, l.Items, 1, "the search follows the new title")

		log := w.Activity(t)
		require.Len(t, log, 1)
		assert.Equal(t, pipeline.ActionJobUpdated, log[0].Action)
		var changes map[string]pipeline.Change
		require.NoError(t, json.Unmarshal(log[0].Changes, &changes))
		assert.Equal(t, map[string]pipeline.Change{
			"title":  {Before: "Backend Engineer", After: title},
			"status": {Before: "open", After: "draft"},
		}, changes)
	})
	each(t, "unchanged writes nothing", func(t *testing.T, w world) {
		res, err := w.Svc.UpdateJob(w.As(t, "olivia"), w.Job("backend"), pipeline.JobPatch{Title: &same})
		require.NoError(t, err)
		assert.Equal(t, same, res.Value.Title)
		assert.Empty(t, w.Activity(t))
	})
	upper := pipeline.JobStatus("OPEN")
	for name, p := range map[string]pipeline.JobPatch{
		"no fields":      {},
		"status in caps": {Status: &upper},
		"blank title":    {Title: new(string)},
	} {
		each(t, name, func(t *testing.T, w world) {
			_, err := w.Svc.UpdateJob(w.As(t, "olivia"), w.Job("backend"), p)
			assert.ErrorIs(t, err, pipeline.ErrValidation)
		})
	}
	each(t, "a job the caller cannot reach", func(t *testing.T, w world) {
		_, err := w.Svc.UpdateJob(w.As(t, "mia"), w.Job("frontend"), pipeline.JobPatch{Title: &title})
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
		_, err = w.Svc.UpdateJob(context.Background(), w.Job("frontend"), pipeline.JobPatch{Title: &title})
		assert.ErrorIs(t, err, pipeline.ErrUnauthenticated)
	})
}

// jobProbes call the operations of this file's resource for the tables of
// operations (see probe).
var jobProbes = []operation{
	{pipeline.OpListJobs, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.ListJobs(ctx, pick(p, pipeline.JobFilter{}, pipeline.JobFilter{Status: "OPEN"}))
		return err
	}},
	{pipeline.OpGetJob, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.GetJob(ctx, p.ref.Job)
		return err
	}},
	{pipeline.OpCreateJob, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.CreateJob(ctx, pipeline.NewJob{Title: pick(p, "Probe", " "), Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
	{pipeline.OpUpdateJob, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.UpdateJob(ctx, p.ref.Job, pipeline.JobPatch{Title: new(pick(p, "Probe", "")), Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
}
