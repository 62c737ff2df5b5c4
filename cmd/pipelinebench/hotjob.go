package main

import (
	"fmt"
	"io"
	"net/http"
	"slices"
)

// spreadMove is the hot-job case's yardstick: the same moves as its move
// scenario, the same number of candidates and users, spread over many jobs.
// It runs whenever move does.
const spreadMove = "move-64-jobs"

// spreadJobs is how many jobs spreadMove spreads the hot job's candidates
// over.
const spreadJobs = 64

// hotJobTargets gives every user its own candidates of the hot job, disjoint
// from every other user's (number within the job ≡ the user's number modulo
// the users), the reserved ones left out.
func hotJobTargets(w *world) [][]target {
	hot := w.Jobs[0]
	out := make([][]target, len(w.Users))
	for u := range w.Users {
		for k := u; k < len(hot.Cands); k += len(w.Users) {
			if k >= reservedCandidates {
				out[u] = append(out[u], target{job: hot, cand: k})
			}
		}
		if len(out[u]) == 0 {
			out[u] = []target{{job: hot, cand: reservedCandidates}}
		}
	}
	return out
}

// spreadTargets gives every user as many candidates as it has on the hot
// job, but in one job of its own: the users take spreadJobs jobs other than
// the hot one in turn, each the first it reaches that no one has taken
// (or, when none is left, one it reaches), so that the same candidates and
// connections meet on different stage rows.
func spreadTargets(w *world, hot [][]target) [][]target {
	taken := map[int]bool{}
	out := make([][]target, len(w.Users))
	for u, bu := range w.Users {
		var own []int
		for _, j := range bu.Jobs {
			if j != 0 {
				own = append(own, j)
			}
		}
		if len(own) == 0 {
			out[u] = hot[u]
			continue
		}
		pick := own[u%len(own)]
		for _, j := range own {
			if !taken[j] && len(taken) < spreadJobs {
				pick = j
				break
			}
		}
		taken[pick] = true
		job := w.Jobs[pick]
		for k := u; k < len(job.Cands) && len(out[u]) < len(hot[u]); k += len(w.Users) {
			out[u] = append(out[u], target{job: job, cand: k})
		}
	}
	return out
}

// hotJobScenarios are the hot-job case's writes: every user moves and
// annotates its own candidates of the hot job, and spreadMove moves as
// many candidates spread over other jobs. only names the scenarios kept;
// spreadMove goes with move.
func hotJobScenarios(w *world, only []string, keys *keySource) []*scenario {
	hot := hotJobTargets(w)
	spread := spreadTargets(w, hot)
	n := uint64(len(w.Users))
	mover := func(name string, ts [][]target) *scenario {
		return &scenario{name: name, write: true, status: http.StatusOK, next: func(i uint64) request {
			u, r := i%n, i/n
			return moveRequest(w.Users[u].Token, ts[u][r%uint64(len(ts[u]))], keys.next())
		}}
	}
	all := []*scenario{
		mover("move", hot),
		mover(spreadMove, spread),
		{name: "note", write: true, status: http.StatusCreated, next: func(i uint64) request {
			u, r := i%n, i/n
			t := hot[u][r%uint64(len(hot[u]))]
			return noteRequest(w.Users[u].Token, t, fmt.Sprintf("Benchmark note %d", i), "")
		}},
	}
	var out []*scenario
	for _, s := range all {
		if selected(only, s.name) {
			out = append(out, s)
		}
	}
	return out
}

// selected reports whether the scenario is among those picked: spreadMove
// goes with move.
func selected(only []string, name string) bool {
	if name == spreadMove {
		name = "move"
	}
	return slices.Contains(only, name)
}

// writeHotJobSummary compares the hot job's moves with the same moves
// spread over many jobs, on each server.
func writeHotJobSummary(out io.Writer, rows []caseRow) {
	var hot, spread *caseRow
	for i := range rows {
		switch rows[i].Scenario {
		case "move":
			hot = &rows[i]
		case spreadMove:
			spread = &rows[i]
		}
	}
	if hot == nil || spread == nil {
		return
	}
	fmt.Fprintf(out, "Moves on the hot job ÷ the same moves over %d jobs (goal for ours: ≥ 0.80× in req/s, p99 ≤ 2× the spread p99):\n\n", spreadJobs)
	fmt.Fprintln(out, "| server | hot ÷ spread req/s | hot p99 | spread p99 | p99 hot ÷ spread |")
	fmt.Fprintln(out, "|---|--:|--:|--:|--:|")
	for _, side := range []struct {
		name      string
		hot, base summary
	}{{"ours", hot.Ours, spread.Ours}, {"baseline", hot.Base, spread.Base}} {
		fmt.Fprintf(out, "| %s | %s | %s | %s | %s |\n", side.name, quotient(side.hot.RPS, side.base.RPS),
			ms(side.hot.P99), ms(side.base.P99), quotient(float64(side.hot.P99), float64(side.base.P99)))
	}
	fmt.Fprintln(out)
}

// quotient is a ÷ b as a ratio, "–" when b is 0.
func quotient(a, b float64) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", a/b)
}
