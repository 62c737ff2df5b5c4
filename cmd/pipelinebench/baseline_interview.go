package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The statements of a schedule: the interviewers who are members of the
// job's team, then, after the insert, the busy times of a clash, the
// interview $5 left out (0: none).
const (
	teamMembersSQL = `SELECT u.id, u.name, u.email FROM users AS u
JOIN memberships AS m ON m.user_id = u.id AND m.team_id = (SELECT team_id FROM jobs WHERE id = $1)
WHERE u.id = ANY($2)`
	busySQL = `SELECT ii.user_id, 0, ii.starts_at, ii.ends_at FROM interview_interviewers AS ii
WHERE ii.active AND ii.user_id = ANY($1) AND tstzrange(ii.starts_at, ii.ends_at) && tstzrange($2, $3) AND ii.interview_id <> $5
UNION ALL
SELECT 0, i.candidate_id, i.starts_at, i.ends_at FROM interviews AS i
WHERE i.status = 'scheduled' AND i.candidate_id = $4 AND tstzrange(i.starts_at, i.ends_at) && tstzrange($2, $3) AND i.id <> $5
ORDER BY 3, 1, 2`
	// invitationMailsSQL queues an invitation's mails at sequence $9 with
	// method $10, one to each recipient of the arrays $6 (emails) and $7
	// (names), in the change's places from $11, and their River job
	// rows, as ours does through River (see riverJobSQL).
	invitationMailsSQL = `WITH m AS (INSERT INTO invitation_mails
	(interview_id, sequence, position, method, recipient, recipient_name, subject, body, calendar, status, attempts, created_at)
SELECT $1, $9, $11 + r.n - 1, $10, r.email, r.name, $2, $3, $4, 'queued', 0, $5
FROM unnest($6::text[], $7::text[]) WITH ORDINALITY AS r(email, name, n)
RETURNING id)
INSERT INTO river_job (args, kind, max_attempts, priority, queue, scheduled_at, state, metadata, tags)
SELECT jsonb_build_object('invitation_mail_id', m.id), 'pipeline_invitation', $8, 1, 'messages', $5, 'available', '{}', '{}' FROM m`
	interviewActivitySQL = `INSERT INTO activity (team_id, job_id, user_id, token_id, ip, action, subject_type, subject_id, changes, created_at)
VALUES ($1, $2, $3, $4, $5, $6, 'interview', $7, $8, $9)`
)

// interviewBody is an interview as ours renders it.
type interviewBody struct {
	ID           int64    `json:"id"`
	JobID        int64    `json:"job_id"`
	CandidateID  int64    `json:"candidate_id"`
	Start        string   `json:"start"`
	End          string   `json:"end"`
	Timezone     string   `json:"timezone"`
	Location     *string  `json:"location"`
	VideoURL     *string  `json:"video_url"`
	Interviewers []person `json:"interviewers"`
	Status       string   `json:"status"`
	Sequence     int      `json:"sequence"`
	CreatedBy    named    `json:"created_by"`
	CreatedAt    string   `json:"created_at"`
	UpdatedAt    string   `json:"updated_at"`
}

type person struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

// busyBody is a clashing time of a 409's details.
type busyBody struct {
	UserID      int64  `json:"user_id,omitempty"`
	CandidateID int64  `json:"candidate_id,omitempty"`
	Start       string `json:"start"`
	End         string `json:"end"`
}

// readSchedule decodes a schedule's body and judges it as ours does.
func readSchedule(raw []byte) (pipeline.NewInterview, map[string][]string) {
	var in pipeline.NewInterview
	bad := decodeFields(raw,
		bodyField{name: "start", kind: "a string", into: &in.Start},
		bodyField{name: "end", kind: "a string", into: &in.End},
		bodyField{name: "timezone", kind: "a string", into: &in.Timezone},
		bodyField{name: "interviewer_ids", kind: "an array of integers", into: &in.InterviewerIDs},
		bodyField{name: "location", kind: "a string", into: &in.Location},
		bodyField{name: "video_url", kind: "a string", into: &in.VideoURL})
	if bad["body"] != nil {
		return in, bad
	}
	for name, msgs := range pipeline.Fields(in.Validate()) {
		if bad == nil {
			bad = map[string][]string{}
		}
		if _, ok := bad[name]; !ok && name != "body" {
			bad[name] = msgs
		}
	}
	return in, bad
}

// schedule serves POST …/candidates/:candidate/interviews: in one
// transaction the same checks as ours, the interview and its interviewers
// (the exclusion constraints refuse a clash), its activity entry and the
// idempotency record; a clash rolls back and reads the busy times.
func (b *baseline) schedule(c *gin.Context) {
	w, _, ok := newScopedWrite(c, http.StatusCreated, pipeline.ScopeSchedulingWrite)
	if !ok {
		return
	}
	defer w.rollback()
	in, bad := readSchedule(w.raw)
	if w.keyed {
		w.print = pipeline.RequestDigest(pipeline.OpScheduleInterview, pipeline.Ref{Job: w.jobID, Candidate: w.candID}, &in)
	}
	var members []person
	var id int64
	var title string
	err := b.open(c.Request.Context(), w, func(batch *pgx.Batch) {
		batch.Queue(`SELECT title FROM jobs WHERE id = $1`, w.jobID).QueryRow(func(row pgx.Row) error {
			return ignoreNoRows(row.Scan(&title))
		})
		batch.Queue(teamMembersSQL, w.jobID, in.InterviewerIDs).Query(collectPeople(&members))
		batch.Queue(`SELECT nextval(pg_get_serial_sequence('interviews', 'id'))`).QueryRow(func(row pgx.Row) error {
			return row.Scan(&id)
		})
	})
	if !w.opened(c, b, err, bad) {
		return
	}
	start, _ := time.Parse(time.RFC3339, in.Start) // validated
	end, _ := time.Parse(time.RFC3339, in.End)
	start, end = start.UTC().Truncate(time.Second), end.UTC().Truncate(time.Second)
	switch {
	case start.Before(w.now):
		invalid(c, map[string][]string{"start": {"The start may not be in the past."}})
		return
	case start.After(w.now.Add(pipeline.MaxInterviewAhead)):
		invalid(c, map[string][]string{"start": {"The start may not be more than 365 days ahead."}})
		return
	case len(members) != len(in.InterviewerIDs):
		invalid(c, map[string][]string{"interviewer_ids": {"Each interviewer must be a member of the job's team."}})
		return
	case w.cand.Status != pipeline.CandidateActive:
		fail(c, http.StatusForbidden, "forbidden", "The candidate is not active.", nil)
		return
	}
	iv := interviewBody{ID: id, JobID: w.jobID, CandidateID: w.candID, Start: stamp(start), End: stamp(end),
		Timezone: cmpOr(in.Timezone, "UTC"), Status: pipeline.InterviewScheduled,
		CreatedBy: named{ID: w.cl.userID, Name: w.cl.userName}, CreatedAt: stamp(w.now), UpdatedAt: stamp(w.now)}
	if in.Location != "" {
		iv.Location = &in.Location
	}
	if in.VideoURL != "" {
		iv.VideoURL = &in.VideoURL
	}
	for _, want := range in.InterviewerIDs { // in the order given
		for _, m := range members {
			if m.ID == want {
				iv.Interviewers = append(iv.Interviewers, m)
			}
		}
	}
	b.insertInterview(c, w, iv, start, end, title)
}

// insertInterview sends the interview with its UID and organizer, its
// interviewers, its invitation's mails to them and the candidate with
// their River jobs, its activity entry and the key's record, and commits;
// a clash answers 409.
func (b *baseline) insertInterview(c *gin.Context, w *write, iv interviewBody, start, end time.Time, title string) {
	ids := personIDs(iv.Interviewers)
	inv := invitationOf(w, iv, start, end, title)
	var batch pgx.Batch
	batch.Queue(`INSERT INTO interviews (id, job_id, candidate_id, starts_at, ends_at, timezone, location, video_url,
	status, sequence, created_by, created_at, updated_at, uid, organizer_name, organizer_email)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'scheduled', 0, $9, $10, $10, $11, $12, $13)`,
		iv.ID, w.jobID, w.candID, start, end, iv.Timezone, deref(iv.Location), deref(iv.VideoURL), w.cl.userID, w.now,
		inv.UID, inv.Organizer.Name, inv.Organizer.Email)
	batch.Queue(`INSERT INTO interview_interviewers (interview_id, user_id, position, starts_at, ends_at, active)
SELECT $1, x.id, x.n, $2, $3, true FROM unnest($4::bigint[]) WITH ORDINALITY AS x(id, n)`, iv.ID, start, end, ids)
	queueMails(&batch, w, inv, append(slices.Clone(iv.Interviewers), person{Name: w.cand.Name, Email: w.cand.Email}), new(0))
	changes := map[string]change{
		"start": {After: iv.Start}, "end": {After: iv.End}, "timezone": {After: iv.Timezone},
		"interviewer_ids": {After: ids}, "status": {After: iv.Status},
	}
	if iv.Location != nil {
		changes["location"] = change{After: *iv.Location}
	}
	if iv.VideoURL != nil {
		changes["video_url"] = change{After: *iv.VideoURL}
	}
	batch.Queue(interviewActivitySQL, w.teamID, w.jobID, w.cl.userID, w.cl.tokenID, w.cl.ip, pipeline.ActionInterviewScheduled,
		iv.ID, string(encode(changes)), w.now)
	w.booking = &booking{ids: ids, candID: w.candID, start: start, end: end}
	w.location = "/api/v1/jobs/" + strconv.FormatInt(w.jobID, 10) + "/candidates/" +
		strconv.FormatInt(w.candID, 10) + "/interviews/" + strconv.FormatInt(iv.ID, 10)
	b.commit(c, w, &batch, http.StatusCreated, encode(envelope[interviewBody]{Data: iv}))
}

// booking is the times a write books: of the interviewers ids and the
// candidate, from start to end, the interview except (0: none) aside.
type booking struct {
	ids            []int64
	candID, except int64
	start, end     time.Time
}

// booked answers a clash of bk: 409 with the busy times, read after the
// rollback.
func (b *baseline) booked(c *gin.Context, bk booking) {
	rows, err := b.pool.Query(context.WithoutCancel(c.Request.Context()), busySQL, bk.ids, bk.start, bk.end, bk.candID, bk.except)
	if err != nil {
		serverError(c, b, err)
		return
	}
	busy := []busyBody{}
	for rows.Next() {
		var bb busyBody
		var s, e time.Time
		if err := rows.Scan(&bb.UserID, &bb.CandidateID, &s, &e); err != nil {
			rows.Close()
			serverError(c, b, err)
			return
		}
		bb.Start, bb.End = stamp(s), stamp(e)
		busy = append(busy, bb)
	}
	rows.Close()
	fail(c, http.StatusConflict, "conflict", "An interviewer or the candidate is already booked at that time.",
		map[string][]busyBody{"busy": busy})
}

// collectPeople reads rows of id, name and email into *into.
func collectPeople(into *[]person) func(pgx.Rows) error {
	return func(rows pgx.Rows) error {
		var err error
		*into, err = pgx.CollectRows(rows, pgx.RowToStructByPos[person])
		return err
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// benchFrom is the From address of ours' mail, and so the organizer of
// its interviews.
var benchFrom = &mail.Address{Name: "Benchmark", Address: "bench@bench.example"}

// invitationOf is the invitation of a new interview, as ours writes it:
// its UID with 16 random hex digits, from the From address.
func invitationOf(w *write, iv interviewBody, start, end time.Time, title string) pipeline.Invitation {
	random := make([]byte, 8)
	_, _ = rand.Read(random)
	domain := benchFrom.Address[strings.LastIndexByte(benchFrom.Address, '@')+1:]
	return invitationFor(w, iv, storedInterview{
		uid:       "interview-" + strconv.FormatInt(iv.ID, 10) + "-" + hex.EncodeToString(random) + "@" + domain,
		organizer: pipeline.User{Name: benchFrom.Name, Email: benchFrom.Address},
		createdBy: named{ID: w.cl.userID, Name: w.cl.userName}, createdAt: w.now,
		candName: w.cand.Name, email: w.cand.Email, title: title,
	}, start, end)
}

// invitationText is an invitation's subject and plain text, as ours
// words it: a new one, a change, or a cancellation for the interviewers a
// change removed.
func invitationText(inv pipeline.Invitation) (subject, body string) {
	iv := inv.Interview
	what := "Interview with " + iv.CandidateName
	if iv.JobTitle != "" {
		what += " for " + iv.JobTitle
	}
	var sb strings.Builder
	switch {
	case inv.ForRemoved():
		subject = "No longer invited: "
		sb.WriteString("You are no longer an interviewer of this interview.\n\n")
	case iv.Sequence > 0 && !inv.First:
		subject = "Updated invitation: "
		sb.WriteString("This interview has changed.\n\n")
	default:
		subject = "Invitation: "
	}
	loc, err := time.LoadLocation(iv.Timezone)
	if err != nil {
		loc = time.UTC
	}
	const day, clock = "Monday 2 January 2006, ", "15:04"
	start, end := iv.Start.In(loc), iv.End.In(loc)
	when := start.Format(day+clock) + " – " + end.Format(day+clock)
	if start.Format(day) == end.Format(day) {
		when = start.Format(day+clock) + "–" + end.Format(clock)
	}
	sb.WriteString(what + ".\n\nWhen:  " + when + " (" + iv.Timezone + ")\n")
	if iv.Location != "" {
		sb.WriteString("Where: " + iv.Location + "\n")
	}
	if iv.VideoURL != "" {
		sb.WriteString("Video: " + iv.VideoURL + "\n")
	}
	names := make([]string, len(iv.Interviewers))
	for i, u := range iv.Interviewers {
		names[i] = u.Name
	}
	sb.WriteString("Interviewers: " + strings.Join(names, ", ") + "\n")
	return subject + what, sb.String()
}
