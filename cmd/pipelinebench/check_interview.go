package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
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
