package pipelinestore

import (
	"context"
	"math"

	"github.com/uptrace/bun"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// jobStore is the DB's JobStore.
type jobStore struct{ *DB }

// Jobs reads jobs and their stages.
func (db *DB) Jobs() pipeline.JobStore { return jobStore{db} }

// jobTx is a transaction's JobTx.
type jobTx struct{ *tx }

// Jobs writes jobs.
func (t *tx) Jobs() pipeline.JobTx { return jobTx{t} }

// List returns a page of the jobs viewer can reach on all of its teams,
// newest first, with the total, in one query.
func (db jobStore) List(ctx context.Context, p pipeline.ListJobsParams) (pipeline.List[pipeline.Job], error) {
	f := p.Filter
	filter := args(p.Viewer, string(f.Status))
	pg := db.dialect == DialectPostgres
	run, page, count := db.read(), db.q.JobsPage, db.q.JobsCount
	if f.Search != "" {
		filter = append(filter, likePattern(f.Search))
		page, count = db.q.JobsPageSearch, db.q.JobsCountSearch
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

// Get returns a job viewer can reach.
func (db jobStore) Get(ctx context.Context, p pipeline.JobParams) (pipeline.Job, error) {
	return selectJob(ctx, db.read(), db.q.Job, p)
}

func selectJob(ctx context.Context, run runner, query string, p pipeline.JobParams) (pipeline.Job, error) {
	var r jobRow
	if err := run.get(ctx, query, args(p.ID, p.Viewer), &r); err != nil {
		return pipeline.Job{}, formatError(err, "Job")
	}
	return r.toJob(), nil
}

// Stages returns the stages of a job viewer can reach, in pipeline order, in
// one query: the job is the left side of the join, so a reachable job with
// no stages still yields a row and an unreachable one yields none.
func (db jobStore) Stages(ctx context.Context, p pipeline.JobParams) ([]pipeline.Stage, error) {
	var rows []struct {
		ID       *int64  `bun:"id"`
		Name     *string `bun:"name"`
		Position *int    `bun:"position"`
	}
	if err := db.read().all(ctx, db.q.Stages, args(p.ID, p.Viewer), &rows); err != nil {
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
		stages = append(stages, pipeline.Stage{ID: *r.ID, JobID: p.ID, Name: *r.Name, Position: *r.Position})
	}
	return stages, nil
}

// LockTeam returns the team and, on PostgreSQL, locks its row so that
// concurrent job creations on the team count jobs one after the other.
func (t jobTx) LockTeam(ctx context.Context, p pipeline.TeamParams) (pipeline.Team, error) {
	var r teamRow
	err := t.run.get(ctx, t.q.LockTeamLocked, args(p.ID), &r)
	if err != nil {
		return pipeline.Team{}, formatError(err, "Team")
	}
	return r.toTeam(), nil
}

// CountActive counts the team's jobs that are not closed.
func (t jobTx) CountActive(ctx context.Context, p pipeline.TeamParams) (int, error) {
	var n int
	// IN rather than <> 'closed', so that the count is a range scan of
	// jobs(team_id, status, …).
	err := t.run.get(ctx, t.q.CountActiveJobs, args(p.ID, string(pipeline.JobOpen), string(pipeline.JobDraft)), &n)
	return n, formatError(err, "Team")
}

// Insert stores a job with its stages, named in pipeline order.
func (t jobTx) Insert(ctx context.Context, p pipeline.InsertJobParams) (pipeline.Job, error) {
	r := newJobRow(p.Job)
	if _, err := t.run.tx.NewInsert().Model(&r).Returning("id").Exec(ctx); err != nil {
		return pipeline.Job{}, formatError(err, "Job")
	}
	if err := insertStages(ctx, t.run.tx, r.ID, p.Stages); err != nil {
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

// Lock returns a job viewer can reach, locked until the transaction ends.
func (t jobTx) Lock(ctx context.Context, p pipeline.JobParams) (pipeline.Job, error) {
	return selectJob(ctx, t.run, t.q.JobLocked, p)
}

// Update stores the title, description, status and updated_at of j.
func (t jobTx) Update(ctx context.Context, j pipeline.Job) error {
	// The caller holds the job's row lock, so the row is there.
	return formatError(t.run.deferred(ctx, t.q.UpdateJob, j.Title, pipeline.Fold(j.Title), j.Description, string(j.Status), ts(j.UpdatedAt), j.ID), "Job")
}

// btoi indexes a pair by a condition: 0 for false, 1 for true.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
