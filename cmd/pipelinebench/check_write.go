package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// checkUser is who makes the checked writes: a member, when there is one,
// so that the visibility rule is met through an assignment.
func (k *checker) checkUser() *benchUser {
	for _, u := range k.w.Users {
		if !u.owner() {
			return u
		}
	}
	return k.w.Users[0]
}

// checkMoves compares stage moves. Both servers move the same reserved
// candidate from the same stage to the same other one (ours moves it back
// in between), so their answers must be identical; then the replays, the
// refusals, the activity entries and the stored responses are compared.
func (k *checker) checkMoves() error {
	j0, tok := k.w.Jobs[0], k.checkUser().Token
	t := target{job: j0, cand: checkMoveCandidate}
	from := j0.Pos[checkMoveCandidate].Load()
	to := int32(stageScreening)
	if from == stageScreening {
		to = stageInterview
	}
	move := func(pos int32, key string, keyed bool) request {
		body := fmt.Sprintf(`{"stage":%d}`, j0.Stages[pos-1])
		return request{method: http.MethodPost, path: candidatePath(t) + "/stage", token: tok, body: []byte(body), key: key, keyed: keyed}
	}
	k1, back, k3 := k.keys.next(), k.keys.next(), k.keys.next()
	ours, err := k.ours.do(k.ctx, move(to, k1, true))
	if err == nil && ours.status == http.StatusOK {
		_, err = k.ours.do(k.ctx, move(from, back, true))
	}
	if err != nil {
		return fmt.Errorf("check move: %w", err)
	}
	base, err := k.base.do(k.ctx, move(to, k3, true))
	if err != nil {
		return fmt.Errorf("check move: baseline: %w", err)
	}
	k.compared++
	if ours.status != http.StatusOK || base.status != http.StatusOK || !bytes.Equal(ours.body, base.body) {
		return mismatch("stage move", move(to, "", true), "want the same 200", ours, base)
	}
	if err := k.replays("stage move", move(to, k1, true), move(to, k3, true), ours.body, base.body); err != nil {
		return err
	}
	probes := []probe{
		{"move: key reused for another body", move(from, k1, true), http.StatusUnprocessableEntity},
		{"move: to the stage it is in", move(to, "", false), http.StatusOK},
		{"move: empty Idempotency-Key", move(from, "", true), http.StatusUnprocessableEntity},
		{"move: stage of another job", withBody(move(to, "", false), fmt.Sprintf(`{"stage":%d}`, otherJobStage(k.w))), http.StatusUnprocessableEntity},
		{"move: no stage", withBody(move(to, "", false), `{}`), http.StatusUnprocessableEntity},
		{"move: wrong type, unknown field", withBody(move(to, "", false), `{"stage":"2","x":1}`), http.StatusUnprocessableEntity},
		{"move: unknown candidate", withPath(move(to, "", false), candidatesPath(j0)+"/999999999/stage"), http.StatusNotFound},
	}
	// The baseline's reused key is k3, not k1: rewrite that probe for it.
	if err := k.sameWith(probes[0], move(from, k3, true)); err != nil {
		return err
	}
	for _, p := range probes[1:] {
		if err := k.same(p); err != nil {
			return err
		}
	}
	return k.compareRecords(j0.Cands[checkMoveCandidate], k1, k3, 3, [2]int{0, 2})
}

// pair sends a request to ours and its counterpart to the baseline, and
// counts the comparison.
func (k *checker) pair(oursReq, baseReq request) (ours, base response, err error) {
	if ours, err = k.ours.do(k.ctx, oursReq); err != nil {
		return ours, base, err
	}
	if base, err = k.base.do(k.ctx, baseReq); err != nil {
		return ours, base, err
	}
	k.compared++
	return ours, base, nil
}

// sameWith is same with a request of its own for the baseline.
func (k *checker) sameWith(p probe, baseReq request) error {
	ours, base, err := k.pair(p.req, baseReq)
	if err != nil {
		return err
	}
	if ours.status != p.status || base.status != p.status || !bytes.Equal(ours.body, base.body) {
		return mismatch(p.name, p.req, fmt.Sprintf("want the same %d", p.status), ours, base)
	}
	return nil
}

// replays sends each server's keyed request again and requires the first
// answer back, marked as a replay.
func (k *checker) replays(name string, oursReq, baseReq request, oursBody, baseBody []byte) error {
	ours, base, err := k.pair(oursReq, baseReq)
	if err != nil {
		return err
	}
	ok := bytes.Equal(ours.body, oursBody) && bytes.Equal(base.body, baseBody) && ours.status == base.status &&
		ours.header.Get("Idempotent-Replay") == "true" && base.header.Get("Idempotent-Replay") == "true"
	if !ok {
		return mismatch(name+": replay", oursReq, "want each first answer back with Idempotent-Replay: true", ours, base)
	}
	return nil
}

// checkNotes compares notes, with and without a key: equal once the note's
// id and time, which differ by nature, are set aside.
func (k *checker) checkNotes() error {
	tok := k.checkUser().Token
	t := target{job: k.w.Jobs[0], cand: checkNoteCandidate}
	plain := noteRequest(tok, t, "Checked <b>note</b> & more", "")
	k4, k5 := k.keys.next(), k.keys.next()
	var firsts [2][]byte
	for i, r := range []struct{ ours, base request }{
		{plain, plain},
		{noteRequest(tok, t, "Checked keyed note", k4), noteRequest(tok, t, "Checked keyed note", k5)},
	} {
		ours, base, err := k.pair(r.ours, r.base)
		if err != nil {
			return err
		}
		if ours.status != http.StatusCreated || base.status != http.StatusCreated || !sameNote(ours.body, base.body) {
			return mismatch("note", r.ours, "want the same 201 but for the note's id and time", ours, base)
		}
		if i == 1 {
			if err := k.replays("note", r.ours, r.base, ours.body, base.body); err != nil {
				return err
			}
		}
		firsts[i] = ours.body
	}
	long := `{"content":"` + strings.Repeat("é", pipeline.MaxNoteLength+1) + `"}`
	huge := `{"content":"` + strings.Repeat("a", 1<<20) + `"}`
	for _, p := range []probe{
		{"note: blank", withBody(plain, `{"content":"   "}`), http.StatusUnprocessableEntity},
		{"note: wrong type, unknown field", withBody(plain, `{"content":5,"x":true}`), http.StatusUnprocessableEntity},
		{"note: not an object", withBody(plain, `[]`), http.StatusUnprocessableEntity},
		{"note: too long", withBody(plain, long), http.StatusUnprocessableEntity},
		{"note: body over 1 MiB", withBody(plain, huge), http.StatusRequestEntityTooLarge},
	} {
		if err := k.same(p); err != nil {
			return err
		}
	}
	return k.compareRecords(k.w.Jobs[0].Cands[checkNoteCandidate], k4, k5, 4, [2]int{0, 1}, [2]int{2, 3})
}

// sameNote compares two note bodies but for data.id and data.created_at,
// which must be there.
func sameNote(a, b []byte) bool {
	norm := func(raw []byte) ([]byte, bool) {
		var v struct {
			Data map[string]any `json:"data"`
		}
		if json.Unmarshal(raw, &v) != nil || v.Data["id"] == nil || v.Data["created_at"] == nil {
			return nil, false
		}
		delete(v.Data, "id")
		delete(v.Data, "created_at")
		out, err := json.Marshal(v)
		return out, err == nil
	}
	na, oka := norm(a)
	nb, okb := norm(b)
	return oka && okb && bytes.Equal(na, nb)
}

func withBody(r request, body string) request { r.body = []byte(body); return r }
func withPath(r request, path string) request { r.path = path; return r }

// otherJobStage is a stage id of no stage of the first job.
func otherJobStage(w *world) int64 {
	if len(w.Jobs) > 1 {
		return w.Jobs[1].Stages[0]
	}
	return 999999999
}
