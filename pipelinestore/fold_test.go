package pipelinestore_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// foldMigration is the migration that folds again the copies stored
// before search folded by simple case folding.
const foldMigration = "20261126000000_simple_case_folding.tx.up.sql"

// TestMigration_Fold: the migration folds again exactly the letters whose
// folding changed (lower case before, pipeline.Fold now), on both
// databases, and a copy folded the old way is found by the new folding
// once it has run.
func TestMigration_Fold(t *testing.T) {
	changed := map[rune]rune{}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) || unicode.ToLower(r) != r {
			continue
		}
		if f := []rune(pipeline.Fold(string(r))); f[0] != r {
			changed[r] = f[0]
		}
	}
	require.NotEmpty(t, changed)

	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		raw, err := os.ReadFile("migrations/" + db.Dialect() + "/" + foldMigration)
		require.NoError(t, err)
		assert.Equal(t, changed, migrationPairs(t, db.Dialect(), string(raw)))

		f := seeded(t, db)
		olivia := f.As(t, "olivia")
		job, err := f.Svc.CreateJob(olivia, pipeline.NewJob{Title: "Λογιστής"})
		require.NoError(t, err)
		// The copies as they were folded before: the final ς kept.
		ada := f.Res.Candidates["ada"]
		require.NoError(t, pipelinestore.Exec(db, `UPDATE jobs SET title_fold = $1 WHERE id = $2`, "λογιστής", job.Value.ID))
		require.NoError(t, pipelinestore.Exec(db, `UPDATE candidates SET name = $1, name_fold = $2, email_fold = $3 WHERE id = $4`,
			"Σωκράτης", "σωκράτης", "σωκράτης@example.test", ada))
		search := func() (jobs, candidates, emails int) {
			j, err := f.Svc.ListJobs(olivia, pipeline.JobFilter{Search: "ΛΟΓΙΣΤΉΣ"})
			require.NoError(t, err)
			c, err := f.Svc.ListCandidates(olivia, f.Job("backend"), pipeline.CandidateFilter{Search: "ΣΩΚΡΆΤΗΣ"})
			require.NoError(t, err)
			e, err := f.Svc.ListCandidates(olivia, f.Job("backend"), pipeline.CandidateFilter{Search: "ΣΩΚΡΆΤΗΣ@"})
			require.NoError(t, err)
			return j.Total, c.Total, e.Total
		}
		j, c, e := search()
		assert.Zero(t, j+c+e, "the old copies are not found by the new folding")
		for _, stmt := range strings.Split(string(raw), "--bun:split") {
			require.NoError(t, pipelinestore.Exec(db, stmt))
		}
		j, c, e = search()
		assert.Equal(t, []int{1, 1, 1}, []int{j, c, e})
	})
}

// migrationPairs reads the letters the migration replaces, and by what,
// from its statement on jobs.
func migrationPairs(t *testing.T, dialect, sql string) map[rune]rune {
	t.Helper()
	pairs := map[rune]rune{}
	if dialect == pipelinestore.DialectPostgres {
		m := regexp.MustCompile(`translate\(title_fold, '([^']*)', '([^']*)'\)`).FindStringSubmatch(sql)
		require.NotNil(t, m)
		from, to := []rune(m[1]), []rune(m[2])
		require.Len(t, to, len(from))
		for i := range from {
			pairs[from[i]] = to[i]
		}
		return pairs
	}
	jobs, _, _ := strings.Cut(sql, "--bun:split")
	for _, m := range regexp.MustCompile(`, '([^']+)', '([^']+)'\)`).FindAllStringSubmatch(jobs, -1) {
		from, to := []rune(m[1]), []rune(m[2])
		require.Len(t, from, 1)
		require.Len(t, to, 1)
		pairs[from[0]] = to[0]
	}
	return pairs
}
