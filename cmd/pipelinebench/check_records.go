package main

import (
	"fmt"
	"regexp"
)

// activityRow is an activity entry as the check compares it: everything but
// its id and time.
type activityRow struct {
	TeamID, UserID int64
	TokenID        int64 // 0 for none
	IP, Action     string
	SubjectType    string
	SubjectID      int64
	Changes        string
}

// noteChanges is the shape of a note's activity changes.
var noteChanges = regexp.MustCompile(`^\{"note_id":[1-9][0-9]*\}$`)

// compareRecords reads what the checked writes left in the database and
// compares ours with the baseline's: the candidate's activity entries (want
// of them; each pair is ours and the baseline's of the same request) and
// the responses stored under each server's key.
func (k *checker) compareRecords(candidate int64, oursKey, baseKey string, want int, pairs ...[2]int) error {
	rows, err := k.db.Query(k.ctx, `SELECT team_id, user_id, COALESCE(token_id, 0), ip, action, subject_type, subject_id, changes::text
FROM activity WHERE subject_type = 'candidate' AND subject_id = $1 ORDER BY id`, candidate)
	if err != nil {
		return err
	}
	var acts []activityRow
	for rows.Next() {
		var a activityRow
		if err := rows.Scan(&a.TeamID, &a.UserID, &a.TokenID, &a.IP, &a.Action, &a.SubjectType, &a.SubjectID, &a.Changes); err != nil {
			return err
		}
		acts = append(acts, a)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(acts) != want {
		return fmt.Errorf("correctness check: candidate %d has %d activity entries, want %d: %+v", candidate, len(acts), want, acts)
	}
	for _, p := range pairs {
		o, b := acts[p[0]], acts[p[1]]
		if noteChanges.MatchString(o.Changes) && noteChanges.MatchString(b.Changes) {
			o.Changes, b.Changes = "note", "note"
		}
		if o != b || o.TokenID == 0 {
			return fmt.Errorf("correctness check: activity entries differ:\nours:     %+v\nbaseline: %+v", acts[p[0]], acts[p[1]])
		}
	}
	return k.compareStored(oursKey, baseKey)
}

// compareStored compares the records stored under ours' and the
// baseline's Idempotency-Key of the same request: the same user and request
// fingerprint, and a result each. What the result holds is each server's
// own (ours keeps the domain value, the baseline the body); the replays,
// checked before, show that both give back the first answer.
func (k *checker) compareStored(oursKey, baseKey string) error {
	type stored struct {
		UserID  int64
		Request string
		Result  []byte
	}
	var recs [2]stored
	for i, key := range []string{oursKey, baseKey} {
		r := &recs[i]
		err := k.db.QueryRow(k.ctx, `SELECT user_id, request, result FROM idempotency_keys
WHERE team_id = $1 AND key = $2`, k.w.TeamID, key).Scan(&r.UserID, &r.Request, &r.Result)
		if err != nil {
			return fmt.Errorf("correctness check: the record stored under %q: %w", key, err)
		}
	}
	o, b := recs[0], recs[1]
	if o.UserID != b.UserID || o.Request != b.Request || len(o.Result) == 0 || len(b.Result) == 0 {
		return fmt.Errorf("correctness check: stored records differ:\nours:     %d %s %s\nbaseline: %d %s %s",
			o.UserID, o.Request, o.Result, b.UserID, b.Request, b.Result)
	}
	return nil
}
