package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// intakeRequest adds a candidate to a job, with an Idempotency-Key when key
// is not "".
func intakeRequest(token string, j *benchJob, body, key string) request {
	return request{method: http.MethodPost, path: candidatesPath(j), token: token, body: []byte(body), key: key, keyed: key != ""}
}

// checkIntakes compares intakes. Ours adds a candidate, which is then
// deleted, so that the baseline can add the same one with the same body:
// the answers must be the same but for the id, the replays too, and the
// activity entries and stored records alike; then the refusals.
func (k *checker) checkIntakes() error {
	tok, j0 := k.checkUser().Token, k.w.Jobs[0]
	email := "checked-" + randomHex(4) + "@Bench.example"
	body := fmt.Sprintf(`{"name":"  Checked Intake ","email":%q,"resume_url":"https://files.example.test/cv.pdf"}`, email)
	k1, k2 := k.keys.next(), k.keys.next()
	ours, err := k.ours.do(k.ctx, intakeRequest(tok, j0, body, k1))
	if err != nil {
		return fmt.Errorf("check intake: %w", err)
	}
	oursID, ok := createdID(ours.body)
	if ours.status != http.StatusCreated || !ok {
		return mismatch("intake", intakeRequest(tok, j0, body, k1), "want 201 from ours", ours, response{})
	}
	if _, err := k.db.Exec(k.ctx, `DELETE FROM candidates WHERE id = $1`, oursID); err != nil {
		return err
	}
	base, err := k.base.do(k.ctx, intakeRequest(tok, j0, body, k2))
	if err != nil {
		return fmt.Errorf("check intake: baseline: %w", err)
	}
	k.compared++
	baseID, _ := createdID(base.body)
	if base.status != http.StatusCreated || !sameBut(ours.body, base.body, "id") ||
		ours.header.Get("Location") != candidatesPath(j0)+"/"+fmt.Sprint(oursID) ||
		base.header.Get("Location") != candidatesPath(j0)+"/"+fmt.Sprint(baseID) {
		return mismatch("intake", intakeRequest(tok, j0, body, k2), "want the same 201 and Location but for the id", ours, base)
	}
	if err := k.replays("intake", intakeRequest(tok, j0, body, k1), intakeRequest(tok, j0, body, k2), ours.body, base.body); err != nil {
		return err
	}
	plain := intakeRequest(tok, j0, body, "")
	taken := fmt.Sprintf(`{"name":"Again","email":%q}`, email)
	for _, p := range []probe{
		{"intake: the email taken", plain, http.StatusUnprocessableEntity},
		{"intake: the email taken in another case", withBody(plain, taken), http.StatusUnprocessableEntity},
		{"intake: a bad email and no name", withBody(plain, `{"email":"a b@c"}`), http.StatusUnprocessableEntity},
		{"intake: stage of another job", withBody(plain, fmt.Sprintf(`{"name":"X","email":"x@y","stage":%d}`, otherJobStage(k.w))), http.StatusUnprocessableEntity},
		{"intake: wrong type, unknown field", withBody(plain, `{"name":5,"email":"x@y","status":"hired"}`), http.StatusUnprocessableEntity},
		{"intake: unknown job", withPath(plain, "/api/v1/jobs/999999999/candidates"), http.StatusNotFound},
		{"intake: read-only token", request{method: http.MethodPost, path: candidatesPath(j0), token: k.w.Reader, body: []byte(body)}, http.StatusForbidden},
	} {
		if err := k.same(p); err != nil {
			return err
		}
	}
	return k.compareIntakeRecords(oursID, baseID, k1, k2)
}

// compareIntakeRecords compares the activity entries of the two intakes,
// but for their subjects, and the records stored under their keys.
func (k *checker) compareIntakeRecords(oursID, baseID int64, oursKey, baseKey string) error {
	var acts [2]activityRow
	for i, id := range []int64{oursID, baseID} {
		a := &acts[i]
		err := k.db.QueryRow(k.ctx, `SELECT team_id, user_id, COALESCE(token_id, 0), ip, action, subject_type, changes::text
FROM activity WHERE subject_type = 'candidate' AND subject_id = $1`, id).Scan(
			&a.TeamID, &a.UserID, &a.TokenID, &a.IP, &a.Action, &a.SubjectType, &a.Changes)
		if err != nil {
			return fmt.Errorf("correctness check: the entry of candidate %d: %w", id, err)
		}
	}
	if acts[0] != acts[1] || acts[0].Action != pipeline.ActionCandidateCreated {
		return fmt.Errorf("correctness check: intake entries differ:\nours:     %+v\nbaseline: %+v", acts[0], acts[1])
	}
	return k.compareStored(oursKey, baseKey)
}

// createdID is data.id of a created record's body.
func createdID(raw []byte) (int64, bool) {
	var v struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	return v.Data.ID, json.Unmarshal(raw, &v) == nil && v.Data.ID > 0
}

// sameBut compares two bodies but for the fields of data named, which
// must be there.
func sameBut(a, b []byte, fields ...string) bool {
	norm := func(raw []byte) ([]byte, bool) {
		var v struct {
			Data map[string]any `json:"data"`
		}
		if json.Unmarshal(raw, &v) != nil {
			return nil, false
		}
		for _, f := range fields {
			if v.Data[f] == nil {
				return nil, false
			}
			delete(v.Data, f)
		}
		out, err := json.Marshal(v)
		return out, err == nil
	}
	na, oka := norm(a)
	nb, okb := norm(b)
	return oka && okb && bytes.Equal(na, nb)
}
