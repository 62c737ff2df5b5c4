package pipelinestore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// assertTotalsCounted checks backend's list total and every stage filter's
// total against count(*) of the candidates.
func assertTotalsCounted(t *testing.T, f fixture, when string) {
	t.Helper()
	ctx := context.Background()
	var all int
	require.NoError(t, pipelinestore.Query(ctx, f.DB, fmt.Sprintf(`SELECT count(*) FROM candidates WHERE job_id = %d`, f.Job("backend")), &all))
	assert.Equal(t, all, listBackend(t, f, pipeline.CandidateFilter{}).Total, "the job's total %s", when)
	for name, id := range f.Res.Stages["backend"] {
		var n int
		require.NoError(t, pipelinestore.Query(ctx, f.DB, fmt.Sprintf(`SELECT count(*) FROM candidates WHERE stage_id = %d`, id), &n))
		assert.Equal(t, n, listBackend(t, f, pipeline.CandidateFilter{StageID: id}).Total, "%s's total %s", name, when)
	}
}

// TestStore_StageCounts: concurrent moves keep every total exact, read
// before their deltas are folded (PostgreSQL) and after; the fold moves
// the deltas into the stages' counts exactly.
func TestStore_StageCounts(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		ctx := context.Background()
		f := crowded(t, db)
		pg := db.Dialect() == pipelinestore.DialectPostgres
		if pg {
			pipelinestore.PauseFolds(db)
			_, err := pipelinestore.FoldStageCounts(ctx, db) // the seed's
			require.NoError(t, err)
		}
		as := f.As(t, "olivia")
		stages := []string{"Screening", "Interview", "Offer", "Applied"}
		var wg sync.WaitGroup
		for i := range 20 {
			key := fmt.Sprintf("extra%02d", i)
			wg.Go(func() {
				for r, st := range stages[:1+i%len(stages)] {
					_, err := f.Svc.MoveCandidate(as, f.Job("backend"), f.Res.Candidates[key],
						pipeline.CandidateMove{StageID: f.Res.Stages["backend"][st], Idempotency: &pipeline.Idempotency{Key: fmt.Sprintf("%s-%d", key, r)}})
					assert.NoError(t, err)
				}
			})
		}
		wg.Wait()
		_, err := f.Svc.AddCandidate(as, f.Job("backend"), pipeline.NewCandidate{Name: "Late Comer", Email: "late@example.test"})
		require.NoError(t, err)
		if !pg {
			assertTotalsCounted(t, f, "after the moves")
			return
		}
		var deltas int
		require.NoError(t, pipelinestore.Query(ctx, db, `SELECT count(*) FROM stage_count_deltas`, &deltas))
		require.Equal(t, 2*(5+10+15+20)+1, deltas, "a row a stage a move, and one for the intake")
		assertTotalsCounted(t, f, "with the deltas unfolded")

		folded, err := pipelinestore.FoldStageCounts(ctx, db)
		require.NoError(t, err)
		assert.EqualValues(t, deltas, folded)
		require.NoError(t, pipelinestore.Query(ctx, db, `SELECT count(*) FROM stage_count_deltas`, &deltas))
		assert.Zero(t, deltas, "the fold took every committed delta")
		var wrong int
		require.NoError(t, pipelinestore.Query(ctx, db, `SELECT count(*) FROM stages AS s
WHERE s.candidate_count <> (SELECT count(*) FROM candidates AS c WHERE c.stage_id = s.id)`, &wrong))
		assert.Zero(t, wrong, "every stage's folded count is its number of candidates")
		assertTotalsCounted(t, f, "after the fold")
	})
}

// TestStore_StageOfJob: a candidate's stage is a stage of its own job,
// whoever writes the row.
func TestStore_StageOfJob(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := seeded(t, db)
		other := f.Res.Stages["frontend"]["Screening"]
		err := pipelinestore.Exec(db, fmt.Sprintf(`UPDATE candidates SET stage_id = %d WHERE id = %d`, other, f.Res.Candidates["ada"]))
		require.Error(t, err, "a stage of another job")
		require.NoError(t, pipelinestore.Exec(db, fmt.Sprintf(`UPDATE candidates SET stage_id = %d WHERE id = %d`,
			f.Res.Stages["backend"]["Offer"], f.Res.Candidates["ada"])), "a stage of its job")
	})
}
