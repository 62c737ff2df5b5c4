package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// checkSchedules compares schedules. Each server schedules the same
// reserved candidate at a slot of its own, far from the load's: the
// bodies must agree but for the id and the times. Then the same clashing
// request to both must answer the same 409 with the same busy times, and
// the refusals the same errors.
func (k *checker) checkSchedules() error {
	owner := k.w.Users[0]
	t := target{job: k.w.Jobs[0], cand: checkNoteCandidate}
	at := calendarBase.Add(300 * 24 * time.Hour)
	ours, err := k.ours.do(k.ctx, scheduleRequest(owner.Token, t, owner.ID, at, ""))
	if err != nil {
		return fmt.Errorf("check schedule: %w", err)
	}
	theirs := scheduleRequest(owner.Token, t, owner.ID, at.Add(slotLength), "")
	base, err := k.base.do(k.ctx, theirs)
	if err != nil {
		return fmt.Errorf("check schedule: baseline: %w", err)
	}
	k.compared++
	if ours.status != http.StatusCreated || base.status != http.StatusCreated ||
		!bytes.Equal(withoutFields(ours.body, "id", "start", "end", "created_at", "updated_at"),
			withoutFields(base.body, "id", "start", "end", "created_at", "updated_at")) {
		return mismatch("schedule", theirs, "want the same 201 but for the id and times", ours, base)
	}
	clash := scheduleRequest(owner.Token, t, owner.ID, at.Add(5*time.Minute), "")
	reader := scheduleRequest(k.w.Reader, t, owner.ID, at.Add(time.Hour), "")
	for _, p := range []probe{
		{name: "schedule: a clash", req: clash, status: http.StatusConflict},
		{name: "schedule: in the past", req: scheduleRequest(owner.Token, t, owner.ID, time.Now().Add(-time.Hour).Truncate(time.Second), ""), status: http.StatusUnprocessableEntity},
		{name: "schedule: a bad body", req: withBody(clash, `{"start":"soon","interviewer_ids":[0],"x":1}`), status: http.StatusUnprocessableEntity},
		{name: "schedule: a read-only token", req: reader, status: http.StatusForbidden},
		{name: "schedule: unknown candidate", req: withPath(clash, candidatesPath(t.job)+"/999999999/interviews"), status: http.StatusNotFound},
	} {
		if err := k.same(p); err != nil {
			return err
		}
	}
	return k.checkReschedules(owner, t, at, ours.body, base.body)
}

// checkReschedules compares reschedules of the interviews each server
// scheduled (oursBody, baseBody): each moves its own two hours on; the
// bodies must agree but for the id and the times, and so must the
// activity entries and the invitation mails each wrote. Then the same
// requests to both must answer alike: a patch that changes nothing, a
// clash, bad input, a read-only token, an unknown interview, and a
// cancelled one.
func (k *checker) checkReschedules(owner *benchUser, t target, at time.Time, oursBody, baseBody []byte) error {
	var a, b struct{ Data struct{ ID int64 } }
	if json.Unmarshal(oursBody, &a) != nil || json.Unmarshal(baseBody, &b) != nil {
		return fmt.Errorf("check reschedule: the schedules' bodies have no id")
	}
	mine := pooled{t: t, id: a.Data.ID}
	moved := at.Add(2 * time.Hour)
	ours, err := k.ours.do(k.ctx, rescheduleRequest(owner.Token, mine, moved, ""))
	if err != nil {
		return fmt.Errorf("check reschedule: %w", err)
	}
	theirs := rescheduleRequest(owner.Token, pooled{t: t, id: b.Data.ID}, moved.Add(slotLength), "")
	base, err := k.base.do(k.ctx, theirs)
	if err != nil {
		return fmt.Errorf("check reschedule: baseline: %w", err)
	}
	k.compared++
	if ours.status != http.StatusOK || base.status != http.StatusOK ||
		!bytes.Equal(withoutFields(ours.body, "id", "start", "end", "created_at", "updated_at"),
			withoutFields(base.body, "id", "start", "end", "created_at", "updated_at")) {
		return mismatch("reschedule", theirs, "want the same 200 but for the id and times", ours, base)
	}
	if err := k.compareInterviewRecords(a.Data.ID, b.Data.ID); err != nil {
		return err
	}
	clash := rescheduleRequest(owner.Token, mine, moved.Add(slotLength+5*time.Minute), "")
	unknown := clash
	unknown.path = interviewsPath(t) + "/999999999"
	for _, p := range []probe{
		{name: "reschedule: no change", req: rescheduleRequest(owner.Token, mine, moved, ""), status: http.StatusOK},
		{name: "reschedule: a clash", req: clash, status: http.StatusConflict},
		{name: "reschedule: in the past", req: rescheduleRequest(owner.Token, mine, time.Now().Add(-time.Hour).Truncate(time.Second), ""), status: http.StatusUnprocessableEntity},
		{name: "reschedule: a bad body", req: withBody(clash, `{"start":"soon","interviewer_ids":[0],"x":1}`), status: http.StatusUnprocessableEntity},
		{name: "reschedule: nothing sent", req: withBody(clash, `{}`), status: http.StatusUnprocessableEntity},
		{name: "reschedule: a start of the wrong type", req: withBody(clash, `{"start":5,"end":"2020-01-01T00:00:00Z"}`), status: http.StatusUnprocessableEntity},
		{name: "reschedule: a location cleared beside a bad field", req: withBody(clash, `{"location":null,"x":1}`), status: http.StatusUnprocessableEntity},
		{name: "reschedule: a read-only token", req: rescheduleRequest(k.w.Reader, mine, moved, ""), status: http.StatusForbidden},
		{name: "reschedule: unknown interview", req: unknown, status: http.StatusNotFound},
	} {
		if err := k.same(p); err != nil {
			return err
		}
	}
	cancel := request{method: http.MethodPost, path: interviewsPath(t) + "/" + strconv.FormatInt(mine.id, 10) + "/cancel", token: owner.Token, body: []byte(`{}`)}
	if r, err := k.ours.do(k.ctx, cancel); err != nil || r.status != http.StatusOK {
		return fmt.Errorf("check reschedule: cancelling an interview through ours: %d %s %v", r.status, clip(r.body, 300), err)
	}
	return k.same(probe{name: "reschedule: a cancelled interview", req: rescheduleRequest(owner.Token, mine, moved, ""), status: http.StatusForbidden})
}

// compareInterviewRecords compares what a schedule and a reschedule left
// of two interviews, ours and the baseline's: their activity entries but
// for the times in them, and their invitation mails, each to the same
// people with the same subject, method, sequence and place.
func (k *checker) compareInterviewRecords(ours, base int64) error {
	read := func(id int64) (string, error) {
		var out string
		err := k.db.QueryRow(k.ctx, `SELECT concat_ws(E'\n',
	(SELECT string_agg(concat_ws(' ', team_id, job_id, user_id, COALESCE(token_id, 0), ip, action,
		(SELECT string_agg(key, ',' ORDER BY key) FROM jsonb_object_keys(changes::jsonb) AS key)), E'\n' ORDER BY id)
		FROM activity WHERE subject_type = 'interview' AND subject_id = $1),
	(SELECT string_agg(concat_ws(' ', sequence, position, method, recipient, recipient_name, subject), E'\n' ORDER BY id)
		FROM invitation_mails WHERE interview_id = $1))`, id).Scan(&out)
		return out, err
	}
	o, err := read(ours)
	if err != nil {
		return err
	}
	b, err := read(base)
	if err != nil {
		return err
	}
	if o != b || strings.Count(o, "\n") < 5 {
		return fmt.Errorf("correctness check: the interviews' activity and mails differ:\nours:\n%s\nbaseline:\n%s", o, b)
	}
	return nil
}

// withoutFields is a {data: …} body with the named fields of its data
// left out, re-encoded.
func withoutFields(body []byte, names ...string) []byte {
	var v struct{ Data map[string]any }
	if json.Unmarshal(body, &v) != nil {
		return body
	}
	for _, n := range names {
		delete(v.Data, n)
	}
	out, _ := json.Marshal(v.Data)
	return out
}
