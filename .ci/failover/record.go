package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// ack is one acknowledged note: its key, the id the API answered with and
// when the answer arrived.
type ack struct {
	key    string
	id     int64
	at     time.Time
	replay bool
}

// recorder collects, from every writer, the acknowledgments, the keys given
// up and the responses seen, counted by kind.
type recorder struct {
	start     time.Time
	mu        sync.Mutex
	acks      []ack
	abandoned []string
	writes    map[string]*seen
	reads     map[string]*seen
}

func newRecorder(start time.Time) *recorder {
	return &recorder{start: start, writes: map[string]*seen{}, reads: map[string]*seen{}}
}

func (r *recorder) acked(a ack) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.acks = append(r.acks, a)
}

func (r *recorder) abandon(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.abandoned = append(r.abandoned, key)
}

// seen counts the responses of one kind, with the slowest and when the
// first and the last arrived.
type seen struct {
	n           int
	slowest     time.Duration
	first, last time.Time
}

// sawWrite and sawRead count one response (or failure to get one) of a
// write and of a feed read, and how long it took.
func (r *recorder) sawWrite(kind string, took time.Duration) { r.count(r.writes, kind, took) }
func (r *recorder) sawRead(kind string, took time.Duration)  { r.count(r.reads, kind, took) }

func (r *recorder) count(m map[string]*seen, kind string, took time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := m[kind]
	now := time.Now()
	if s == nil {
		s = &seen{first: now}
		m[kind] = s
	}
	s.n++
	s.slowest = max(s.slowest, took)
	s.last = now
}

// ackedSince reports whether a write was acknowledged after t.
func (r *recorder) ackedSince(t time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.acks) - 1; i >= 0; i-- {
		if r.acks[i].at.After(t) {
			return true
		}
	}
	return false
}

// ackedIDs are the note ids acknowledged so far.
func (r *recorder) ackedIDs() map[int64]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := make(map[int64]bool, len(r.acks))
	for _, a := range r.acks {
		ids[a.id] = true
	}
	return ids
}

// snapshot copies the acknowledgments, sorted by time.
func (r *recorder) snapshot() []ack {
	r.mu.Lock()
	defer r.mu.Unlock()
	acks := slices.Clone(r.acks)
	slices.SortFunc(acks, func(a, b ack) int { return a.at.Compare(b.at) })
	return acks
}

// pause is the longest time without an acknowledged write.
type pause struct {
	length   time.Duration
	from, to time.Time
}

// longestPause finds the longest gap between consecutive acknowledgments.
func longestPause(acks []ack) pause {
	var p pause
	for i := 1; i < len(acks); i++ {
		if d := acks[i].at.Sub(acks[i-1].at); d > p.length {
			p = pause{length: d, from: acks[i-1].at, to: acks[i].at}
		}
	}
	return p
}

// tally renders counted kinds, most frequent first, each with its slowest
// response and when the first and the last arrived, relative to the kill.
func tally(r *recorder, m map[string]*seen, kill time.Time) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	kinds := slices.Collect(maps.Keys(m))
	slices.SortFunc(kinds, func(a, b string) int {
		if m[a].n != m[b].n {
			return m[b].n - m[a].n
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, k := range kinds {
		s := m[k]
		parts = append(parts, fmt.Sprintf("%s ×%d (slowest %s, from %+.1f to %+.1f s)", k, s.n,
			s.slowest.Round(time.Millisecond), s.first.Sub(kill).Seconds(), s.last.Sub(kill).Seconds()))
	}
	if len(parts) == 0 {
		return []string{"none"}
	}
	return parts
}
