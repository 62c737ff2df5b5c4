package main

import (
	"net/http"
	"slices"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/ical"
)

// The statements of a reschedule's first round trip: the interview
// locked, then read (a fresh snapshot, as the candidate's in
// baseline_write.go) with its candidate, job, creator and interviewers,
// and the members of the job's team among the interviewers it is to have:
// those of the array $2, or when it is null, its own.
const (
	lockInterviewSQL = `SELECT i.id FROM interviews AS i JOIN jobs AS j ON j.id = i.job_id
WHERE i.id = $4 AND i.candidate_id = $3 AND i.job_id = $2 AND ` + visibleSQL + ` FOR NO KEY UPDATE OF i`
	readInterviewSQL = `SELECT i.starts_at, i.ends_at, i.timezone, COALESCE(i.location, ''), COALESCE(i.video_url, ''), i.status, i.sequence,
	i.uid, i.organizer_name, i.organizer_email, i.created_by, cb.name, i.created_at, i.updated_at,
	c.name, c.email, c.status, c.erased_at IS NOT NULL, j.title, j.team_id,
	COALESCE((SELECT json_agg(json_build_object('id', u.id, 'name', u.name, 'email', u.email) ORDER BY ii.position)
		FROM interview_interviewers AS ii JOIN users AS u ON u.id = ii.user_id WHERE ii.interview_id = i.id), '[]')
FROM interviews AS i JOIN candidates AS c ON c.id = i.candidate_id JOIN jobs AS j ON j.id = i.job_id
JOIN users AS cb ON cb.id = i.created_by
WHERE i.id = $4 AND i.candidate_id = $3 AND i.job_id = $2 AND ` + visibleSQL
	interviewTeamSQL = `SELECT u.id, u.name, u.email FROM users AS u
JOIN memberships AS m ON m.user_id = u.id AND m.team_id = (SELECT team_id FROM jobs WHERE id = $1)
WHERE u.id = ANY(COALESCE($2::bigint[], ARRAY(SELECT ii.user_id FROM interview_interviewers AS ii WHERE ii.interview_id = $3)))`
	updateInterviewSQL = `UPDATE interviews SET starts_at = $1, ends_at = $2, timezone = $3, location = $4, video_url = $5,
	sequence = $6, updated_at = $7 WHERE id = $8`
	// setInterviewersSQL makes the interviewers of the interview $1 those
	// of the array $4, in order, from $2 to $3: the others' rows deleted,
	// the kept ones' updated in place, the new ones inserted, each row
	// touched once (a row deleted and inserted again by one statement
	// would fail the primary key).
	setInterviewersSQL = `WITH x AS (SELECT u.id, u.n FROM unnest($4::bigint[]) WITH ORDINALITY AS u(id, n)),
gone AS (DELETE FROM interview_interviewers AS ii WHERE ii.interview_id = $1 AND ii.user_id <> ALL($4::bigint[])),
kept AS (UPDATE interview_interviewers AS ii SET position = x.n, starts_at = $2, ends_at = $3 FROM x
	WHERE ii.interview_id = $1 AND ii.user_id = x.id)
INSERT INTO interview_interviewers (interview_id, user_id, position, starts_at, ends_at, active)
SELECT $1, x.id, x.n, $2, $3, true FROM x
WHERE NOT EXISTS (SELECT 1 FROM interview_interviewers AS ii WHERE ii.interview_id = $1 AND ii.user_id = x.id)`
)

// storedInterview is an interview as a reschedule reads it.
type storedInterview struct {
	start, end         time.Time
	timezone           string
	location, videoURL string
	status             string
	sequence           int
	uid                string
	organizer          pipeline.User
	createdBy          named
	createdAt          time.Time
	updatedAt          time.Time
	candName, email    string
	candStatus         string
	erased             bool
	title              string
	interviewers       []person
}

// reschedule serves PATCH …/interviews/:interview: in one round trip the
// interview's lock and read, the team's members among its interviewers
// to be and the key's; then the same checks as ours, in its order; then
// the interview, its interviewers, the updated invitation's mails (to
// those who had it; a new one to interviewers added, a cancellation to
// those removed) with their River jobs, its activity entry and the key's
// record in a second, and the commit. A clash rolls back and answers 409.
func (b *baseline) reschedule(c *gin.Context) {
	var p pipeline.InterviewPatch
	w, bad, ok := newScopedWrite(c, http.StatusOK, pipeline.ScopeSchedulingWrite,
		bodyField{name: "start", kind: "a string", into: &p.Start},
		bodyField{name: "end", kind: "a string", into: &p.End},
		bodyField{name: "timezone", kind: "a string", into: &p.Timezone},
		bodyField{name: "interviewer_ids", kind: "an array of integers", into: &p.InterviewerIDs},
		bodyField{name: "location", kind: "a string", into: &p.Location, nullable: true},
		bodyField{name: "video_url", kind: "a string", into: &p.VideoURL, nullable: true})
	if !ok {
		return
	}
	defer w.rollback()
	w.what = "Interview"
	id := pathID(c, "interview")
	if w.keyed {
		w.print = pipeline.RequestDigest(pipeline.OpRescheduleInterview, pipeline.Ref{Job: w.jobID, Candidate: w.candID, Interview: id}, &p)
	}
	var st storedInterview
	var members []person
	err := b.openOn(c.Request.Context(), w, func(batch *pgx.Batch) {
		batch.Queue(lockInterviewSQL, w.cl.userID, w.jobID, w.candID, id).QueryRow(func(row pgx.Row) error {
			var got int64
			err := row.Scan(&got)
			w.locked = err == nil
			return ignoreNoRows(err)
		})
		batch.Queue(readInterviewSQL, w.cl.userID, w.jobID, w.candID, id).QueryRow(func(row pgx.Row) error {
			err := row.Scan(&st.start, &st.end, &st.timezone, &st.location, &st.videoURL, &st.status, &st.sequence,
				&st.uid, &st.organizer.Name, &st.organizer.Email, &st.createdBy.ID, &st.createdBy.Name, &st.createdAt, &st.updatedAt,
				&st.candName, &st.email, &st.candStatus, &st.erased, &st.title, &w.teamID, &st.interviewers)
			w.found = err == nil
			return ignoreNoRows(err)
		})
	}, func(batch *pgx.Batch) {
		var ids []int64 // nil: the interview's own
		if p.InterviewerIDs != nil {
			ids = *p.InterviewerIDs
		}
		batch.Queue(interviewTeamSQL, w.jobID, ids, id).Query(collectPeople(&members))
	})
	if !w.opened(c, b, err, nil) {
		return
	}
	after, f := patched(st, p, bad, members, w.now)
	switch {
	case f != nil:
		invalid(c, f)
		return
	case st.candStatus != pipeline.CandidateActive:
		fail(c, http.StatusForbidden, "forbidden", "The candidate is not active.", nil)
		return
	case st.erased:
		fail(c, http.StatusForbidden, "forbidden", "The candidate was erased.", nil)
		return
	case st.status == pipeline.InterviewCancelled:
		fail(c, http.StatusForbidden, "forbidden", "The interview is cancelled.", nil)
		return
	}
	before := interviewOf(w, id, st, st.interviewers, st.start, st.end, st.timezone, st.location, st.videoURL)
	changes := changedFields(st, after)
	var batch pgx.Batch
	if len(changes) == 0 {
		b.commit(c, w, &batch, http.StatusOK, encode(envelope[interviewBody]{Data: before}))
		return
	}
	st.sequence++
	iv := interviewOf(w, id, st, after.interviewers, after.start, after.end, after.timezone, after.location, after.videoURL)
	iv.UpdatedAt = stamp(w.now)
	ids := personIDs(iv.Interviewers)
	batch.Queue(updateInterviewSQL, after.start, after.end, after.timezone, after.location, after.videoURL, st.sequence, w.now, id)
	batch.Queue(setInterviewersSQL, id, after.start, after.end, ids)
	inv := invitationFor(w, iv, st, after.start, after.end)
	var kept, added, removed []person
	for _, m := range iv.Interviewers {
		if slices.ContainsFunc(st.interviewers, func(o person) bool { return o.ID == m.ID }) {
			kept = append(kept, m)
		} else {
			added = append(added, m)
		}
	}
	for _, m := range st.interviewers {
		if !slices.ContainsFunc(iv.Interviewers, func(o person) bool { return o.ID == m.ID }) {
			removed = append(removed, m)
		}
	}
	at := new(0)
	queueMails(&batch, w, inv, append(kept, person{Name: st.candName, Email: st.email}), at)
	if len(added) > 0 {
		first := inv
		first.First = true
		queueMails(&batch, w, first, added, at)
	}
	if len(removed) > 0 {
		old := invitationFor(w, before, st, st.start, st.end)
		old.Method = pipeline.MethodCancel
		for _, m := range removed {
			old.Removed = append(old.Removed, pipeline.User{ID: m.ID, Name: m.Name, Email: m.Email})
		}
		queueMails(&batch, w, old, removed, at)
	}
	batch.Queue(interviewActivitySQL, w.teamID, w.jobID, w.cl.userID, w.cl.tokenID, w.cl.ip, pipeline.ActionInterviewRescheduled,
		id, string(encode(changes)), w.now)
	w.booking = &booking{ids: ids, candID: w.candID, except: id, start: after.start, end: after.end}
	b.commit(c, w, &batch, http.StatusOK, encode(envelope[interviewBody]{Data: iv}))
}

// patch is an interview's fields as a patch leaves them.
type patch struct {
	start, end         time.Time
	timezone           string
	interviewers       []person
	location, videoURL string
}

// patched applies p to st and judges the result as ours does: the fields
// that could not be read (bad), then, unless one of them is the whole
// body, the fields' own rules, the start's against now when it is sent
// and the interviewers' membership of the team, all in one answer (nil:
// none).
func patched(st storedInterview, p pipeline.InterviewPatch, bad map[string][]string, members []person, now time.Time) (patch, map[string][]string) {
	if bad["body"] != nil {
		return patch{}, bad
	}
	sent := p.Start != nil || p.End != nil || p.Timezone != nil || p.InterviewerIDs != nil || p.Location != nil || p.VideoURL != nil
	if !sent && bad == nil {
		return patch{}, map[string][]string{"body": {"At least one of start, end, timezone, interviewer_ids, location, video_url is required."}}
	}
	if !sent {
		return patch{}, bad
	}
	in := pipeline.NewInterview{Start: stamp(st.start), End: stamp(st.end), Timezone: st.timezone, InterviewerIDs: personIDs(st.interviewers),
		Location: st.location, VideoURL: st.videoURL}
	set := func(dst, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&in.Start, p.Start)
	set(&in.End, p.End)
	set(&in.Timezone, p.Timezone)
	set(&in.Location, p.Location)
	set(&in.VideoURL, p.VideoURL)
	if p.InterviewerIDs != nil {
		in.InterviewerIDs = *p.InterviewerIDs
	}
	f := map[string][]string{}
	for name, msgs := range bad {
		f[name] = msgs
	}
	add := func(name, msg string) {
		if _, ok := bad[name]; !ok {
			f[name] = append(f[name], msg)
		}
	}
	for name, msgs := range pipeline.Fields(in.Validate()) {
		for _, m := range msgs {
			add(name, m)
		}
	}
	start, errStart := time.Parse(time.RFC3339, in.Start)
	end, _ := time.Parse(time.RFC3339, in.End)
	start, end = start.UTC().Truncate(time.Second), end.UTC().Truncate(time.Second)
	if p.Start != nil && errStart == nil && f["start"] == nil {
		switch {
		case start.Before(now):
			add("start", "The start may not be in the past.")
		case start.After(now.Add(pipeline.MaxInterviewAhead)):
			add("start", "The start may not be more than 365 days ahead.")
		}
	}
	var interviewers []person
	for _, want := range in.InterviewerIDs { // in the order given
		if i := slices.IndexFunc(members, func(m person) bool { return m.ID == want }); i >= 0 {
			interviewers = append(interviewers, members[i])
		}
	}
	if f["interviewer_ids"] == nil && len(interviewers) != len(in.InterviewerIDs) {
		add("interviewer_ids", "Each interviewer must be a member of the job's team.")
	}
	if len(f) > 0 {
		return patch{}, f
	}
	return patch{start: start, end: end, timezone: cmpOr(in.Timezone, "UTC"), interviewers: interviewers,
		location: in.Location, videoURL: in.VideoURL}, nil
}

// changedFields is what a patch changed, as the activity entry records it.
func changedFields(st storedInterview, after patch) map[string]change {
	out := map[string]change{}
	orNull := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	if !st.start.Equal(after.start) {
		out["start"] = change{Before: stamp(st.start), After: stamp(after.start)}
	}
	if !st.end.Equal(after.end) {
		out["end"] = change{Before: stamp(st.end), After: stamp(after.end)}
	}
	if st.timezone != after.timezone {
		out["timezone"] = change{Before: st.timezone, After: after.timezone}
	}
	before, now := personIDs(st.interviewers), personIDs(after.interviewers)
	if !slices.Equal(sortedIDs(before), sortedIDs(now)) {
		out["interviewer_ids"] = change{Before: before, After: now}
	}
	if st.location != after.location {
		out["location"] = change{Before: orNull(st.location), After: orNull(after.location)}
	}
	if st.videoURL != after.videoURL {
		out["video_url"] = change{Before: orNull(st.videoURL), After: orNull(after.videoURL)}
	}
	return out
}

func personIDs(ps []person) []int64 {
	ids := make([]int64, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	return ids
}

func sortedIDs(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

// interviewOf is the stored interview st with the given fields, as ours
// renders it.
func interviewOf(w *write, id int64, st storedInterview, interviewers []person, start, end time.Time, tz, location, videoURL string) interviewBody {
	iv := interviewBody{ID: id, JobID: w.jobID, CandidateID: w.candID, Start: stamp(start), End: stamp(end), Timezone: tz,
		Interviewers: interviewers, Status: st.status, Sequence: st.sequence, CreatedBy: st.createdBy,
		CreatedAt: stamp(st.createdAt), UpdatedAt: stamp(st.updatedAt)}
	if location != "" {
		iv.Location = &location
	}
	if videoURL != "" {
		iv.VideoURL = &videoURL
	}
	return iv
}

// invitationFor is the invitation of the interview iv, with the UID and
// organizer st stored.
func invitationFor(w *write, iv interviewBody, st storedInterview, start, end time.Time) pipeline.Invitation {
	users := make([]pipeline.User, len(iv.Interviewers))
	for i, p := range iv.Interviewers {
		users[i] = pipeline.User{ID: p.ID, Name: p.Name, Email: p.Email}
	}
	v := pipeline.Interview{ID: iv.ID, JobID: w.jobID, CandidateID: w.candID, Start: start, End: end, Timezone: iv.Timezone,
		Location: deref(iv.Location), VideoURL: deref(iv.VideoURL), Interviewers: users, Status: iv.Status, Sequence: st.sequence,
		CreatedBy: pipeline.User{ID: st.createdBy.ID, Name: st.createdBy.Name}, CreatedAt: st.createdAt, UpdatedAt: w.now,
		CandidateName: st.candName, CandidateEmail: st.email, JobTitle: st.title, UID: st.uid, Organizer: st.organizer}
	return pipeline.Invitation{Interview: v, UID: st.uid, Method: pipeline.MethodRequest, Organizer: st.organizer}
}

// queueMails queues inv's mails to each of to, with their River jobs, in
// the change's places from *at, which it moves past them.
func queueMails(batch *pgx.Batch, w *write, inv pipeline.Invitation, to []person, at *int) {
	emails, names := make([]string, len(to)), make([]string, len(to))
	for i, p := range to {
		emails[i], names[i] = p.Email, p.Name
	}
	subject, text := invitationText(inv)
	batch.Queue(invitationMailsSQL, inv.Interview.ID, subject, text, string(ical.Render(inv)), w.now, emails, names,
		pipeline.MaxMailAttempts, inv.Interview.Sequence, inv.Method, *at)
	*at += len(to)
}
