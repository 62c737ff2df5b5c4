package pipelinestore

import (
	"context"
	"math"
	"strconv"

	"github.com/uptrace/bun"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// jobColumns are the columns of the job aliased j that the domain reads.
const jobColumns = `j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at`

// jobsOf is the jobs of a list for the viewer $1 with the status $2 (and
// the title pattern $3 if search is set). On PostgreSQL they are read team
// by team: each of the viewer's teams walks jobs(team_id, status,
// created_at, id) in the list's order, through the visibility rule, and
// stops after limit rows (an expression of the parameters), so that a page
// costs the viewer's teams times the rows up to it, never a scan of every
// job. SQLite, which has no LATERAL, filters the jobs of the viewer's teams.
func jobsOf(pg, search bool, limit string) string {
	filter := ""
	if search {
		filter = ` AND ` + matches(3, "j.title_fold")
	}
	if !pg {
		return `(SELECT ` + jobColumns + ` FROM jobs AS j
	WHERE j.team_id IN (SELECT m.team_id FROM memberships AS m WHERE m.user_id = $1)
	AND j.status = $2 AND ` + visible(1) + filter + `) AS j`
	}
	if limit != "" {
		limit = `
		ORDER BY j.created_at DESC, j.id DESC LIMIT ` + limit
	}
	return `(SELECT m.team_id FROM memberships AS m WHERE m.user_id = $1) AS t
	CROSS JOIN LATERAL (SELECT ` + jobColumns + ` FROM jobs AS j
		WHERE j.team_id = t.team_id AND j.status = $2 AND ` + visible(1) + filter + limit + `) AS j`
}

// jobsPage is the page query of a job list; its offset, then the rows up to
// the end of the page, are the parameters after the filter's. The total
// counts the viewer's visible jobs once per statement.
func jobsPage(pg, search bool) string {
	offset, upTo := "$3", "$4"
	if search {
		offset, upTo = "$4", "$5"
	}
	return `SELECT j.*, (SELECT count(*) FROM ` + jobsOf(pg, search, "") + `) AS total
FROM ` + jobsOf(pg, search, upTo) + `
ORDER BY j.created_at DESC, j.id DESC LIMIT ` + strconv.Itoa(pipeline.PageSize) + ` OFFSET ` + offset
}

// jobsCount is the total of a job list alone, for a page past the last.
func jobsCount(pg, search bool) string { return `SELECT count(*) FROM ` + jobsOf(pg, search, "") }

var (
	qJob    = preparedLockingRead(`SELECT `+jobColumns+` FROM jobs AS j WHERE j.id = $1 AND `+visible(2), recordLock("job", ` FOR NO KEY UPDATE OF j`))
	qStages = prepared(`SELECT s.id, s.name, s.position FROM jobs AS j
LEFT JOIN stages AS s ON s.job_id = j.id
WHERE j.id = $1 AND ` + visible(2) + `
ORDER BY s.position`)
	qLockTeam        = preparedLockingRead(`SELECT id, name, job_limit FROM teams WHERE id = $1`, ` FOR NO KEY UPDATE`)
	qCountActiveJobs = prepared(`SELECT count(*) FROM jobs WHERE team_id = $1 AND status IN ($2, $3)`)
	// closed_at is when the job last changed to closed: kept while it
	// stays closed, set when it becomes closed, cleared when it reopens.
	qUpdateJob = prepared(`UPDATE jobs SET title = $1, title_fold = $2, description = $3, status = $4, updated_at = $5,
	closed_at = CASE WHEN $4 <> 'closed' THEN NULL WHEN status = 'closed' THEN closed_at ELSE $5 END
WHERE id = $6`)

	qJobsPage = [2]string{
		preparedSQLite(jobsPage(false, false)), jobsPage(true, false)}
	qJobsCount = [2]string{
		preparedSQLite(jobsCount(false, false)), jobsCount(true, false)}
)

// ListJobs returns a page of the jobs viewer can reach on all of its teams,
// newest first, with the total, in one query.
func (db *DB) ListJobs(ctx context.Context, viewer int64, f pipeline.JobFilter) (pipeline.List[pipeline.Job], error) {
	filter := args(viewer, string(f.Status))
	pg := db.dialect == DialectPostgres
	run, page, count := db.read(), qJobsPage[btoi(pg)], qJobsCount[btoi(pg)]
	if f.Search != "" {
		filter = append(filter, likePattern(f.Search))
		page, count = jobsPage(pg, true), jobsCount(pg, true)
	}
	var rows []jobRow
	offset := pipeline.Offset(f.Page)
	pageArgs := append(filter, offset)
	if pg {
		pageArgs = append(pageArgs, offset+min(pipeline.PageSize, math.MaxInt-offset))
	}
	if err := run.all(ctx, page, pageArgs, &rows); err != nil {
		return pipeline.List[pipeline.Job]{}, formatError(err, "Job")
	}
	list := pageOf(f.Page, rows, jobRow.toJob)
	if len(rows) == 0 && f.Page > 1 {
		// Past the last page: the total alone.
		if err := run.get(ctx, count, filter, &list.Total); err != nil {
			return pipeline.List[pipeline.Job]{}, formatError(err, "Job")
		}
	}
	return list, nil
}

// Job returns a job viewer can reach.
func (db *DB) Job(ctx context.Context, viewer, id int64) (pipeline.Job, error) {
	return selectJob(ctx, db.read(), qJob.plain, viewer, id)
}

func selectJob(ctx context.Context, run runner, query string, viewer, id int64) (pipeline.Job, error) {
	var r jobRow
	if err := run.get(ctx, query, args(id, viewer), &r); err != nil {
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
	if err := db.read().all(ctx, qStages, args(jobID, viewer), &rows); err != nil {
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
	err := t.run.get(ctx, t.lock(qLockTeam), args(teamID), &r)
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
	err := t.run.get(ctx, qCountActiveJobs, args(teamID, string(pipeline.JobOpen), string(pipeline.JobDraft)), &n)
	return n, formatError(err, "Team")
}

// InsertJob stores a job with its stages, named in pipeline order.
func (t *tx) InsertJob(ctx context.Context, j pipeline.Job, stages []string) (pipeline.Job, error) {
	r := newJobRow(j)
	if _, err := t.run.tx.NewInsert().Model(&r).Returning("id").Exec(ctx); err != nil {
		return pipeline.Job{}, formatError(err, "Job")
	}
	if err := insertStages(ctx, t.run.tx, r.ID, stages); err != nil {
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
	return selectJob(ctx, t.run, t.lock(qJob), viewer, id)
}

// UpdateJob stores the title, description, status and updated_at of j.
func (t *tx) UpdateJob(ctx context.Context, j pipeline.Job) error {
	// The caller holds the job's row lock, so the row is there.
	return formatError(t.run.deferred(ctx, qUpdateJob, j.Title, pipeline.Fold(j.Title), j.Description, string(j.Status), ts(j.UpdatedAt), j.ID), "Job")
}

// btoi indexes a pair by a condition: 0 for false, 1 for true.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
