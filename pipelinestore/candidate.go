package pipelinestore

import (
	"cmp"
	"context"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// jobColumns are a job's columns for the domain, on jobs j.
const jobColumns = `j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at`

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
func (db candidateStore) List(ctx context.Context, p pipeline.ListCandidatesParams) (pipeline.List[pipeline.Candidate], error) {
	viewer, jobID, f := p.Viewer, p.JobID, p.Filter
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

// candidateStore is the DB's CandidateStore.
type candidateStore struct{ *DB }

// Candidates reads candidates.
func (db *DB) Candidates() pipeline.CandidateStore { return candidateStore{db} }

// Get returns a candidate of a job viewer can reach, with its stage name
// and notes count, in one query.
func (db candidateStore) Get(ctx context.Context, p pipeline.CandidateParams) (pipeline.Candidate, error) {
	var r candidateRow
	if err := db.read().get(ctx, qCandidate, args(p.ID, p.JobID, p.Viewer), &r); err != nil {
		return pipeline.Candidate{}, formatError(err, "Candidate")
	}
	return r.toCandidate(), nil
}

// candidateTx is a transaction's CandidateTx.
type candidateTx struct{ *tx }

// Candidates writes candidates.
func (t *tx) Candidates() pipeline.CandidateTx { return candidateTx{t} }

// A write's read of a candidate (CandidateTx.Lock) is one statement, the
// plain read of qCandidate with what the write asks for besides: the stage
// it is to move to, an id drawn for the record it is to insert, and, on
// PostgreSQL, its locks. Go builds its forms, like the candidate lists',
// once when the package loads.
//
// On PostgreSQL a form takes the candidate's record lock and then its row
// lock (see statements.go), or with Interviews the record locks of the
// candidate and of each of its interviews first (pipeline_lock_candidates);
// a drawing form also draws the id from the table's sequence and reads the
// job's title, so that an interview's insert waits in the batch
// (InsertInterviewDrawn). SQLite, whose writers take turns, neither locks
// nor draws.

// candidateRead says what a write's read of a candidate does besides
// reading it.
type candidateRead struct {
	pg, interviews, stage, draw, claim bool
}

// sql is the read's statement. Its parameters: the candidate, the job, the
// viewer, then the stage when asked for, then the drawn id's table, then a
// claim's (see claiming).
func (f candidateRead) sql() string {
	cols, from, n := candidateColumns, `candidates AS c JOIN jobs AS j ON j.id = c.job_id`, 3
	if f.stage {
		n++
		cols += `, t.id AS target_id, t.name AS target_name, t.position AS target_position`
		from += ` LEFT JOIN stages AS t ON t.id = $` + strconv.Itoa(n) + ` AND t.job_id = c.job_id`
	}
	if f.draw {
		n++
		cols = `nextval(pg_get_serial_sequence($` + strconv.Itoa(n) + `, 'id')) AS drawn_id, ` + cols + `, j.title AS job_title`
	}
	where := `c.id = $1 AND c.job_id = $2 AND ` + visible(3)
	switch {
	case f.pg && f.interviews:
		where += ` AND pipeline_lock_candidates(ARRAY[CAST($1 AS bigint)]) FOR NO KEY UPDATE OF c`
	case f.pg:
		where += ` AND pipeline_lock_record('candidate', $1) FOR NO KEY UPDATE OF c`
	}
	read := `SELECT ` + cols + ` FROM ` + from + ` WHERE ` + where
	if f.claim {
		return claiming(read, n)
	}
	return read
}

// qCandidate is the plain read of a candidate; qCandidateReads are the
// forms of a write's read (on SQLite, those that neither lock nor draw
// nor claim).
var (
	qCandidate      = prepared(candidateRead{}.sql())
	qCandidateReads = func() map[candidateRead]string {
		qs := map[candidateRead]string{}
		for _, f := range []bool{false, true} {
			for _, g := range []bool{false, true} {
				for _, pg := range []bool{false, true} {
					for _, draw := range []bool{false, true} {
						for _, claim := range []bool{false, true} {
							r := candidateRead{pg, f, g, draw, claim}
							switch {
							case !pg && (f || draw || claim):
							case pg:
								qs[r] = r.sql() // prepared on its first run
							default:
								qs[r] = prepared(r.sql())
							}
						}
					}
				}
			}
		}
		return qs
	}()
)

// drawTables are the tables of the kinds of record whose ids a read draws.
var drawTables = map[string]string{"interview": "interviews", "message": "messages"}

// Lock returns a candidate of a job viewer can reach, with its stage and
// notes count, and what p asks for besides, in one statement (see
// candidateRead); on PostgreSQL its row stays locked until the
// transaction ends. A locking read that waited for another writer reads
// the row as that writer left it, and the stage name and notes count come
// from that row (its stage id, its notes_count column), so they are
// current too.
func (t candidateTx) Lock(ctx context.Context, p pipeline.LockCandidateParams) (pipeline.LockedCandidate, error) {
	var r struct {
		claimRow
		candidateRow
		TargetID       *int64  `bun:"target_id"`
		TargetName     *string `bun:"target_name"`
		TargetPosition *int    `bun:"target_position"`
		DrawnID        *int64  `bun:"drawn_id"`
		JobTitle       *string `bun:"job_title"`
	}
	table, draw := drawTables[p.Draw]
	f := candidateRead{pg: t.pg, interviews: t.pg && p.Interviews, stage: p.Stage != 0, draw: draw && t.pg && !p.Interviews}
	a := args(p.ID, p.JobID, p.Viewer)
	if f.stage {
		a = append(a, p.Stage)
	}
	if f.draw {
		a = append(a, table)
	}
	var err error
	if kc := t.claimToMake(p.Claim); kc != nil {
		f.claim = true
		err = t.claimingGet(ctx, kc, qCandidateReads[f], a, nil, &r, &r.claimRow, &r.ID)
	} else {
		err = t.run.get(ctx, qCandidateReads[f], a, &r)
	}
	if err != nil {
		return pipeline.LockedCandidate{}, formatError(err, "Candidate")
	}
	l := pipeline.LockedCandidate{Candidate: r.candidateRow.toCandidate()}
	if r.TargetID != nil {
		l.Stage = &pipeline.Stage{ID: *r.TargetID, JobID: p.JobID, Name: *r.TargetName, Position: *r.TargetPosition}
	}
	if r.DrawnID != nil && r.JobTitle != nil {
		l.Drawn, l.JobTitle = *r.DrawnID, *r.JobTitle
	}
	return l, nil
}

// SetStage moves a candidate to a stage.
func (t candidateTx) SetStage(ctx context.Context, p pipeline.SetStageParams) error {
	// The caller holds the candidate's row lock, so the row is there.
	t.countsChanged = t.pg
	return formatError(t.run.deferred(ctx, t.q.SetCandidateStage, p.StageID, ts(p.At), p.CandidateID), "Candidate")
}

// intakeRead is the statement of an intake's read (CandidateTx.Intake):
// the job, the stage a new candidate is to enter (its first when none is
// asked for), and whether a candidate of the job has the folded email.
// Its parameters: the job, the viewer, the stage, the email, then the
// drawn id's table. On PostgreSQL it holds the job's row in share mode
// against a change of its status, which takes the row lock: intakes of
// one job share the lock and run together, each writing a record of its
// own, so none waits on the job's record lock; and it draws the new
// candidate's id, so that the insert waits in the batch.
func intakeRead(pg, draw, claim bool) string {
	drawn, lock := "", ""
	if pg {
		lock = ` FOR SHARE OF j`
	}
	if pg && draw {
		drawn = `nextval(pg_get_serial_sequence($5, 'id')) AS drawn_id, `
	}
	n := 4
	if drawn != "" {
		n = 5
	}
	read := `SELECT ` + drawn + jobColumns + `, s.id AS stage_id, s.name AS stage_name, s.position AS stage_position,
	CASE WHEN EXISTS (SELECT 1 FROM candidates AS c WHERE c.job_id = j.id AND c.email_fold = $4) THEN 1 ELSE 0 END AS email_taken
FROM jobs AS j
LEFT JOIN stages AS s ON s.job_id = j.id AND s.id = COALESCE(NULLIF($3, 0),
	(SELECT f.id FROM stages AS f WHERE f.job_id = j.id ORDER BY f.position LIMIT 1))
WHERE j.id = $1 AND ` + visible(2) + lock
	if claim {
		return claiming(read, n)
	}
	return read
}

// qIntakeRead is SQLite's intakeRead, qIntakeReads PostgreSQL's, by
// [draw][claim].
var (
	qIntakeRead  = prepared(intakeRead(false, false, false))
	qIntakeReads = [2][2]string{
		{intakeRead(true, false, false), intakeRead(true, false, true)},
		{intakeRead(true, true, false), intakeRead(true, true, true)},
	}
)

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Intake returns a job viewer can reach, with the stage a new candidate is
// to enter and whether its email is taken, in one statement (see
// intakeRead).
func (t candidateTx) Intake(ctx context.Context, p pipeline.IntakeParams) (pipeline.Intake, error) {
	var r struct {
		claimRow
		jobRow
		StageID       *int64  `bun:"stage_id"`
		StageName     *string `bun:"stage_name"`
		StagePosition *int    `bun:"stage_position"`
		EmailTaken    int     `bun:"email_taken"`
		DrawnID       *int64  `bun:"drawn_id"`
	}
	a := args(p.JobID, p.Viewer, p.Stage, pipeline.Fold(p.Email))
	if t.pg && p.Draw {
		a = append(a, "candidates")
	}
	var err error
	switch kc := t.claimToMake(p.Claim); {
	case !t.pg:
		err = t.run.get(ctx, qIntakeRead, a, &r)
	case kc != nil:
		err = t.claimingGet(ctx, kc, qIntakeReads[b2i(p.Draw)][1], a, nil, &r, &r.claimRow, &r.ID)
	default:
		err = t.run.get(ctx, qIntakeReads[b2i(p.Draw)][0], a, &r)
	}
	if err != nil {
		return pipeline.Intake{}, formatError(err, "Job")
	}
	in := pipeline.Intake{Job: r.jobRow.toJob(), EmailTaken: r.EmailTaken == 1}
	if r.StageID != nil {
		in.Stage = &pipeline.Stage{ID: *r.StageID, JobID: p.JobID, Name: *r.StageName, Position: *r.StagePosition}
	}
	if r.DrawnID != nil {
		in.Drawn = *r.DrawnID
	}
	return in, nil
}

// Insert stores a candidate and returns it with its id; a taken email is
// pipeline.ErrEmailTaken (see formatError).
func (t candidateTx) Insert(ctx context.Context, p pipeline.WriteCandidateParams) (pipeline.Candidate, error) {
	k := p.Candidate
	a := args(k.JobID, k.StageID, k.Name, k.Email, pipeline.Fold(k.Name), pipeline.Fold(k.Email), date(k.Applied), k.Status,
		k.ResumeURL, ts(p.At))
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

// EmailTaken reports whether a candidate of a job other than p.Except has
// the email, in any letter case.
func (t candidateTx) EmailTaken(ctx context.Context, p pipeline.EmailTakenParams) (bool, error) {
	var taken int
	if err := t.run.get(ctx, t.q.EmailTaken, args(p.JobID, pipeline.Fold(p.Email), p.Except), &taken); err != nil {
		return false, formatError(err, "Candidate")
	}
	return taken == 1, nil
}

// Update stores the name, email, resume URL and status of a candidate. On
// PostgreSQL the statement waits in the transaction's batch, so a taken
// email is reported by the next statement or the commit.
func (t candidateTx) Update(ctx context.Context, p pipeline.WriteCandidateParams) error {
	// The caller holds the candidate's row lock, so the row is there.
	k := p.Candidate
	err := t.run.deferred(ctx, t.q.UpdateCandidate, k.Name, pipeline.Fold(k.Name), k.Email, pipeline.Fold(k.Email), k.ResumeURL,
		k.Status, ts(p.At), k.ID)
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
