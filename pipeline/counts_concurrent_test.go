package pipeline_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// countListed counts the candidates a filter lists by walking its pages,
// and returns that count and the first page's total.
func countListed(t *testing.T, ctx context.Context, svc *pipeline.Service, job int64, f pipeline.CandidateFilter) (rows, total int) {
	t.Helper()
	for f.Page = 1; ; f.Page++ {
		l, err := svc.ListCandidates(ctx, job, f)
		require.NoError(t, err)
		if f.Page == 1 {
			total = l.Total
		}
		rows += len(l.Items)
		if len(l.Items) < pipeline.PageSize {
			return rows, total
		}
	}
}

// TestService_Counts_Concurrent: a burst of intakes and moves of one job's
// candidates on two replicas at once leaves every total (the job's and each
// stage's) equal to the number of candidates listed, as soon as the burst
// ends and once the counts have been folded; concurrent job creations on
// two replicas stop exactly at the plan's limit.
func TestService_Counts_Concurrent(t *testing.T) {
	eachReplicated(t, "moves on two replicas", func(t *testing.T, w world, other *pipeline.Service) {
		job := w.Job("backend")
		stages := w.Res.Stages["backend"]
		svcs := []*pipeline.Service{w.Svc, other}
		var ids []int64
		for i := range 16 {
			res, err := svcs[i%2].AddCandidate(w.As(t, "olivia"), job,
				pipeline.NewCandidate{Name: fmt.Sprintf("Racer %d", i), Email: fmt.Sprintf("racer%d@example.test", i)})
			require.NoError(t, err)
			ids = append(ids, res.Value.ID)
		}
		order := []string{"Screening", "Interview", "Offer", "Screening", "Hired", "Applied"}
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, id := range ids {
			ctx := w.As(t, []string{"olivia", "mia"}[i%2])
			wg.Go(func() {
				<-start
				for r, st := range order[:1+i%len(order)] {
					_, err := svcs[(i+r)%2].MoveCandidate(ctx, job, id, pipeline.CandidateMove{StageID: stages[st]})
					assert.NoError(t, err)
				}
				_, err := svcs[i%2].AddCandidate(ctx, job,
					pipeline.NewCandidate{Name: fmt.Sprintf("Late %d", i), Email: fmt.Sprintf("late%d@example.test", i)})
				assert.NoError(t, err)
			})
		}
		close(start)
		wg.Wait()
		check := func(when string) {
			for _, svc := range svcs {
				ctx := w.As(t, "olivia")
				rows, total := countListed(t, ctx, svc, job, pipeline.CandidateFilter{})
				assert.Equal(t, rows, total, "meta.total of the job %s", when)
				sum := 0
				for name, id := range stages {
					rows, total := countListed(t, ctx, svc, job, pipeline.CandidateFilter{StageID: id})
					assert.Equal(t, rows, total, "meta.total of %s %s", name, when)
					sum += rows
				}
				assert.Equal(t, 3+2*len(ids), sum, "every candidate is in one stage")
			}
		}
		check("right after the burst")
		time.Sleep(300 * time.Millisecond) // the replicas fold their deltas meanwhile
		check("after the folds")
	})
	eachReplicated(t, "job creations on two replicas", func(t *testing.T, w world, other *pipeline.Service) {
		fillJobs(t, w, 17)
		svcs := []*pipeline.Service{w.Svc, other}
		const n = 12
		errs := make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			ctx := w.As(t, "olivia")
			wg.Go(func() {
				<-start
				_, errs[i] = svcs[i%2].CreateJob(ctx, pipeline.NewJob{Title: fmt.Sprintf("Racer %d", i)})
			})
		}
		close(start)
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			} else {
				assert.Equal(t, pipeline.EForbidden, pipeline.ErrorCode(err), "error: %v", err)
			}
		}
		assert.Equal(t, 3, ok, "exactly the free slots of the plan's limit")
	})
}
