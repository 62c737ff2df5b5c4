package pipelinestore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestStore_RoundTrips pins how many statements each operation sends, the
// token lookup of its request included: reads are one query plus the
// token's, whatever the page size, so no query is made per element.
func TestStore_RoundTrips(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := seeded(t, db)
		ctx := context.Background()
		token := f.Res.Tokens["olivia"]
		// The first use of a token records it; later requests within a
		// minute write nothing.
		_, err := f.Svc.Authenticate(ctx, token)
		require.NoError(t, err)
		// Enough candidates to fill a page, so a per-element query would show.
		job := f.Job("backend")
		for i := range 20 {
			_, err := f.Svc.AddNote(f.As(t, "olivia"), job, f.Res.Candidates[[]string{"ada", "grace", "linus"}[i%3]],
				pipeline.NewNote{Content: "note"})
			require.NoError(t, err)
		}
		n := pipelinestore.CountQueries(db)
		count := func(op func(ctx context.Context) error) int64 {
			t.Helper()
			before := n.Load()
			c, err := f.Svc.Authenticate(ctx, token)
			require.NoError(t, err)
			require.NoError(t, op(pipeline.NewContext(ctx, c)))
			return n.Load() - before
		}
		reads := map[string]func(ctx context.Context) error{
			"Me":       func(ctx context.Context) error { _, err := f.Svc.Me(ctx); return err },
			"ListJobs": func(ctx context.Context) error { _, err := f.Svc.ListJobs(ctx, pipeline.JobFilter{}); return err },
			"Job":      func(ctx context.Context) error { _, err := f.Svc.Job(ctx, job); return err },
			"Stages":   func(ctx context.Context) error { _, err := f.Svc.Stages(ctx, job); return err },
			"ListCandidates": func(ctx context.Context) error {
				_, err := f.Svc.ListCandidates(ctx, job, pipeline.CandidateFilter{})
				return err
			},
			"Candidate": func(ctx context.Context) error {
				_, err := f.Svc.Candidate(ctx, job, f.Res.Candidates["ada"])
				return err
			},
		}
		want := map[string]int64{"Me": 1, "ListJobs": 2, "Job": 2, "Stages": 2, "ListCandidates": 2, "Candidate": 2}
		for name, op := range reads {
			assert.Equal(t, want[name], count(op), name)
		}

		if db.Dialect() == pipelinestore.DialectPostgres {
			l := db.Limiter(60)
			before := n.Load()
			_, err := l.Take(ctx, "user:1", time.Now())
			require.NoError(t, err)
			assert.EqualValues(t, 1, n.Load()-before, "the shared rate limiter is one statement a request")
		}
	})
}
