package pipelinestore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// ListCandidates returns a page of a job's candidates, newest applicant
// first, each with its stage name, in one query with a window count. Only
// when that page is empty does a second query tell why: the job is not
// reachable (not_found), the stage filter names no stage of the job
// (pipeline.ErrStageNotInJob), or the page is past the last (the total).
func (db *DB) ListCandidates(ctx context.Context, viewer, jobID int64, f pipeline.CandidateFilter) (pipeline.List[pipeline.Candidate], error) {
	offset := pipeline.Offset(f.Page)
	stage := bun.SafeQuery("")
	if f.StageID != 0 {
		stage = bun.SafeQuery("AND c.stage_id = ?", f.StageID)
	}
	search := searchCond(f.Search, "c.name_fold", "c.email_fold")

	var rows []candidateRow
	err := db.r.NewRaw(`SELECT c.*, j.team_id, s.name AS stage, count(*) OVER () AS total
FROM jobs AS j
JOIN candidates AS c ON c.job_id = j.id
JOIN stages AS s ON s.id = c.stage_id
WHERE j.id = ? AND ? ? ?
ORDER BY c.applied DESC, c.id DESC LIMIT ? OFFSET ?`,
		jobID, visibleJob(viewer), stage, search, pipeline.PageSize, offset).Scan(ctx, &rows)
	if err != nil {
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

	stageOK := bun.SafeQuery("1")
	if f.StageID != 0 {
		stageOK = bun.SafeQuery(`CASE WHEN EXISTS (SELECT 1 FROM stages AS s WHERE s.id = ? AND s.job_id = j.id) THEN 1 ELSE 0 END`, f.StageID)
	}
	var empty struct {
		Total   int `bun:"total"`
		StageOK int `bun:"stage_ok"`
	}
	err = db.r.NewRaw(`SELECT (SELECT count(*) FROM candidates AS c WHERE c.job_id = j.id ? ?) AS total, ? AS stage_ok
FROM jobs AS j WHERE j.id = ? AND ?`,
		stage, search, stageOK, jobID, visibleJob(viewer)).Scan(ctx, &empty)
	if err != nil {
		return pipeline.List[pipeline.Candidate]{}, formatError(err, "Job")
	}
	if empty.StageOK == 0 {
		return pipeline.List[pipeline.Candidate]{}, pipeline.ErrStageNotInJob
	}
	list.Total = empty.Total
	return list, nil
}

// Candidate returns a candidate of a job viewer can reach, with its stage
// name and notes count, in one query.
func (db *DB) Candidate(ctx context.Context, viewer, jobID, id int64) (pipeline.Candidate, error) {
	return selectCandidate(ctx, db.r, viewer, jobID, id)
}

func selectCandidate(ctx context.Context, idb bun.IDB, viewer, jobID, id int64) (pipeline.Candidate, error) {
	var r candidateRow
	err := idb.NewRaw(`SELECT c.*, j.team_id, s.name AS stage,
	(SELECT count(*) FROM notes AS n WHERE n.candidate_id = c.id) AS notes_count
FROM candidates AS c
JOIN jobs AS j ON j.id = c.job_id
JOIN stages AS s ON s.id = c.stage_id
WHERE c.id = ? AND c.job_id = ? AND ?`, id, jobID, visibleJob(viewer)).Scan(ctx, &r)
	if err != nil {
		return pipeline.Candidate{}, formatError(err, "Candidate")
	}
	return r.toCandidate(), nil
}

// CandidateForUpdate returns a candidate of a job viewer can reach, with
// its stage and notes count; its row stays locked until the transaction
// ends.
//
// On PostgreSQL the lock is a statement of its own, before the read: a
// locking read that waited for another writer sees that writer's candidate
// row but not its other rows (its statement snapshot predates them, so a
// new note would be missing from the count), and a join on the stage would
// drop the row when the other writer had moved the candidate. The read
// that follows the lock takes a fresh snapshot and sees everything
// committed.
func (t *tx) CandidateForUpdate(ctx context.Context, viewer, jobID, id int64) (pipeline.Candidate, error) {
	if t.pg {
		var locked int64
		err := t.idb.NewRaw(`SELECT c.id FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE c.id = ? AND c.job_id = ? AND ?`+t.forUpdate("c"), id, jobID, visibleJob(viewer)).Scan(ctx, &locked)
		if err != nil {
			return pipeline.Candidate{}, formatError(err, "Candidate")
		}
	}
	return selectCandidate(ctx, t.idb, viewer, jobID, id)
}

// SetCandidateStage moves a candidate to a stage.
func (t *tx) SetCandidateStage(ctx context.Context, candidateID, stageID int64, at time.Time) error {
	res, err := t.idb.NewRaw(`UPDATE candidates SET stage_id = ?, updated_at = ? WHERE id = ?`,
		stageID, ts(at), candidateID).Exec(ctx)
	if err != nil {
		return formatError(err, "Candidate")
	}
	return expectRow(res, "Candidate")
}
