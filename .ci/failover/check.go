package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"
)

// stored is what the database holds after the run: the notes by content and
// the candidate.note_added entries by note id.
type stored struct {
	notes   map[string][]int64 // content → note ids
	noteIDs map[int64]bool
	entries map[int64]int // note id → activity entries naming it
}

// load reads the notes and their activity entries (the database is the
// run's own, so all of them are the run's).
func load(ctx context.Context, dsn string) (stored, error) {
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	s := stored{notes: map[string][]int64{}, noteIDs: map[int64]bool{}, entries: map[int64]int{}}
	rows, err := db.QueryContext(ctx, "SELECT id, content FROM notes")
	if err != nil {
		return s, fmt.Errorf("reading the notes: %w", err)
	}
	for rows.Next() {
		var id int64
		var content string
		if err := rows.Scan(&id, &content); err != nil {
			return s, err
		}
		s.notes[content] = append(s.notes[content], id)
		s.noteIDs[id] = true
	}
	if err := rows.Err(); err != nil {
		return s, err
	}
	rows, err = db.QueryContext(ctx, `SELECT (changes->>'note_id')::bigint FROM activity
		WHERE action = 'candidate.note_added'`)
	if err != nil {
		return s, fmt.Errorf("reading the activity: %w", err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return s, err
		}
		s.entries[id]++
	}
	return s, rows.Err()
}

// result is one check's outcome.
type result struct {
	ok   bool
	line string
}

// check compares the acknowledgments and the feed with the database.
func check(ctx context.Context, dsn string, rec *recorder, feed *feedReader) ([]result, error) {
	s, err := load(ctx, dsn)
	if err != nil {
		return nil, err
	}
	acks := rec.snapshot()
	var lost, doubled, wrongID []string
	acked := map[string]bool{}
	for _, a := range acks {
		c := noteContent(a.key)
		acked[c] = true
		switch ids := s.notes[c]; {
		case len(ids) == 0:
			lost = append(lost, a.key)
		case len(ids) > 1:
			doubled = append(doubled, fmt.Sprintf("%s %v", a.key, ids))
		case ids[0] != a.id:
			wrongID = append(wrongID, fmt.Sprintf("%s answered %d, stored %d", a.key, a.id, ids[0]))
		}
	}
	var stray []string
	for c := range s.notes {
		if !acked[c] {
			stray = append(stray, c)
		}
	}
	var entryGaps, entryDups []string
	for id := range s.noteIDs {
		if n := s.entries[id]; n != 1 {
			entryGaps = append(entryGaps, fmt.Sprintf("note %d: %d entries", id, n))
		}
	}
	for id, n := range s.entries {
		if !s.noteIDs[id] {
			entryDups = append(entryDups, fmt.Sprintf("entry for missing note %d (×%d)", id, n))
		}
	}
	return append([]result{
		verdict(len(acks) > 0, fmt.Sprintf("%d notes acknowledged", len(acks)), nil),
		verdict(len(lost) == 0, "no acknowledged note lost", lost),
		verdict(len(doubled) == 0, "no acknowledged note doubled", doubled),
		verdict(len(wrongID) == 0, "each acknowledged id is the stored note's", wrongID),
		verdict(len(stray) == 0, "no note stored that was not acknowledged", stray),
		verdict(len(entryGaps)+len(entryDups) == 0, "one activity entry per stored note",
			append(entryGaps, entryDups...)),
	}, feedChecks(s, feed)...), nil
}

// feedChecks: the reader saw each stored note's entry exactly once, no entry
// twice and none of a note that is not stored.
func feedChecks(s stored, feed *feedReader) []result {
	feed.mu.Lock()
	defer feed.mu.Unlock()
	var gaps, dups, phantoms []string
	for id := range s.noteIDs {
		switch n := feed.notes[id]; {
		case n == 0:
			gaps = append(gaps, fmt.Sprint(id))
		case n > 1:
			dups = append(dups, fmt.Sprintf("note %d ×%d", id, n))
		}
	}
	for id, n := range feed.entries {
		if n > 1 {
			dups = append(dups, fmt.Sprintf("entry %d ×%d", id, n))
		}
	}
	for id := range feed.notes {
		if !s.noteIDs[id] {
			phantoms = append(phantoms, fmt.Sprint(id))
		}
	}
	return []result{
		verdict(len(gaps) == 0, fmt.Sprintf("the feed showed every stored note (%d notes, %d pages)",
			len(s.noteIDs), feed.pages), gaps),
		verdict(len(dups) == 0, "the feed showed no entry twice", dups),
		verdict(len(phantoms) == 0, "the feed showed no note that is not stored", phantoms),
	}
}

// verdict words a check, with the first few offenders when it fails.
func verdict(ok bool, what string, offenders []string) result {
	if ok {
		return result{ok: true, line: what}
	}
	if len(offenders) == 0 {
		return result{line: what}
	}
	shown := offenders[:min(len(offenders), 5)]
	return result{line: fmt.Sprintf("%s: %d found, e.g. %s", what, len(offenders), strings.Join(shown, "; "))}
}
