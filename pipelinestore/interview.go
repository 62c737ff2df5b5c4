package pipelinestore

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// interviewColumns are an interview's columns for the domain, with its
// team, its creator and its candidate, on interviews i, jobs j,
// candidates c and users cb.
const interviewColumns = `i.id, i.job_id, i.candidate_id, j.team_id, i.starts_at, i.ends_at, i.timezone, i.location,
	i.video_url, i.status, i.sequence, i.uid, i.organizer_name, i.organizer_email, i.created_by, cb.name AS created_by_name, cb.email AS created_by_email,
	i.created_at, i.updated_at, c.name AS candidate_name, c.email AS candidate_email, c.status AS candidate_status,
	CASE WHEN c.erased_at IS NULL THEN 0 ELSE 1 END AS candidate_erased, j.title AS job_title`

// interviewFrom joins an interview i to its job j, its candidate c and
// its creator cb.
const interviewFrom = ` FROM interviews AS i
JOIN candidates AS c ON c.id = i.candidate_id
JOIN jobs AS j ON j.id = i.job_id
JOIN users AS cb ON cb.id = i.created_by`

// interviewRow is an interview as read, without its interviewers.
type interviewRow struct {
	ID              int64     `bun:"id"`
	JobID           int64     `bun:"job_id"`
	CandidateID     int64     `bun:"candidate_id"`
	TeamID          int64     `bun:"team_id"`
	StartsAt        time.Time `bun:"starts_at"`
	EndsAt          time.Time `bun:"ends_at"`
	Timezone        string    `bun:"timezone"`
	Location        string    `bun:"location"`
	VideoURL        string    `bun:"video_url"`
	Status          string    `bun:"status"`
	Sequence        int       `bun:"sequence"`
	UID             string    `bun:"uid"`
	OrganizerName   string    `bun:"organizer_name"`
	OrganizerEmail  string    `bun:"organizer_email"`
	CreatedBy       int64     `bun:"created_by"`
	CreatedByName   string    `bun:"created_by_name"`
	CreatedByEmail  string    `bun:"created_by_email"`
	CreatedAt       time.Time `bun:"created_at"`
	UpdatedAt       time.Time `bun:"updated_at"`
	CandidateName   string    `bun:"candidate_name"`
	CandidateEmail  string    `bun:"candidate_email"`
	CandidateStatus string    `bun:"candidate_status"`
	CandidateErased int       `bun:"candidate_erased"`
	JobTitle        string    `bun:"job_title"`
	Total           int       `bun:"total,scanonly"`
}

func (r interviewRow) windowTotal() int { return r.Total }

func (r interviewRow) toInterview() pipeline.Interview {
	return pipeline.Interview{
		ID: r.ID, JobID: r.JobID, CandidateID: r.CandidateID, TeamID: r.TeamID,
		Start: r.StartsAt.UTC(), End: r.EndsAt.UTC(), Timezone: r.Timezone, Location: r.Location, VideoURL: r.VideoURL,
		Status: r.Status, Sequence: r.Sequence, UID: r.UID, Organizer: pipeline.User{Name: r.OrganizerName, Email: r.OrganizerEmail},
		CreatedBy: pipeline.User{ID: r.CreatedBy, Name: r.CreatedByName, Email: r.CreatedByEmail},
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		CandidateName: r.CandidateName, CandidateEmail: r.CandidateEmail, CandidateStatus: r.CandidateStatus,
		CandidateErased: r.CandidateErased == 1, JobTitle: r.JobTitle,
	}
}

// idsIn is the condition that column is one of the ids of the JSON array
// $n, in each dialect's SQL.
func idsIn(pg bool, column string, n int) string {
	p := "$" + strconv.Itoa(n)
	if pg {
		return column + ` IN (SELECT CAST(x AS bigint) FROM json_array_elements_text(CAST(` + p + ` AS json)) AS x)`
	}
	return column + ` IN (SELECT value FROM json_each(` + p + `))`
}

// jsonIDs is ids as a JSON array, the argument of idsIn.
func jsonIDs(ids []int64) string {
	if ids == nil {
		ids = []int64{}
	}
	b, _ := json.Marshal(ids)
	return string(b)
}

var (
	// qInterview is an interview $1 of the candidate $2 of the job $3 that
	// the viewer $4 reaches.
	qInterview = preparedLockingRead(`SELECT `+interviewColumns+interviewFrom+`
WHERE i.id = $1 AND i.candidate_id = $2 AND i.job_id = $3 AND `+visible(4),
		recordLock("interview", ` FOR NO KEY UPDATE OF i`))
	// qInterviews is a page of the interviews of the candidate $1 of the
	// job $2 that the viewer $3 reaches, from the offset $4, with their
	// count.
	qInterviews = prepared(`SELECT ` + interviewColumns + `, count(*) OVER () AS total` + interviewFrom + `
WHERE i.candidate_id = $1 AND i.job_id = $2 AND ` + visible(3) + `
ORDER BY i.starts_at, i.id LIMIT ` + strconv.Itoa(pipeline.PageSize) + ` OFFSET $4`)
	// qScheduledInterviews are the scheduled interviews of the candidate
	// $1 that end after $2, by start.
	qScheduledInterviews = preparedLockingRead(`SELECT `+interviewColumns+interviewFrom+`
WHERE i.candidate_id = $1 AND i.status = 'scheduled' AND i.ends_at > $2
ORDER BY i.starts_at, i.id`, ` FOR NO KEY UPDATE OF i`)
	qCountInterviews = prepared(`SELECT count(*) FROM interviews AS i WHERE i.candidate_id = $1 AND i.job_id = $2`)

	// qInterviewers are the interviewers of the interviews of the JSON
	// array $1, each interview's in order.
	qInterviewersPG     = interviewersOf(true)
	qInterviewersSQLite = preparedSQLite(interviewersOf(false))

	// qTeamUsers are the users of the JSON array $2 who are members of the
	// team $1.
	qTeamUsersPG     = teamUsersOf(true)
	qTeamUsersSQLite = preparedSQLite(teamUsersOf(false))

	// qBusy are the busy times of the users of the JSON array $1 and of
	// the candidate $4 that overlap [$2, $3), the interview $5 left out.
	// PostgreSQL finds them with the exclusion constraints' indexes.
	qBusyPG = `SELECT ii.user_id, 0 AS candidate_id, ii.starts_at, ii.ends_at FROM interview_interviewers AS ii
WHERE ii.active AND ` + idsIn(true, "ii.user_id", 1) + `
	AND tstzrange(ii.starts_at, ii.ends_at) && tstzrange(CAST($2 AS timestamptz), CAST($3 AS timestamptz)) AND ii.interview_id <> $5
UNION ALL
SELECT 0, i.candidate_id, i.starts_at, i.ends_at FROM interviews AS i
WHERE i.status = 'scheduled' AND i.candidate_id = $4
	AND tstzrange(i.starts_at, i.ends_at) && tstzrange(CAST($2 AS timestamptz), CAST($3 AS timestamptz)) AND i.id <> $5
ORDER BY 3, 1, 2`
	qBusySQLite = preparedSQLite(`SELECT ii.user_id, 0 AS candidate_id, ii.starts_at, ii.ends_at FROM interview_interviewers AS ii
WHERE ii.active AND ` + idsIn(false, "ii.user_id", 1) + ` AND ii.starts_at < $3 AND ii.ends_at > $2 AND ii.interview_id <> $5
UNION ALL
SELECT 0, i.candidate_id, i.starts_at, i.ends_at FROM interviews AS i
WHERE i.status = 'scheduled' AND i.candidate_id = $4 AND i.starts_at < $3 AND i.ends_at > $2 AND i.id <> $5
ORDER BY 3, 1, 2`)

	qInsertInterview = prepared(`INSERT INTO interviews (job_id, candidate_id, starts_at, ends_at, timezone, location, video_url,
	status, sequence, created_by, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
RETURNING id, (SELECT j.title FROM jobs AS j WHERE j.id = interviews.job_id) AS job_title`)
	qUpdateInterview = prepared(`UPDATE interviews SET starts_at = $1, ends_at = $2, timezone = $3, location = $4, video_url = $5,
	status = $6, sequence = $7, updated_at = $8
WHERE id = $9`)
	// qInsertInterviewWithInterviewersPG is qInsertInterview with the
	// interviewers of the JSON array $12, as qInsertInterviewersPG, in one
	// statement; with the id $13 when drawn (else 0: the identity's
	// next), and the UID $14 and organizer $15, $16.
	qInsertInterviewWithInterviewersPG = `WITH i AS (INSERT INTO interviews (id, job_id, candidate_id, starts_at, ends_at, timezone,
	location, video_url, status, sequence, created_by, created_at, updated_at, uid, organizer_name, organizer_email)
VALUES (COALESCE(NULLIF(CAST($13 AS bigint), 0), nextval(pg_get_serial_sequence('interviews', 'id'))),
	$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $14, $15, $16) RETURNING id, job_id, starts_at, ends_at),
ii AS (INSERT INTO interview_interviewers (interview_id, user_id, position, starts_at, ends_at, active)
SELECT i.id, CAST(x.value AS bigint), x.n, i.starts_at, i.ends_at, CAST($8 AS text) = 'scheduled'
FROM i, json_array_elements_text(CAST($12 AS json)) WITH ORDINALITY AS x(value, n))
SELECT i.id, (SELECT j.title FROM jobs AS j WHERE j.id = i.job_id) AS job_title FROM i`
	qSetInterviewCalendar = prepared(`UPDATE interviews SET uid = $1, organizer_name = $2, organizer_email = $3 WHERE id = $4`)
	qDeleteInterviewers   = prepared(`DELETE FROM interview_interviewers WHERE interview_id = $1`)
	// qInsertInterviewers stores the interviewers of the JSON array $4 of
	// the interview $1, in order, with its times $2, $3 and whether it is
	// scheduled $5.
	qInsertInterviewersPG = `INSERT INTO interview_interviewers (interview_id, user_id, position, starts_at, ends_at, active)
SELECT CAST($1 AS bigint), CAST(x.value AS bigint), x.n, CAST($2 AS timestamptz), CAST($3 AS timestamptz), CAST($5 AS boolean)
FROM json_array_elements_text(CAST($4 AS json)) WITH ORDINALITY AS x(value, n)`
	qInsertInterviewersSQLite = preparedSQLite(`INSERT INTO interview_interviewers (interview_id, user_id, position, starts_at, ends_at, active)
SELECT $1, value, key, $2, $3, $5 FROM json_each($4)`)
)

func interviewersOf(pg bool) string {
	return `SELECT ii.interview_id, u.id, u.name, u.email FROM interview_interviewers AS ii
JOIN users AS u ON u.id = ii.user_id
WHERE ` + idsIn(pg, "ii.interview_id", 1) + `
ORDER BY ii.interview_id, ii.position`
}

func teamUsersOf(pg bool) string {
	return `SELECT u.id, u.name, u.email FROM users AS u
JOIN memberships AS m ON m.user_id = u.id AND m.team_id = $1
WHERE ` + idsIn(pg, "u.id", 2)
}

// pick is the statement of the dialect.
func pick(pg bool, postgres, sqlite string) string {
	if pg {
		return postgres
	}
	return sqlite
}

// withInterviewers reads the interviewers of ivs into them, in one query.
func withInterviewers(ctx context.Context, run runner, ivs []pipeline.Interview) error {
	if len(ivs) == 0 {
		return nil
	}
	ids := make([]int64, len(ivs))
	at := map[int64]int{}
	for i, iv := range ivs {
		ids[i], at[iv.ID] = iv.ID, i
	}
	var rows []struct {
		InterviewID int64  `bun:"interview_id"`
		ID          int64  `bun:"id"`
		Name        string `bun:"name"`
		Email       string `bun:"email"`
	}
	if err := run.all(ctx, pick(run.p.pg, qInterviewersPG, qInterviewersSQLite), args(jsonIDs(ids)), &rows); err != nil {
		return formatError(err, "Interview")
	}
	for _, r := range rows {
		iv := &ivs[at[r.InterviewID]]
		iv.Interviewers = append(iv.Interviewers, pipeline.User{ID: r.ID, Name: r.Name, Email: r.Email})
	}
	return nil
}

func selectInterview(ctx context.Context, run runner, query string, viewer, jobID, candidateID, id int64) (pipeline.Interview, error) {
	var r interviewRow
	if err := run.get(ctx, query, args(id, candidateID, jobID, viewer), &r); err != nil {
		return pipeline.Interview{}, formatError(err, "Interview")
	}
	ivs := []pipeline.Interview{r.toInterview()}
	if err := withInterviewers(ctx, run, ivs); err != nil {
		return pipeline.Interview{}, err
	}
	return ivs[0], nil
}

// Interview returns an interview of a candidate of a job viewer can
// reach, with its interviewers, in two queries.
func (db *DB) Interview(ctx context.Context, viewer, jobID, candidateID, id int64) (pipeline.Interview, error) {
	return selectInterview(ctx, db.read(), qInterview.plain, viewer, jobID, candidateID, id)
}

// ListInterviews returns a page of a candidate's interviews, by start,
// with their count and then their interviewers; an empty page asks the
// candidate (not found) and counts its interviews.
func (db *DB) ListInterviews(ctx context.Context, viewer, jobID, candidateID int64, page int) (pipeline.List[pipeline.Interview], error) {
	run := db.read()
	var rows []interviewRow
	if err := run.all(ctx, qInterviews, args(candidateID, jobID, viewer, pipeline.Offset(page)), &rows); err != nil {
		return pipeline.List[pipeline.Interview]{}, formatError(err, "Interview")
	}
	list := pageOf(page, rows, interviewRow.toInterview)
	if len(rows) > 0 {
		return list, withInterviewers(ctx, run, list.Items)
	}
	if _, err := db.Candidate(ctx, viewer, jobID, candidateID); err != nil {
		return pipeline.List[pipeline.Interview]{}, err
	}
	if err := run.get(ctx, qCountInterviews, args(candidateID, jobID), &list.Total); err != nil {
		return pipeline.List[pipeline.Interview]{}, formatError(err, "Interview")
	}
	return list, nil
}

// BusyTimes returns the busy times q selects, by start.
func (db *DB) BusyTimes(ctx context.Context, q pipeline.BusyQuery) ([]pipeline.Busy, error) {
	return busyTimes(ctx, db.read(), q)
}

func busyTimes(ctx context.Context, run runner, q pipeline.BusyQuery) ([]pipeline.Busy, error) {
	var rows []struct {
		UserID      int64     `bun:"user_id"`
		CandidateID int64     `bun:"candidate_id"`
		StartsAt    time.Time `bun:"starts_at"`
		EndsAt      time.Time `bun:"ends_at"`
	}
	err := run.all(ctx, pick(run.p.pg, qBusyPG, qBusySQLite), args(jsonIDs(q.UserIDs), ts(q.From), ts(q.To), q.CandidateID, q.Except), &rows)
	if err != nil {
		return nil, formatError(err, "Interview")
	}
	out := make([]pipeline.Busy, len(rows))
	for i, r := range rows {
		out[i] = pipeline.Busy{UserID: r.UserID, CandidateID: r.CandidateID, Start: r.StartsAt.UTC(), End: r.EndsAt.UTC()}
	}
	return out, nil
}

// TeamUsers returns the users among ids who are members of a team, in the
// order of ids.
func (db *DB) TeamUsers(ctx context.Context, teamID int64, ids []int64) ([]pipeline.User, error) {
	return teamUsers(ctx, db.read(), teamID, ids)
}

// TeamUsers is DB.TeamUsers inside the transaction.
func (t *tx) TeamUsers(ctx context.Context, teamID int64, ids []int64) ([]pipeline.User, error) {
	return teamUsers(ctx, t.run, teamID, ids)
}

func teamUsers(ctx context.Context, run runner, teamID int64, ids []int64) ([]pipeline.User, error) {
	var rows []userRow
	if err := run.all(ctx, pick(run.p.pg, qTeamUsersPG, qTeamUsersSQLite), args(teamID, jsonIDs(ids)), &rows); err != nil {
		return nil, formatError(err, "User")
	}
	out := make([]pipeline.User, 0, len(rows))
	for _, id := range ids {
		if i := slices.IndexFunc(rows, func(r userRow) bool { return r.ID == id }); i >= 0 {
			out = append(out, rows[i].toUser())
		}
	}
	return out, nil
}

// InterviewForUpdate returns an interview of a candidate of a job viewer
// can reach, with its interviewers; on PostgreSQL its row stays locked
// until the transaction ends.
func (t *tx) InterviewForUpdate(ctx context.Context, viewer, jobID, candidateID, id int64) (pipeline.Interview, error) {
	return selectInterview(ctx, t.run, t.lock(qInterview), viewer, jobID, candidateID, id)
}

// ScheduledInterviewsForUpdate returns the scheduled interviews of a
// candidate that end after endsAfter, by start, with their interviewers;
// on PostgreSQL their rows stay locked until the transaction ends.
func (t *tx) ScheduledInterviewsForUpdate(ctx context.Context, candidateID int64, endsAfter time.Time) ([]pipeline.Interview, error) {
	var rows []interviewRow
	if err := t.run.all(ctx, t.lock(qScheduledInterviews), args(candidateID, ts(endsAfter)), &rows); err != nil {
		return nil, formatError(err, "Interview")
	}
	ivs := make([]pipeline.Interview, len(rows))
	for i, r := range rows {
		ivs[i] = r.toInterview()
	}
	return ivs, withInterviewers(ctx, t.run, ivs)
}

// InsertInterview stores an interview and its interviewers, and returns it
// with its id and its job's title. A clash with a
// scheduled interview is pipeline.ErrBooked: found by the one writer's
// check on SQLite, refused by an exclusion constraint on PostgreSQL (see
// formatError).
func (t *tx) InsertInterview(ctx context.Context, iv pipeline.Interview) (pipeline.Interview, error) {
	if err := t.checkBooking(ctx, iv); err != nil {
		return pipeline.Interview{}, err
	}
	iv.CreatedAt, iv.UpdatedAt = ts(iv.CreatedAt), ts(iv.UpdatedAt)
	a := args(iv.JobID, iv.CandidateID, ts(iv.Start), ts(iv.End), iv.Timezone, iv.Location,
		iv.VideoURL, iv.Status, iv.Sequence, iv.CreatedBy.ID, iv.CreatedAt)
	if t.pg {
		// The interviewers in the same statement, which a clash fails;
		// the id, UID and organizer with them when the id was drawn.
		a = append(a, jsonIDs(userIDs(iv.Interviewers)), iv.ID, iv.UID, iv.Organizer.Name, iv.Organizer.Email)
		err := t.run.get(ctx, qInsertInterviewWithInterviewersPG, a, &iv.ID, &iv.JobTitle)
		return iv, formatError(err, "Interview")
	}
	if err := t.run.get(ctx, qInsertInterview, a, &iv.ID, &iv.JobTitle); err != nil {
		return pipeline.Interview{}, formatError(err, "Interview")
	}
	return iv, t.insertInterviewers(ctx, iv)
}

// SetInterviewCalendar stores the UID and the organizer of an interview.
// On PostgreSQL the statement waits in the transaction's batch.
func (t *tx) SetInterviewCalendar(ctx context.Context, iv pipeline.Interview) error {
	err := t.run.deferred(ctx, qSetInterviewCalendar, iv.UID, iv.Organizer.Name, iv.Organizer.Email, iv.ID)
	return formatError(err, "Interview")
}

// UpdateInterview stores an interview's fields and its interviewers anew.
func (t *tx) UpdateInterview(ctx context.Context, iv pipeline.Interview) error {
	if err := t.checkBooking(ctx, iv); err != nil {
		return err
	}
	_, err := t.run.exec(ctx, qUpdateInterview, ts(iv.Start), ts(iv.End), iv.Timezone, iv.Location, iv.VideoURL,
		iv.Status, iv.Sequence, ts(iv.UpdatedAt), iv.ID)
	if err != nil {
		return formatError(err, "Interview")
	}
	if _, err := t.run.exec(ctx, qDeleteInterviewers, iv.ID); err != nil {
		return formatError(err, "Interview")
	}
	return t.insertInterviewers(ctx, iv)
}

// insertInterviewers stores the interviewers of iv with its times. Each
// statement runs at once, so that an exclusion violation is reported by
// the call that caused it.
func (t *tx) insertInterviewers(ctx context.Context, iv pipeline.Interview) error {
	_, err := t.run.exec(ctx, pick(t.pg, qInsertInterviewersPG, qInsertInterviewersSQLite),
		iv.ID, ts(iv.Start), ts(iv.End), jsonIDs(userIDs(iv.Interviewers)), iv.Status == pipeline.InterviewScheduled)
	return formatError(err, "Interview")
}

// userIDs are the ids of us, in order.
func userIDs(us []pipeline.User) []int64 {
	ids := make([]int64, len(us))
	for i, u := range us {
		ids[i] = u.ID
	}
	return ids
}

// checkBooking is SQLite's rule against double booking, which its one
// writer makes exact: a scheduled interview may not overlap another
// scheduled one of its interviewers or its candidate. PostgreSQL's
// exclusion constraints hold it there.
func (t *tx) checkBooking(ctx context.Context, iv pipeline.Interview) error {
	if t.pg || iv.Status != pipeline.InterviewScheduled {
		return nil
	}
	busy, err := busyTimes(ctx, t.run, pipeline.BusyQuery{UserIDs: userIDs(iv.Interviewers), CandidateID: iv.CandidateID, From: iv.Start, To: iv.End, Except: iv.ID})
	if err != nil {
		return err
	}
	if len(busy) > 0 {
		return pipeline.ErrBooked
	}
	return nil
}
