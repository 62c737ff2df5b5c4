package main

import (
	"fmt"
	"strings"
	"time"
)

// report prints the figures and the checks, and tells whether all passed.
func report(o options, rec *recorder, sw switched, switchErr error, checks []result) bool {
	acks := rec.snapshot()
	since := func(t time.Time) string { return fmt.Sprintf("%+.2f s", t.Sub(sw.killed).Seconds()) }
	fmt.Println("failover: figures")
	if !sw.killed.IsZero() {
		fmt.Printf("  killed node%d (the leader) at %s into the load\n", sw.leader, secs(sw.killed.Sub(rec.start)))
	}
	if !sw.promoted.IsZero() {
		fmt.Printf("  node%d promoted %s after the kill (its Patroni answering /primary)\n",
			1-sw.leader, secs(sw.promoted.Sub(sw.killed)))
	}
	replays := 0
	for _, a := range acks {
		if a.replay {
			replays++
		}
	}
	fmt.Printf("  %d writers, %d notes acknowledged (%d of them replays of a key's earlier commit), %d keys abandoned\n",
		o.writers, len(acks), replays, len(rec.abandoned))
	resumed, resumedOK := resumedAfter(acks, sw.promoted)
	if resumedOK {
		fmt.Printf("  first write acknowledged after the promotion: %s after it\n", secs(resumed))
	}
	if p := longestPause(acks); p.length > 0 {
		fmt.Printf("  longest pause in acknowledged writes: %s (from %s to %s relative to the kill)\n",
			secs(p.length), since(p.from), since(p.to))
	}
	ref := sw.killed
	if ref.IsZero() {
		ref = rec.start
	}
	fmt.Println("  write responses (times relative to the kill):")
	for _, line := range tally(rec, rec.writes, ref) {
		fmt.Println("    " + line)
	}
	fmt.Println("  feed responses:")
	for _, line := range tally(rec, rec.reads, ref) {
		fmt.Println("    " + line)
	}

	checks = append([]result{
		verdict(switchErr == nil, "the standby was promoted and writes resumed", errs(switchErr)),
		verdict(resumedOK && resumed <= o.resume,
			fmt.Sprintf("writes resumed within %s of the promotion", secs(o.resume)), nil),
		verdict(len(rec.abandoned) == 0, "every note begun was acknowledged", rec.abandoned),
		verdict(len(unexpected(rec)) == 0,
			"clients saw only acknowledgments, 503 unavailable with Retry-After and 409 conflict",
			unexpected(rec)),
	}, checks...)
	fmt.Println("failover: checks")
	ok := true
	for _, c := range checks {
		mark := "ok  "
		if !c.ok {
			mark, ok = "FAIL", false
		}
		fmt.Printf("  %s %s\n", mark, c.line)
	}
	return ok
}

// unexpected lists the kinds of write and feed responses that a failover
// should not cause: anything but an acknowledgment (or a feed page), a 503
// unavailable with Retry-After, or a 409 while a key's first request runs.
func unexpected(rec *recorder) []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []string
	for _, m := range []map[string]*seen{rec.writes, rec.reads} {
		for kind, s := range m {
			switch {
			case kind == "200", kind == "201", kind == "200 (replay)", kind == "201 (replay)",
				strings.HasPrefix(kind, "503 unavailable (Retry-After: "), strings.HasPrefix(kind, "409 conflict"):
			default:
				out = append(out, fmt.Sprintf("%s ×%d", kind, s.n))
			}
		}
	}
	return out
}

func errs(err error) []string {
	if err == nil {
		return nil
	}
	return []string{err.Error()}
}

// secs renders a duration in seconds with one decimal.
func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

// resumedAfter is the time from the promotion to the first write
// acknowledged after it: what the replicas add to the database's switch.
func resumedAfter(acks []ack, promoted time.Time) (time.Duration, bool) {
	if promoted.IsZero() {
		return 0, false
	}
	for _, a := range acks {
		if !a.at.Before(promoted) {
			return a.at.Sub(promoted), true
		}
	}
	return 0, false
}
