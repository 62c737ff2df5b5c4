package pipelinestore

import (
	"cmp"
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// candidateColumns are a candidate's columns for the domain, with its team
// and stage name, on candidates c and jobs j.
const candidateColumns = `c.id, c.job_id, c.stage_id, c.name, c.email, c.applied, c.status, c.resume_url, c.notes_count,
	c.erased_at, j.team_id, (SELECT s.name FROM stages AS s WHERE s.id = c.stage_id) AS stage`

// candidateListQuery is the SQL of a candidate list. Its parameters: the
// job, the viewer, then the stage, the status and the search pattern when
// the filter has them, then the offset.
//
// The page is found first, on the candidates alone: the ids of the page's
// rows, walking the index of the list's order past the offset. Only those
// rows are then read whole, with their stage names, and only when the
// viewer reaches the job; a page deep in a long list costs an index walk,
// not a row read per row skipped.
//
// A search's page also reads the job's size (see largeJobs). A large
// job's search is the exception (large): its matches are found once (m)
// in candidate_search, the narrow copy of the searched columns, by
// whichever index the planner expects to be cheaper for the term, the
// trigram indexes or the job's, then counted and sorted. The exact total
// visits every match anyway, on the copy's narrower pages; and walking
// the list's order under a window count is a plan PostgreSQL 15 costs as
// if the LIMIT ended the walk early: a common term on a job of a million
// candidates read the whole job. A stage or status filter joins each
// match's candidate. A smaller job's search walks the job's candidates.
func candidateListQuery(stage, status, search, large bool) candidateQuery {
	q := candidateQuery{counted: status || search}
	n, filters := 2, ""
	if stage {
		n++
		q.stage = "$" + strconv.Itoa(n)
		filters += ` AND c.stage_id = ` + q.stage
	}
	if status {
		n++
		filters += ` AND c.status = $` + strconv.Itoa(n)
	}
	q.rows = `candidates AS c WHERE c.job_id = $1` + filters
	if search {
		n++
		q.rows += ` AND ` + matches(n, "c.name_fold", "c.email_fold")
	}
	if search && large {
		from := `candidate_search AS s`
		if filters != "" {
			from += ` JOIN candidates AS c ON c.id = s.id`
		}
		q.rows = from + ` WHERE s.job_id = $1` + filters + ` AND ` + matches(n, "s.name_fold", "s.email_fold")
	}
	total := q.total()
	if q.counted {
		total = "p.total"
	}
	page := `ORDER BY c.applied DESC, c.id DESC LIMIT ` + strconv.Itoa(pipeline.PageSize) + ` OFFSET $` + strconv.Itoa(n+1)
	with, ids, job, size := "", `(SELECT c.id`+q.windowCount()+` FROM `+q.rows+`
	`+page+`) AS p`, "", ""
	if search {
		size = `, ` + (candidateQuery{}).total() + ` AS job_size`
	}
	if search && large {
		// The job is named again: the matches' ids no longer carry it.
		with = `WITH m AS MATERIALIZED (SELECT s.id, s.applied FROM ` + q.rows + `)
`
		ids = `(SELECT c.id, (SELECT count(*) FROM m) AS total FROM m AS c ` + page + `) AS p`
		job = `j.id = $1 AND `
	}
	q.page = with + `SELECT ` + candidateColumns + `, ` + total + ` AS total` + size + `
FROM ` + ids + `
JOIN candidates AS c ON c.id = p.id
JOIN jobs AS j ON j.id = c.job_id
WHERE ` + job + visible(2) + `
ORDER BY c.applied DESC, c.id DESC`
	q.empty = `SELECT ` + q.total() + ` AS total, ` + q.stageOK() + ` AS stage_ok` + `
FROM jobs AS j WHERE j.id = $1 AND ` + visible(2)
	return q
}

// candidateQuery is the SQL of a candidate list: page reads a page, and
// empty tells why a page is empty.
type candidateQuery struct {
	rows        string // FROM … WHERE of the rows that pass the filter, on candidates c or candidate_search s
	stage       string // the stage's placeholder, "" when not filtered
	counted     bool   // the total is counted (a status or a search), not read from the stages
	page, empty string
}

// windowCount counts the matches of a counted filter beside the page's
// ids, in the scan that finds them.
func (q candidateQuery) windowCount() string {
	if q.counted {
		return ", count(*) OVER () AS total"
	}
	return ""
}

// The list queries, by [stage][status][search], are prepared on SQLite,
// and on PostgreSQL with WithPreparedStatements.
var qCandidateLists = func() (qs [2][2][2]candidateQuery) {
	for _, stage := range []int{0, 1} {
		for _, status := range []int{0, 1} {
			for _, search := range []int{0, 1} {
				qs[stage][status][search] = prepareCandidateList(candidateListQuery(stage == 1, status == 1, search == 1, false))
			}
		}
	}
	return qs
}()

// qLargeJobSearches are the searches of a large job, by [stage][status],
// planned by PostgreSQL at each run for the job and the term (see
// plannedPerRun and largeJobs).
var qLargeJobSearches = func() (qs [2][2]candidateQuery) {
	for stage := range qs {
		for status := range qs[stage] {
			q := candidateListQuery(stage == 1, status == 1, true, true)
			q.page = plannedPerRun(q.page)
			q.empty = plannedPerRun(q.empty)
			qs[stage][status] = q
		}
	}
	return qs
}()

func prepareCandidateList(q candidateQuery) candidateQuery {
	prepared(q.page)
	prepared(q.empty)
	return q
}

// ListCandidates returns a page of a job's candidates, newest applicant
// first, each with its stage name, in one query (a search of a job whose
// size the process does not know yet reads it first: see largeJobs). The
// total is read from the stages' counts, or, for a status or a search,
// counted beside the page (see candidateListQuery). Only when the page is
// empty does a second query tell why:
// the job is not reachable (not_found), the stage filter names no stage of
// the job (pipeline.ErrStageNotInJob), or the page is past the last (the
// total).
func (db *DB) ListCandidates(ctx context.Context, viewer, jobID int64, f pipeline.CandidateFilter) (pipeline.List[pipeline.Candidate], error) {
	run, filter := db.read(), args(jobID, viewer)
	if f.StageID != 0 {
		filter = append(filter, f.StageID)
	}
	if f.Status != "" {
		filter = append(filter, f.Status)
	}
	if f.Search != "" {
		filter = append(filter, likePattern(f.Search))
	}
	q := qCandidateLists[btoi(f.StageID != 0)][btoi(f.Status != "")][btoi(f.Search != "")]
	if f.Search != "" && run.p.pg {
		large, known := db.largeJobs.lookup(jobID)
		if !known {
			var size int64
			if err := run.get(ctx, db.q.JobSize, args(jobID), &size); err != nil {
				return pipeline.List[pipeline.Candidate]{}, formatError(err, "Job")
			}
			large = db.largeJobs.note(jobID, size)
		}
		if large {
			q = qLargeJobSearches[btoi(f.StageID != 0)][btoi(f.Status != "")]
		}
	}
	var rows []candidateRow
	if err := run.all(ctx, q.page, append(filter, pipeline.Offset(f.Page)), &rows); err != nil {
		return pipeline.List[pipeline.Candidate]{}, formatError(err, "Candidate")
	}
	if f.Search != "" && len(rows) > 0 && run.p.pg {
		db.largeJobs.note(jobID, rows[0].JobSize)
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
// by the stages (their counts and the deltas not yet folded into them,
// see stageCountsFolder), or counted for a search. It depends on
// parameters only, so the database computes it once per statement.
func (q candidateQuery) total() string {
	switch {
	case q.counted:
		return `(SELECT count(*) FROM ` + q.rows + `)`
	case q.stage != "":
		return `(COALESCE((SELECT st.candidate_count FROM stages AS st WHERE st.id = ` + q.stage + ` AND st.job_id = $1), 0)
	+ COALESCE((SELECT sum(d.delta) FROM stage_count_deltas AS d WHERE d.job_id = $1 AND d.stage_id = ` + q.stage + `), 0))`
	}
	return `(SELECT CAST(COALESCE(sum(st.candidate_count), 0) AS BIGINT) FROM stages AS st WHERE st.job_id = $1)
	+ (SELECT CAST(COALESCE(sum(d.delta), 0) AS BIGINT) FROM stage_count_deltas AS d WHERE d.job_id = $1)`
}

// stageOK is 1 when the stage filter, if any, names a stage of the job.
func (q candidateQuery) stageOK() string {
	if q.stage == "" {
		return "1"
	}
	return `CASE WHEN EXISTS (SELECT 1 FROM stages AS s WHERE s.id = ` + q.stage + ` AND s.job_id = $1) THEN 1 ELSE 0 END`
}

// idDraw is an id to draw from a table's sequence in the transaction's
// next locking read (see DrawID).
type idDraw struct {
	table string
	into  *pipeline.IDDraw
}

// drawTables are the tables of the kinds of record whose ids DrawID draws.
var drawTables = map[string]string{"candidate": "candidates", "interview": "interviews", "message": "messages"}

// DrawID draws, on PostgreSQL, the id of a record of kind in the
// statement of the transaction's next CandidateForUpdate or JobForIntake,
// so that its insert waits in the batch; on SQLite the insert assigns it.
func (t *tx) DrawID(_ context.Context, kind string) *pipeline.IDDraw {
	d := &pipeline.IDDraw{}
	if table, ok := drawTables[kind]; ok && t.pg {
		t.draw = &idDraw{table: table, into: d}
	}
	return d
}

// LockInterviewsWithCandidate has, on PostgreSQL, the statement of the
// transaction's next CandidateForUpdate take the record lock of each of
// the candidate's interviews, in order of id, after the candidate's own
// and before its row lock, which gives the transaction its id (see
// pipeline_lock_candidates). On SQLite, whose writers take turns, it does
// nothing.
func (t *tx) LockInterviewsWithCandidate(context.Context) {
	t.interviews = t.pg
}

// drawing is the statement of a locking read, read, or, when the
// transaction asked for an id (see DrawID), its form draws that also draws
// the id, as the column drawn_id, with the arguments that form takes
// after read's; and what sets the draw from the column once the row is
// read.
func (t *tx) drawing(read, draws string) (string, []any, func(*int64)) {
	d := t.draw
	if d == nil {
		return read, nil, func(*int64) {}
	}
	t.draw = nil
	return draws, args(d.table), func(id *int64) {
		if id != nil {
			d.into.ID = *id
		}
	}
}

// Candidate returns a candidate of a job viewer can reach, with its stage
// name and notes count, in one query.
func (db *DB) Candidate(ctx context.Context, viewer, jobID, id int64) (pipeline.Candidate, error) {
	return selectCandidate(ctx, db.read(), db.q.Candidate, viewer, jobID, id)
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
	var r struct {
		claimRow
		candidateRow
		DrawnID  *int64  `bun:"drawn_id"`
		JobTitle *string `bun:"job_title"` // with the drawn id
	}
	claim, locked := t.q.ClaimCandidate, t.q.CandidateLocked
	if t.interviews {
		// No form draws as well: an id asked for stays 0, and its
		// insert assigns it (see DrawID).
		claim, locked, t.interviews, t.draw = t.q.ClaimCandidateInterviews, t.q.CandidateLockedInterviews, false, nil
	}
	var err error
	if kc := t.waitingClaim(); kc != nil {
		query, tail, drawn := t.drawing(claim, t.q.ClaimCandidateDrawing)
		err = t.claimingGet(ctx, kc, query, args(id, jobID, viewer), tail, &r, &r.claimRow, &r.ID)
		drawn(r.DrawnID)
	} else {
		query, tail, drawn := t.drawing(locked, t.q.CandidateLockedDrawing)
		err = t.run.get(ctx, query, append(args(id, jobID, viewer), tail...), &r)
		drawn(r.DrawnID)
	}
	if err != nil {
		return pipeline.Candidate{}, formatError(err, "Candidate")
	}
	if r.JobTitle != nil {
		t.jobTitle = &jobTitle{id: r.JobID, title: *r.JobTitle}
	}
	return r.candidateRow.toCandidate(), nil
}

// CandidateForMove is CandidateForUpdate that also returns the stage of
// the candidate's job with id stageID, or nil, in the same statement.
func (t *tx) CandidateForMove(ctx context.Context, viewer, jobID, id, stageID int64) (pipeline.Candidate, *pipeline.Stage, error) {
	var r struct {
		claimRow
		candidateRow
		TargetID       *int64  `bun:"target_id"`
		TargetName     *string `bun:"target_name"`
		TargetPosition *int    `bun:"target_position"`
	}
	var err error
	if kc := t.waitingClaim(); kc != nil {
		err = t.claimingGet(ctx, kc, t.q.ClaimCandidateForMove, args(id, jobID, viewer, stageID), nil, &r, &r.claimRow, &r.ID)
	} else {
		err = t.run.get(ctx, t.q.CandidateForMoveLocked, args(id, jobID, viewer, stageID), &r)
	}
	if err != nil {
		return pipeline.Candidate{}, nil, formatError(err, "Candidate")
	}
	var st *pipeline.Stage
	if r.TargetID != nil {
		st = &pipeline.Stage{ID: *r.TargetID, JobID: jobID, Name: *r.TargetName, Position: *r.TargetPosition}
	}
	return r.candidateRow.toCandidate(), st, nil
}

// SetCandidateStage moves a candidate to a stage.
func (t *tx) SetCandidateStage(ctx context.Context, candidateID, stageID int64, at time.Time) error {
	// The caller holds the candidate's row lock, so the row is there.
	t.countsChanged = t.pg
	return formatError(t.run.deferred(ctx, t.q.SetCandidateStage, stageID, ts(at), candidateID), "Candidate")
}

// JobForIntake returns a job viewer can reach, with the stage a new
// candidate is to enter and whether its email is taken, in one statement
// (which on PostgreSQL also makes a waiting claim of a key, as
// CandidateForUpdate); on PostgreSQL the job's row is held in share mode
// until the transaction ends.
func (t *tx) JobForIntake(ctx context.Context, viewer, jobID, stageID int64, email string) (pipeline.Intake, error) {
	var r struct {
		claimRow
		jobRow
		StageID       *int64  `bun:"stage_id"`
		StageName     *string `bun:"stage_name"`
		StagePosition *int    `bun:"stage_position"`
		EmailTaken    int     `bun:"email_taken"`
		DrawnID       *int64  `bun:"drawn_id"`
	}
	readArgs := args(jobID, viewer, stageID, pipeline.Fold(email))
	var err error
	if kc := t.waitingClaim(); kc != nil {
		query, tail, drawn := t.drawing(t.q.ClaimJobForIntake, t.q.ClaimJobForIntakeDrawing)
		err = t.claimingGet(ctx, kc, query, readArgs, tail, &r, &r.claimRow, &r.ID)
		drawn(r.DrawnID)
	} else {
		query, tail, drawn := t.drawing(t.q.JobForIntakeLocked, t.q.JobForIntakeLockedDrawing)
		err = t.run.get(ctx, query, append(readArgs, tail...), &r)
		drawn(r.DrawnID)
	}
	if err != nil {
		return pipeline.Intake{}, formatError(err, "Job")
	}
	in := pipeline.Intake{Job: r.jobRow.toJob(), EmailTaken: r.EmailTaken == 1}
	if r.StageID != nil {
		in.Stage = &pipeline.Stage{ID: *r.StageID, JobID: jobID, Name: *r.StageName, Position: *r.StagePosition}
	}
	return in, nil
}

// InsertCandidate stores a candidate and returns it with its id; a taken
// email is pipeline.ErrEmailTaken (see formatError).
func (t *tx) InsertCandidate(ctx context.Context, k pipeline.Candidate, at time.Time) (pipeline.Candidate, error) {
	a := args(k.JobID, k.StageID, k.Name, k.Email, pipeline.Fold(k.Name), pipeline.Fold(k.Email), date(k.Applied), k.Status,
		k.ResumeURL, ts(at))
	var err error
	if k.ID != 0 {
		// Its id drawn: the insert waits in the batch, and a taken email
		// is reported when it is sent.
		err = t.run.deferred(ctx, t.q.InsertCandidateWithID, append(a, k.ID)...)
	} else {
		err = t.run.get(ctx, t.q.InsertCandidate, a, &k.ID)
	}
	if err != nil {
		return pipeline.Candidate{}, formatError(err, "Candidate")
	}
	t.countsChanged = t.pg
	return k, nil
}

// EmailTaken reports whether a candidate of a job other than except has
// email, in any letter case.
func (t *tx) EmailTaken(ctx context.Context, jobID int64, email string, except int64) (bool, error) {
	var taken int
	if err := t.run.get(ctx, t.q.EmailTaken, args(jobID, pipeline.Fold(email), except), &taken); err != nil {
		return false, formatError(err, "Candidate")
	}
	return taken == 1, nil
}

// UpdateCandidate stores the name, email, resume URL and status of a
// candidate. On PostgreSQL the statement waits in the transaction's batch,
// so a taken email is reported by the next statement or the commit.
func (t *tx) UpdateCandidate(ctx context.Context, k pipeline.Candidate, at time.Time) error {
	// The caller holds the candidate's row lock, so the row is there.
	err := t.run.deferred(ctx, t.q.UpdateCandidate, k.Name, pipeline.Fold(k.Name), k.Email, pipeline.Fold(k.Email), k.ResumeURL,
		k.Status, ts(at), k.ID)
	return formatError(err, "Candidate")
}

// largeJobSize is the size from which a job's searches are planned at
// each run.
const largeJobSize = 50_000

// largeJobs tells the jobs whose searches PostgreSQL plans at each run
// from the others, as the last search of each found them. A smaller job's
// search walks the job's candidates in the list's order, a plan that fits
// a job of thousands and that a prepared statement keeps. On a job of a
// million that walk costs more than the search should (seconds); planned
// for its term, a large job's search counts a common term through
// candidate_search's trigram indexes, and a term without trigrams through
// its primary key, which leads with the job. Planning costs a fraction of
// a millisecond, more than a small job's search saves, so small jobs keep
// their prepared plan.
//
// A job's first search in a process reads the job's size first, in a
// statement of its own; every search's page then reads it again, so a
// job that grows or shrinks past largeJobSize switches statements after
// one search. Only the sizes of up to maxKnownJobs jobs are kept: past
// that all are forgotten, and each job's next search reads its size again.
type largeJobs struct {
	limit int64    // largeJobSize, or a test's
	jobs  sync.Map // job id → whether it is large
	n     atomic.Int64
}

// maxKnownJobs bounds the jobs whose size largeJobs keeps.
const maxKnownJobs = 100_000

// lookup reports whether the job is large, and whether its size is known.
func (l *largeJobs) lookup(job int64) (large, known bool) {
	v, ok := l.jobs.Load(job)
	if !ok {
		return false, false
	}
	return v.(bool), true
}

// note records the job's size and reports whether the job is large.
func (l *largeJobs) note(job, size int64) bool {
	large := size >= cmp.Or(l.limit, largeJobSize)
	if was, known := l.lookup(job); known && was == large {
		return large
	}
	if _, loaded := l.jobs.Swap(job, large); !loaded && l.n.Add(1) > maxKnownJobs {
		l.jobs.Clear()
		l.n.Store(0)
	}
	return large
}
