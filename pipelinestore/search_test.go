package pipelinestore_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// insertCandidates adds n candidates to a job in a few statements: every
// third is a Johnson, every hundredth a Zed, the rest Persons; applied
// dates repeat, so that the order's tie on the date is broken by id.
func insertCandidates(t *testing.T, db *pipelinestore.DB, jobID int64, stages []int64, n int) {
	t.Helper()
	const perStatement = 400
	now := time.Now().UTC()
	for from := 0; from < n; from += perStatement {
		var rows []string
		var vals []any
		for i := from; i < min(n, from+perStatement); i++ {
			name := fmt.Sprintf("Person %d", i)
			switch {
			case i%100 == 7:
				name = fmt.Sprintf("Zed Zedson-Quay %d", i)
			case i%3 == 0:
				name = fmt.Sprintf("Pat Johnson %d", i)
			}
			email := fmt.Sprintf("c%d.%d@example.test", jobID, i)
			status := pipeline.CandidateActive
			if i%5 == 0 {
				status = pipeline.CandidateRejected
			}
			k := len(vals)
			rows = append(rows, fmt.Sprintf("($%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d, '', $%d, $%d)",
				k+1, k+2, k+3, k+4, k+5, k+6, k+7, k+8, k+9, k+9))
			vals = append(vals, jobID, stages[i%len(stages)], name, email, pipeline.Fold(name), pipeline.Fold(email),
				time.Date(2026, 1, 1+i%40, 0, 0, 0, 0, time.UTC).Format(time.DateOnly), string(status), now)
		}
		require.NoError(t, pipelinestore.Exec(db, `INSERT INTO candidates
(job_id, stage_id, name, email, name_fold, email_fold, applied, status, resume_url, created_at, updated_at)
VALUES `+strings.Join(rows, ", "), vals...))
	}
}

// TestStore_ListCandidates_SearchPages checks the pages and totals of
// common, rare and short terms (one too short for a trigram included), in
// a job that holds a small part of the table and one that holds most of
// it: every page of each search must be the job's list filtered by the
// term, in order, with the exact total.
func TestStore_ListCandidates_SearchPages(t *testing.T) {
	storetest.EachDB(t, searchPages)
}

// TestStore_ListCandidates_SearchPagesOfLargeJobs: the same on PostgreSQL
// with every job counted large, so that each search after a job's first
// runs the statements of a large job's searches, planned at each run.
func TestStore_ListCandidates_SearchPagesOfLargeJobs(t *testing.T) {
	searchPages(t, storetest.OpenPostgres(t, pipelinestore.WithLargeJobSize(1)))
}

func searchPages(t *testing.T, db *pipelinestore.DB) {
	f := seeded(t, db)
	ctx := context.Background()
	olivia := f.User("olivia")
	ids := func(stages map[string]int64) []int64 {
		return []int64{stages["Applied"], stages["Screening"], stages["Interview"]}
	}
	// backend holds less than an eighth of the table, frontend more.
	insertCandidates(t, db, f.Job("backend"), ids(f.Res.Stages["backend"]), 200)
	insertCandidates(t, db, f.Job("frontend"), ids(f.Res.Stages["frontend"]), 1500)
	require.NoError(t, pipelinestore.Exec(db, "ANALYZE candidates"))

	// all is the job's list with the stage and status filters, page by
	// page; want filters it by the search as the API defines it.
	lists := map[string][]pipeline.Candidate{}
	all := func(job int64, filter pipeline.CandidateFilter) []pipeline.Candidate {
		filter.Search, filter.Page = "", 1
		key := fmt.Sprintf("%d %+v", job, filter)
		if out, ok := lists[key]; ok {
			return slices.Clone(out)
		}
		out := []pipeline.Candidate{}
		for ; ; filter.Page++ {
			l, err := db.Candidates().List(ctx, pipeline.ListCandidatesParams{Viewer: olivia, JobID: job, Filter: filter})
			require.NoError(t, err)
			if len(l.Items) == 0 {
				lists[key] = out
				return slices.Clone(out)
			}
			out = append(out, l.Items...)
		}
	}
	for _, job := range []string{"backend", "frontend"} {
		stages := f.Res.Stages[job]
		for _, filter := range []pipeline.CandidateFilter{
			{Search: "JOHNSON"}, {Search: "zedson-q"}, {Search: "ohns"}, {Search: "nobody"}, {Search: "on"}, {Search: "-"},
			{Search: "johnson", StageID: stages["Screening"]}, {Search: "johnson", Status: pipeline.CandidateRejected},
			{Search: "zed", StageID: stages["Interview"], Status: pipeline.CandidateActive},
		} {
			name := fmt.Sprintf("%s %+v", job, filter)
			term := pipeline.Fold(filter.Search)
			want := slices.DeleteFunc(all(f.Job(job), filter), func(c pipeline.Candidate) bool {
				return !strings.Contains(pipeline.Fold(c.Name), term) && !strings.Contains(pipeline.Fold(c.Email), term)
			})
			got := []pipeline.Candidate{}
			last := (len(want) + pipeline.PageSize - 1) / pipeline.PageSize
			for filter.Page = 1; filter.Page <= last+1; filter.Page++ {
				l, err := db.Candidates().List(ctx, pipeline.ListCandidatesParams{Viewer: olivia, JobID: f.Job(job), Filter: filter})
				require.NoError(t, err, name)
				assert.Equal(t, len(want), l.Total, "%s: the total of page %d", name, filter.Page)
				assert.Equal(t, max(last, 1), l.LastPage(), name)
				got = append(got, l.Items...)
			}
			assert.Equal(t, want, got, name)
		}
	}
}

// TestStore_ListCandidates_LargeJobSearchFollowsWrites: a large job's
// searches read candidate_search, the copy of the searched columns; a
// candidate added, renamed, given another email, moved or deleted is
// found, or not, by the next search, with the filters and the total.
func TestStore_ListCandidates_LargeJobSearchFollowsWrites(t *testing.T) {
	db := storetest.OpenPostgres(t, pipelinestore.WithLargeJobSize(1))
	f := seeded(t, db)
	ctx := f.As(t, "olivia")
	job, stages := f.Job("backend"), f.Res.Stages["backend"]
	found := func(filter pipeline.CandidateFilter) []string {
		t.Helper()
		filter.Page = 1
		l, err := f.Svc.ListCandidates(ctx, job, filter)
		require.NoError(t, err)
		names := []string{}
		for _, c := range l.Items {
			names = append(names, c.Name+" <"+c.Email+">")
		}
		assert.Len(t, names, l.Total, "the total of %+v", filter)
		return names
	}
	// The job's first search finds it large; the next ones read the copy.
	require.Empty(t, found(pipeline.CandidateFilter{Search: "kowalczyk"}))

	added, err := f.Svc.AddCandidate(ctx, job, pipeline.NewCandidate{Name: "Ada Kowalczyk", Email: "ada@kw.example"})
	require.NoError(t, err)
	id := added.Value.ID
	assert.Equal(t, []string{"Ada Kowalczyk <ada@kw.example>"}, found(pipeline.CandidateFilter{Search: "KOWALCZYK"}))

	name, email := "Ada Nowak", "ada@nw.example"
	_, err = f.Svc.UpdateCandidate(ctx, job, id, pipeline.CandidatePatch{Name: &name, Email: &email})
	require.NoError(t, err)
	assert.Empty(t, found(pipeline.CandidateFilter{Search: "kowalczyk"}), "the old name")
	assert.Empty(t, found(pipeline.CandidateFilter{Search: "kw.example"}), "the old email")
	assert.Equal(t, []string{"Ada Nowak <ada@nw.example>"}, found(pipeline.CandidateFilter{Search: "nowak"}))
	assert.Equal(t, []string{"Ada Nowak <ada@nw.example>"}, found(pipeline.CandidateFilter{Search: "nw.exa"}))

	_, err = f.Svc.MoveCandidate(ctx, job, id, pipeline.CandidateMove{StageID: stages["Screening"]})
	require.NoError(t, err)
	assert.Equal(t, []string{"Ada Nowak <ada@nw.example>"},
		found(pipeline.CandidateFilter{Search: "nowak", StageID: stages["Screening"], Status: pipeline.CandidateActive}))
	assert.Empty(t, found(pipeline.CandidateFilter{Search: "nowak", StageID: stages["Applied"]}), "the stage it left")

	require.NoError(t, pipelinestore.Exec(db, "DELETE FROM candidates WHERE id = $1", id))
	assert.Empty(t, found(pipeline.CandidateFilter{Search: "nowak"}), "deleted")
}

// TestMigration_CandidateSearch: on a database whose candidates were
// written before candidate_search existed, the migration copies every
// one, so that a large job's searches find them all.
func TestMigration_CandidateSearch(t *testing.T) {
	const migration = "migrations/postgres/20261128000000_candidate_search.tx."
	db := storetest.OpenPostgres(t, pipelinestore.WithLargeJobSize(1))
	f := seeded(t, db)
	run := func(file string) {
		raw, err := os.ReadFile(migration + file)
		require.NoError(t, err)
		require.NoError(t, pipelinestore.ExecTx(db, strings.Split(string(raw), "--bun:split")...), file)
	}
	run("down.sql")
	stages := f.Res.Stages["backend"]
	insertCandidates(t, db, f.Job("backend"), []int64{stages["Applied"], stages["Screening"]}, 60)
	run("up.sql")

	ctx := f.As(t, "olivia")
	var want int
	require.NoError(t, pipelinestore.Query(context.Background(), db, `SELECT count(*) FROM candidates
WHERE job_id = `+strconv.FormatInt(f.Job("backend"), 10)+` AND (name_fold LIKE '%johnson%' OR email_fold LIKE '%johnson%')`, &want))
	require.Equal(t, 20, want, "every third of the 60 is a Johnson")
	for range 2 { // the job's first search finds it large; the second reads the copy
		l, err := f.Svc.ListCandidates(ctx, f.Job("backend"), pipeline.CandidateFilter{Search: "Johnson", Page: 1})
		require.NoError(t, err)
		assert.Equal(t, want, l.Total)
	}
}
