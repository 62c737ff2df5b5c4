package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
)

// messageRequest sends a message to a candidate, with an Idempotency-Key
// when key is not "".
func messageRequest(token string, t target, subject, key string) request {
	body := fmt.Sprintf(`{"subject":%q,"body":"Hello from the benchmark."}`, subject)
	return request{method: http.MethodPost, path: candidatePath(t) + "/messages", token: token, body: []byte(body), key: key, keyed: key != ""}
}

// checkMessages compares keyed sends: the same 202 but for the message's
// id and times, the replays too; then the refusals.
func (k *checker) checkMessages() error {
	tok := k.checkUser().Token
	t := target{job: k.w.Jobs[0], cand: checkNoteCandidate}
	k1, k2 := k.keys.next(), k.keys.next()
	oursReq, baseReq := messageRequest(tok, t, "  Checked message ", k1), messageRequest(tok, t, "  Checked message ", k2)
	ours, base, err := k.pair(oursReq, baseReq)
	if err != nil {
		return err
	}
	if ours.status != http.StatusAccepted || base.status != http.StatusAccepted || !sameMessage(ours.body, base.body) {
		return mismatch("message", oursReq, "want the same 202 but for the message's id and times", ours, base)
	}
	if err := k.replays("message", oursReq, baseReq, ours.body, base.body); err != nil {
		return err
	}
	plain := messageRequest(tok, t, "Plain", "")
	for _, p := range []probe{
		{"message: a line break in the subject", withBody(plain, `{"subject":"a\r\nBcc: x@y","body":"x"}`), http.StatusUnprocessableEntity},
		{"message: blank, unknown field", withBody(plain, `{"subject":" ","body":"x","to":"x@y"}`), http.StatusUnprocessableEntity},
		{"message: read-only token", request{method: http.MethodPost, path: candidatePath(t) + "/messages", token: k.w.Reader, body: plain.body}, http.StatusForbidden},
	} {
		if err := k.same(p); err != nil {
			return err
		}
	}
	return nil
}

// sameMessage compares two message bodies but for data.id, data.send_at
// and data.created_at, which must be there.
func sameMessage(a, b []byte) bool {
	norm := func(raw []byte) ([]byte, bool) {
		var v struct {
			Data map[string]any `json:"data"`
		}
		if json.Unmarshal(raw, &v) != nil || v.Data["id"] == nil || v.Data["created_at"] == nil || v.Data["send_at"] == nil {
			return nil, false
		}
		delete(v.Data, "id")
		delete(v.Data, "created_at")
		delete(v.Data, "send_at")
		out, err := json.Marshal(v)
		return out, err == nil
	}
	na, oka := norm(a)
	nb, okb := norm(b)
	return oka && okb && bytes.Equal(na, nb)
}
