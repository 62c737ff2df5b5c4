package pipelinestore

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// ListJobs returns a page of the jobs viewer can reach on all of its teams,
// newest first, in one query with a window count; only a page past the last
// costs a second query, for the total.
func (db *DB) ListJobs(ctx context.Context, viewer int64, f pipeline.JobFilter) (pipeline.List[pipeline.Job], error) {
	offset := pipeline.Offset(f.Page)
	// The team_id IN (…) condition repeats part of the visibility rule so
	// that the planner starts from the viewer's memberships and walks
	// jobs(team_id, status, created_at, id) instead of every job.
	where := bun.SafeQuery(`j.team_id IN (SELECT m.team_id FROM memberships AS m WHERE m.user_id = ?)
AND j.status = ? AND ? ?`, viewer, string(f.Status), visibleJob(viewer), searchCond(f.Search, "j.title_fold"))
	var rows []jobRow
	err := db.r.NewRaw(`SELECT j.*, count(*) OVER () AS total FROM jobs AS j WHERE ?
ORDER BY j.created_at DESC, j.id DESC LIMIT ? OFFSET ?`, where, pipeline.PageSize, offset).Scan(ctx, &rows)
	if err != nil {
		return pipeline.List[pipeline.Job]{}, formatError(err, "Job")
	}
	list := pipeline.List[pipeline.Job]{Page: f.Page, PerPage: pipeline.PageSize, Items: make([]pipeline.Job, len(rows))}
	for i, r := range rows {
		list.Items[i] = r.toJob()
	}
	switch {
	case len(rows) > 0:
		list.Total = rows[0].Total
	case f.Page > 1:
		err := db.r.NewRaw(`SELECT count(*) FROM jobs AS j WHERE ?`, where).Scan(ctx, &list.Total)
		if err != nil {
			return pipeline.List[pipeline.Job]{}, formatError(err, "Job")
		}
	}
	return list, nil
}

// Job returns a job viewer can reach.
func (db *DB) Job(ctx context.Context, viewer, id int64) (pipeline.Job, error) {
	return selectJob(ctx, db.r, viewer, id, "")
}

func selectJob(ctx context.Context, idb bun.IDB, viewer, id int64, lock string) (pipeline.Job, error) {
	var r jobRow
	err := idb.NewRaw(`SELECT j.* FROM jobs AS j WHERE j.id = ? AND ?`+lock, id, visibleJob(viewer)).Scan(ctx, &r)
	if err != nil {
		return pipeline.Job{}, formatError(err, "Job")
	}
	return r.toJob(), nil
}

// Stages returns the stages of a job viewer can reach, in pipeline order, in
// one query: the job is the left side of the join, so a reachable job with
// no stages still yields a row and an unreachable one yields none.
func (db *DB) Stages(ctx context.Context, viewer, jobID int64) ([]pipeline.Stage, error) {
	var rows []struct {
		ID       *int64  `bun:"id"`
		Name     *string `bun:"name"`
		Position *int    `bun:"position"`
	}
	err := db.r.NewRaw(`SELECT s.id, s.name, s.position FROM jobs AS j
LEFT JOIN stages AS s ON s.job_id = j.id
WHERE j.id = ? AND ?
ORDER BY s.position`, jobID, visibleJob(viewer)).Scan(ctx, &rows)
	if err != nil {
		return nil, formatError(err, "Job")
	}
	if len(rows) == 0 {
		return nil, pipeline.Errorf(pipeline.ENotFound, "Job not found.")
	}
	stages := make([]pipeline.Stage, 0, len(rows))
	for _, r := range rows {
		if r.ID == nil {
			continue
		}
		stages = append(stages, pipeline.Stage{ID: *r.ID, JobID: jobID, Name: *r.Name, Position: *r.Position})
	}
	return stages, nil
}

// LockTeam returns the team and, on PostgreSQL, locks its row so that
// concurrent job creations on the team count jobs one after the other.
func (t *tx) LockTeam(ctx context.Context, teamID int64) (pipeline.Team, error) {
	var r teamRow
	err := t.idb.NewRaw(`SELECT id, name, job_limit FROM teams WHERE id = ?`+t.forUpdate(""), teamID).Scan(ctx, &r)
	if err != nil {
		return pipeline.Team{}, formatError(err, "Team")
	}
	return r.toTeam(), nil
}

// CountActiveJobs counts the team's jobs that are not closed.
func (t *tx) CountActiveJobs(ctx context.Context, teamID int64) (int, error) {
	var n int
	// IN rather than <> 'closed', so that the count is a range scan of
	// jobs(team_id, status, …).
	err := t.idb.NewRaw(`SELECT count(*) FROM jobs WHERE team_id = ? AND status IN (?, ?)`,
		teamID, string(pipeline.JobOpen), string(pipeline.JobDraft)).Scan(ctx, &n)
	return n, formatError(err, "Team")
}

// InsertJob stores a job with its stages, named in pipeline order.
func (t *tx) InsertJob(ctx context.Context, j pipeline.Job, stages []string) (pipeline.Job, error) {
	r := newJobRow(j)
	if _, err := t.idb.NewInsert().Model(&r).Returning("id").Exec(ctx); err != nil {
		return pipeline.Job{}, formatError(err, "Job")
	}
	if err := insertStages(ctx, t.idb, r.ID, stages); err != nil {
		return pipeline.Job{}, err
	}
	return r.toJob(), nil
}

// insertStages stores a job's stages in one statement.
func insertStages(ctx context.Context, idb bun.IDB, jobID int64, names []string) error {
	if len(names) == 0 {
		return nil
	}
	rows := make([]stageRow, len(names))
	for i, n := range names {
		rows[i] = stageRow{JobID: jobID, Name: n, Position: i + 1}
	}
	_, err := idb.NewInsert().Model(&rows).Returning("NULL").Exec(ctx)
	return formatError(err, "Stage")
}

// JobForUpdate returns a job viewer can reach, locked until the transaction
// ends.
func (t *tx) JobForUpdate(ctx context.Context, viewer, id int64) (pipeline.Job, error) {
	return selectJob(ctx, t.idb, viewer, id, t.forUpdate("j"))
}

// UpdateJob stores the title, description, status and updated_at of j.
func (t *tx) UpdateJob(ctx context.Context, j pipeline.Job) error {
	res, err := t.idb.NewRaw(`UPDATE jobs SET title = ?, title_fold = ?, description = ?, status = ?, updated_at = ?
WHERE id = ?`, j.Title, pipeline.Fold(j.Title), j.Description, string(j.Status), ts(j.UpdatedAt), j.ID).Exec(ctx)
	if err != nil {
		return formatError(err, "Job")
	}
	return expectRow(res, "Job")
}

// Stage returns a stage of the job.
func (t *tx) Stage(ctx context.Context, jobID, stageID int64) (pipeline.Stage, error) {
	var r stageRow
	err := t.idb.NewRaw(`SELECT id, job_id, name, position FROM stages WHERE id = ? AND job_id = ?`,
		stageID, jobID).Scan(ctx, &r)
	if err != nil {
		return pipeline.Stage{}, formatError(err, "Stage")
	}
	return r.toStage(), nil
}
