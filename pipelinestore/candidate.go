package pipelinestore

import (
	"context"
	"strconv"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// candidateColumns are a candidate's columns for the domain, with its team
// and stage name, on candidates c and jobs j.
const candidateColumns = `c.id, c.job_id, c.stage_id, c.name, c.email, c.applied, c.status, c.resume_url, c.notes_count,
	j.team_id, (SELECT s.name FROM stages AS s WHERE s.id = c.stage_id) AS stage`

// The candidate list's parameters: the job, the viewer, then the stage and
// the search pattern when the filter has them, then the offset.
func candidateListQuery(stage, search bool) candidateQuery {
	q := candidateQuery{job: `j.id = $1 AND ` + visible(2), cond: `c.job_id = j.id`}
	n := 2
	if stage {
		n++
		q.stage = "$" + strconv.Itoa(n)
		q.cond += ` AND c.stage_id = ` + q.stage
	}
	if search {
		n++
		q.search = true
		q.cond += ` AND ` + matches(n, "c.name_fold", "c.email_fold")
	}
	q.page = `SELECT ` + candidateColumns + `, ` + q.pageTotal() + ` AS total
FROM jobs AS j JOIN candidates AS c ON ` + q.cond + `
WHERE ` + q.job + `
ORDER BY c.applied DESC, c.id DESC LIMIT ` + strconv.Itoa(pipeline.PageSize) + ` OFFSET $` + strconv.Itoa(n+1)
	q.empty = `SELECT ` + q.total() + ` AS total, ` + q.stageOK() + ` AS stage_ok FROM jobs AS j WHERE ` + q.job
	return q
}

// candidateQuery is the SQL of a candidate list: job is the condition on
// the job j (its id, and the viewer reaching it), cond the join condition
// of its candidates c that pass the filter; page reads a page, and empty
// tells why a page is empty.
type candidateQuery struct {
	job, cond   string
	stage       string // the stage's placeholder, "" when not filtered
	search      bool
	page, empty string
}

// The list queries without a search are prepared; a search is planned for
// its pattern (see runner.planned).
var (
	qCandidates      = prepareCandidateList(candidateListQuery(false, false))
	qStageCandidates = prepareCandidateList(candidateListQuery(true, false))
)

func prepareCandidateList(q candidateQuery) candidateQuery {
	prepared(q.page)
	prepared(q.empty)
	return q
}

// ListCandidates returns a page of a job's candidates, newest applicant
// first, each with its stage name, in one query. The total is read from
// the stages' counts, or, for a search, counted with a window over the
// matching rows. Only when the page is empty does a second query tell why:
// the job is not reachable (not_found), the stage filter names no stage of
// the job (pipeline.ErrStageNotInJob), or the page is past the last (the
// total).
func (db *DB) ListCandidates(ctx context.Context, viewer, jobID int64, f pipeline.CandidateFilter) (pipeline.List[pipeline.Candidate], error) {
	q, run, filter := qCandidates, db.read(), args(jobID, viewer)
	if f.StageID != 0 {
		q, filter = qStageCandidates, append(filter, f.StageID)
	}
	if f.Search != "" {
		q, run, filter = candidateListQuery(f.StageID != 0, true), run.planned(), append(filter, likePattern(f.Search))
	}
	var rows []candidateRow
	if err := run.all(ctx, q.page, append(filter, pipeline.Offset(f.Page)), &rows); err != nil {
		return pipeline.List[pipeline.Candidate]{}, formatError(err, "Candidate")
	}
	list := pipeline.List[pipeline.Candidate]{Page: f.Page, PerPage: pipeline.PageSize, Items: make([]pipeline.Candidate, len(rows))}
	for i, r := range rows {
		list.Items[i] = r.toCandidate()
	}
	if len(rows) > 0 {
		list.Total = rows[0].Total
		return list, nil
	}
	var empty struct {
		Total   int `bun:"total"`
		StageOK int `bun:"stage_ok"`
	}
	if err := run.get(ctx, q.empty, filter, &empty); err != nil {
		return pipeline.List[pipeline.Candidate]{}, formatError(err, "Job")
	}
	if empty.StageOK == 0 {
		return pipeline.List[pipeline.Candidate]{}, pipeline.ErrStageNotInJob
	}
	list.Total = empty.Total
	return list, nil
}

// total is the number of the job's candidates that pass the filter: kept
// by the stages, or counted for a search.
func (q candidateQuery) total() string {
	switch {
	case q.search:
		return `(SELECT count(*) FROM candidates AS c WHERE ` + q.cond + `)`
	case q.stage != "":
		return `COALESCE((SELECT st.candidate_count FROM stages AS st WHERE st.id = ` + q.stage + ` AND st.job_id = j.id), 0)`
	}
	return `(SELECT CAST(COALESCE(sum(st.candidate_count), 0) AS BIGINT) FROM stages AS st WHERE st.job_id = j.id)`
}

// pageTotal is total in a page's query: a window count of a search's rows,
// which the page query reads anyway.
func (q candidateQuery) pageTotal() string {
	if q.search {
		return "count(*) OVER ()"
	}
	return q.total()
}

// stageOK is 1 when the stage filter, if any, names a stage of the job.
func (q candidateQuery) stageOK() string {
	if q.stage == "" {
		return "1"
	}
	return `CASE WHEN EXISTS (SELECT 1 FROM stages AS s WHERE s.id = ` + q.stage + ` AND s.job_id = j.id) THEN 1 ELSE 0 END`
}

var (
	qCandidate = preparedLockable(`SELECT `+candidateColumns+`
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE c.id = $1 AND c.job_id = $2 AND `+visible(3), ` FOR NO KEY UPDATE OF c`)
	qSetCandidateStage = prepared(`UPDATE candidates SET stage_id = $1, updated_at = $2 WHERE id = $3`)
)

// Candidate returns a candidate of a job viewer can reach, with its stage
// name and notes count, in one query.
func (db *DB) Candidate(ctx context.Context, viewer, jobID, id int64) (pipeline.Candidate, error) {
	return selectCandidate(ctx, db.read(), qCandidate.plain, viewer, jobID, id)
}

func selectCandidate(ctx context.Context, run runner, query string, viewer, jobID, id int64) (pipeline.Candidate, error) {
	var r candidateRow
	err := run.get(ctx, query, args(id, jobID, viewer), &r)
	if err != nil {
		return pipeline.Candidate{}, formatError(err, "Candidate")
	}
	return r.toCandidate(), nil
}

// CandidateForUpdate returns a candidate of a job viewer can reach, with
// its stage and notes count; its row stays locked until the transaction
// ends. A locking read that waited for another writer reads the row as
// that writer left it, and the stage name and notes count come from that
// row (its stage id, its notes_count column), so they are current too.
func (t *tx) CandidateForUpdate(ctx context.Context, viewer, jobID, id int64) (pipeline.Candidate, error) {
	return selectCandidate(ctx, t.run, t.lock(qCandidate), viewer, jobID, id)
}

// SetCandidateStage moves a candidate to a stage.
func (t *tx) SetCandidateStage(ctx context.Context, candidateID, stageID int64, at time.Time) error {
	res, err := t.run.exec(ctx, qSetCandidateStage, stageID, ts(at), candidateID)
	if err != nil {
		return formatError(err, "Candidate")
	}
	return expectRow(res, "Candidate")
}
