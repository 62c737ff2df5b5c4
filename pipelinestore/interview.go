package pipelinestore

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

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

// jsonIDs is ids as a JSON array, the argument of idsIn.
func jsonIDs(ids []int64) string {
	if ids == nil {
		ids = []int64{}
	}
	b, _ := json.Marshal(ids)
	return string(b)
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
	if err := run.all(ctx, run.p.q.Interviewers, args(jsonIDs(ids)), &rows); err != nil {
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

// interviewStore is the DB's InterviewStore.
type interviewStore struct{ *DB }

// Interviews reads interviews.
func (db *DB) Interviews() pipeline.InterviewStore { return interviewStore{db} }

// interviewTx is a transaction's InterviewTx.
type interviewTx struct{ *tx }

// Interviews writes interviews.
func (t *tx) Interviews() pipeline.InterviewTx { return interviewTx{t} }

// Get returns an interview of a candidate of a job viewer can reach, with
// its interviewers, in two queries.
func (db interviewStore) Get(ctx context.Context, p pipeline.InterviewParams) (pipeline.Interview, error) {
	return selectInterview(ctx, db.read(), db.q.Interview, p.Viewer, p.JobID, p.CandidateID, p.ID)
}

// List returns a page of a candidate's interviews, by start, with their
// count and then their interviewers; an empty page asks the candidate
// (not found) and counts its interviews.
func (db interviewStore) List(ctx context.Context, p pipeline.ListInterviewsParams) (pipeline.List[pipeline.Interview], error) {
	run := db.read()
	var rows []interviewRow
	if err := run.all(ctx, db.q.Interviews, args(p.CandidateID, p.JobID, p.Viewer, pipeline.Offset(p.Page)), &rows); err != nil {
		return pipeline.List[pipeline.Interview]{}, formatError(err, "Interview")
	}
	list := pageOf(p.Page, rows, interviewRow.toInterview)
	if len(rows) > 0 {
		return list, withInterviewers(ctx, run, list.Items)
	}
	if _, err := db.Candidates().Get(ctx, pipeline.CandidateParams{Viewer: p.Viewer, JobID: p.JobID, ID: p.CandidateID}); err != nil {
		return pipeline.List[pipeline.Interview]{}, err
	}
	if err := run.get(ctx, db.q.CountInterviews, args(p.CandidateID, p.JobID), &list.Total); err != nil {
		return pipeline.List[pipeline.Interview]{}, formatError(err, "Interview")
	}
	return list, nil
}

// Busy returns the busy times q selects, by start.
func (db interviewStore) Busy(ctx context.Context, q pipeline.BusyQuery) ([]pipeline.Busy, error) {
	return busyTimes(ctx, db.read(), q)
}

func busyTimes(ctx context.Context, run runner, q pipeline.BusyQuery) ([]pipeline.Busy, error) {
	var rows []struct {
		UserID      int64     `bun:"user_id"`
		CandidateID int64     `bun:"candidate_id"`
		StartsAt    time.Time `bun:"starts_at"`
		EndsAt      time.Time `bun:"ends_at"`
	}
	err := run.all(ctx, run.p.q.Busy, args(jsonIDs(q.UserIDs), ts(q.From), ts(q.To), q.CandidateID, q.Except), &rows)
	if err != nil {
		return nil, formatError(err, "Interview")
	}
	out := make([]pipeline.Busy, len(rows))
	for i, r := range rows {
		out[i] = pipeline.Busy{UserID: r.UserID, CandidateID: r.CandidateID, Start: r.StartsAt.UTC(), End: r.EndsAt.UTC()}
	}
	return out, nil
}

// InTeam returns the users among ids who are members of a team, in the
// order of ids.
func (db userStore) InTeam(ctx context.Context, p pipeline.TeamUsersParams) ([]pipeline.User, error) {
	return teamUsers(ctx, db.read(), p.TeamID, p.IDs)
}

// Interviewers is UserStore.InTeam inside the transaction, answered from
// p.Known when it can be.
func (t interviewTx) Interviewers(ctx context.Context, p pipeline.InterviewersParams) ([]pipeline.User, error) {
	if us, ok := among(p.Known, p.IDs); ok {
		return us, nil
	}
	return teamUsers(ctx, t.run, p.TeamID, p.IDs)
}

func teamUsers(ctx context.Context, run runner, teamID int64, ids []int64) ([]pipeline.User, error) {
	var rows []userRow
	if err := run.all(ctx, run.p.q.TeamUsers, args(teamID, jsonIDs(ids)), &rows); err != nil {
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

// Lock returns an interview of a candidate of a job viewer can reach,
// with its interviewers; on PostgreSQL its row stays locked until the
// transaction ends. There one statement reads it with its interviewers,
// whether each belongs to the job's team (LockedInterview.Interviewers)
// and, when p has one to make, a key's claim; it runs once more when the
// row changed since it began.
func (t interviewTx) Lock(ctx context.Context, p pipeline.LockInterviewParams) (pipeline.LockedInterview, error) {
	if !t.pg {
		iv, err := selectInterview(ctx, t.run, t.q.InterviewLocked, p.Viewer, p.JobID, p.CandidateID, p.ID)
		return pipeline.LockedInterview{Interview: iv}, err
	}
	var r struct {
		claimRow
		interviewRow
		Interviewers []byte `bun:"interviewers"`
		Current      bool   `bun:"interviewers_current"`
	}
	a := args(p.ID, p.CandidateID, p.JobID, p.Viewer)
	var err error
	if kc := t.claimToMake(p.Claim); kc != nil {
		err = t.claimingGet(ctx, kc, qClaimInterview, a, nil, &r, &r.claimRow, &r.ID)
	} else {
		err = t.run.get(ctx, t.q.InterviewLockedWithInterviewers, a, &r)
	}
	if err == nil && !r.Current {
		// The row changed since the statement's snapshot (while it waited
		// for the lock, or before): what it joined to the row, the
		// interviewers and the candidate (erased or no longer active
		// since, see LockCandidateInterviews), may be as they were before.
		err = t.run.get(ctx, t.q.InterviewLockedWithInterviewers, a, &r)
	}
	if err != nil {
		return pipeline.LockedInterview{}, formatError(err, "Interview")
	}
	var users []teamUser
	if err := json.Unmarshal(r.Interviewers, &users); err != nil {
		return pipeline.LockedInterview{}, err
	}
	l := pipeline.LockedInterview{Interview: r.interviewRow.toInterview(), Interviewers: make([]pipeline.TeamMember, len(users))}
	for i, u := range users {
		l.Interview.Interviewers = append(l.Interview.Interviewers, u.User)
		l.Interviewers[i] = pipeline.TeamMember{User: u.User, Member: u.Member}
	}
	return l, nil
}

// qClaimInterview is InterviewLockedWithInterviewers that claims a key
// first (PostgreSQL).
var qClaimInterview = claiming(postgresSQL.InterviewLockedWithInterviewers, 4)

// teamUser is a user and whether they belong to a team, as a locking read
// of an interview reads its interviewers.
type teamUser struct {
	pipeline.User
	Member bool `json:"member"`
}

// among answers Interviewers for ids from known, when every one of them
// is known.
func among(known []pipeline.TeamMember, ids []int64) ([]pipeline.User, bool) {
	if known == nil {
		return nil, false
	}
	out := make([]pipeline.User, 0, len(ids))
	for _, id := range ids {
		i := slices.IndexFunc(known, func(u pipeline.TeamMember) bool { return u.User.ID == id })
		if i < 0 {
			return nil, false
		}
		if known[i].Member {
			out = append(out, known[i].User)
		}
	}
	return out, true
}

// LockScheduled returns the scheduled interviews of a candidate that end
// after p.EndsAfter, by start, with their interviewers; on PostgreSQL
// every interview of the candidate is locked first, unless the
// transaction holds them (p.Held: the erasure locked them), and stays
// locked until the transaction ends.
func (t interviewTx) LockScheduled(ctx context.Context, p pipeline.LockScheduledParams) ([]pipeline.Interview, error) {
	if t.pg && !p.Held {
		// Every interview first, in a statement of its own: the read below
		// then sees one moved into the window by a change that held its
		// lock, where its own snapshot would have left it out, and a change
		// waiting for a lock reads the candidate anew.
		if err := t.run.deferred(ctx, t.q.LockCandidateInterviews, p.CandidateID); err != nil {
			return nil, formatError(err, "Interview")
		}
	}
	var rows []interviewRow
	if err := t.run.all(ctx, t.q.ScheduledInterviews, args(p.CandidateID, ts(p.EndsAfter)), &rows); err != nil {
		return nil, formatError(err, "Interview")
	}
	ivs := make([]pipeline.Interview, len(rows))
	for i, r := range rows {
		ivs[i] = r.toInterview()
	}
	return ivs, withInterviewers(ctx, t.run, ivs)
}

// Insert stores an interview and its interviewers, and returns it with
// its id and its job's title. A clash with a
// scheduled interview is pipeline.ErrBooked: found by the one writer's
// check on SQLite, refused by an exclusion constraint on PostgreSQL (see
// formatError).
func (t interviewTx) Insert(ctx context.Context, iv pipeline.Interview) (pipeline.Interview, error) {
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
		if iv.ID != 0 && iv.JobTitle != "" {
			// Its id drawn with its job's title (see candidateRead):
			// nothing to return, the insert waits in the batch, and a
			// clash fails the batch that sends it.
			return iv, t.deferBooking(ctx, true, t.q.InsertInterviewDrawn, a...)
		}
		err := t.run.get(ctx, t.q.InsertInterviewWithInterviewers, a, &iv.ID, &iv.JobTitle)
		return iv, bookingError(err)
	}
	if err := t.run.get(ctx, t.q.InsertInterview, a, &iv.ID, &iv.JobTitle); err != nil {
		return pipeline.Interview{}, formatError(err, "Interview")
	}
	return iv, t.insertInterviewers(ctx, iv)
}

// deferBooking has an interview's insert or update wait in the batch
// (PostgreSQL); books says that it books the interview's times, so that
// a clash fails the batch that sends it.
func (t *tx) deferBooking(ctx context.Context, books bool, query string, args ...any) error {
	if books {
		t.booking, t.run.waiting.books = true, true
	}
	return bookingError(t.run.deferred(ctx, query, args...))
}

// SetCalendar stores the UID and the organizer of an interview. On
// PostgreSQL the statement waits in the transaction's batch.
func (t interviewTx) SetCalendar(ctx context.Context, iv pipeline.Interview) error {
	err := t.run.deferred(ctx, t.q.SetInterviewCalendar, iv.UID, iv.Organizer.Name, iv.Organizer.Email, iv.ID)
	return formatError(err, "Interview")
}

// Update stores an interview's fields and its interviewers anew. On
// PostgreSQL one statement does, and it waits in the transaction's batch:
// a clash fails the batch that sends it, as an insert's.
func (t interviewTx) Update(ctx context.Context, iv pipeline.Interview) error {
	if t.pg {
		return t.deferBooking(ctx, iv.Status == pipeline.InterviewScheduled, t.q.UpdateInterviewWithInterviewers, ts(iv.Start),
			ts(iv.End), iv.Timezone, iv.Location, iv.VideoURL, iv.Status, iv.Sequence, ts(iv.UpdatedAt), iv.ID,
			jsonIDs(userIDs(iv.Interviewers)))
	}
	if err := t.checkBooking(ctx, iv); err != nil {
		return err
	}
	_, err := t.run.exec(ctx, t.q.UpdateInterview, ts(iv.Start), ts(iv.End), iv.Timezone, iv.Location, iv.VideoURL,
		iv.Status, iv.Sequence, ts(iv.UpdatedAt), iv.ID)
	if err != nil {
		return bookingError(err)
	}
	if _, err := t.run.exec(ctx, t.q.DeleteInterviewers, iv.ID); err != nil {
		return formatError(err, "Interview")
	}
	return t.insertInterviewers(ctx, iv)
}

// insertInterviewers stores the interviewers of iv with its times. Each
// statement runs at once, so that an exclusion violation is reported by
// the call that caused it.
func (t *tx) insertInterviewers(ctx context.Context, iv pipeline.Interview) error {
	_, err := t.run.exec(ctx, t.q.InsertInterviewers,
		iv.ID, ts(iv.Start), ts(iv.End), jsonIDs(userIDs(iv.Interviewers)), iv.Status == pipeline.InterviewScheduled)
	return bookingError(err)
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
