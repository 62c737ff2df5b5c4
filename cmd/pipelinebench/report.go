package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// caseRow is one scenario of a case's table.
type caseRow struct {
	Scenario   string
	Ours, Base summary
	// OursRounds and BaseRounds are the measurements the medians are of,
	// round by round.
	OursRounds, BaseRounds []runResult
}

// caseTitles say what each case's requests share.
var caseTitles = map[string]string{
	"spread":        "every user's token in turn, each to its own jobs and candidates",
	"hot-user":      "every request with one owner's token",
	"hot-candidate": "every write to one candidate, every user's token in turn",
	"hot-job":       "every user's writes to its own candidates of one job, every user's token in turn",
}

// writePreamble states what was measured, and how.
func writePreamble(out io.Writer, cfg config, w *world, where, server string, compared int) {
	admins := 0
	for _, u := range w.Users {
		if u.owner() {
			admins++
		}
	}
	fmt.Fprintf(out, "# pipelinebench\n\n")
	fmt.Fprintf(out, "- Dataset: %d jobs × %s candidates; %d users, of whom %d owners or admins and the rest members reaching some jobs; %s; %s.\n",
		len(w.Jobs), thousands(cfg.Candidates), len(w.Users), admins, where, server)
	fmt.Fprintf(out, "- Load: %d connections in a closed loop; per scenario and server %s of warm-up, then %s measured; %d round(s), alternating which server goes first; tables show medians over rounds.\n",
		cfg.Conns, cfg.Warmup, cfg.Duration, cfg.Rounds)
	baseline := "hand-written Gin + pgx doing the same work"
	if cfg.SQLite {
		baseline = "hand-written Gin + database/sql on the same SQLite file and driver, doing the same work"
	}
	fmt.Fprintf(out, "- Ours: `pipelined serve` with PIPELINE_RATE_LIMIT=%d. Baseline: %s.\n", benchRateLimit, baseline)
	if cfg.NoCheck {
		fmt.Fprintf(out, "- Correctness check skipped (-no-check): the servers were not compared.\n\n")
	} else {
		fmt.Fprintf(out, "- Correctness check passed: %d requests answered alike by both servers.\n\n", compared)
	}
}

// writeCaseTable writes one case's table; db names the database server
// whose CPU time is shown beside each server's, "" when the database runs
// in the server's process (SQLite).
func writeCaseTable(out io.Writer, name string, users int, rows []caseRow, db string) {
	fmt.Fprintf(out, "## %s: %s (%d token(s))\n\n", name, caseTitles[name], users)
	cpu := "CPU per request: ours + its " + db + " | baseline + its " + db
	if db == "" {
		cpu = "CPU per request: ours, SQLite within | baseline, SQLite within"
	}
	fmt.Fprintln(out, "| scenario | ours req/s | baseline req/s | ours ÷ baseline | ours p50 | ours p99 | baseline p50 | baseline p99 | errors/timeouts (ours, baseline) | "+cpu+" | allocated per request: ours | baseline |")
	fmt.Fprintln(out, "|---|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|--:|")
	for _, r := range rows {
		share := "–"
		if r.Base.RPS > 0 {
			share = fmt.Sprintf("%.2f×", r.Ours.RPS/r.Base.RPS)
		}
		fmt.Fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s | %d/%d, %d/%d | %s | %s | %s | %s |\n",
			r.Scenario, thousands(int(r.Ours.RPS+0.5)), thousands(int(r.Base.RPS+0.5)), share,
			ms(r.Ours.P50), ms(r.Ours.P99), ms(r.Base.P50), ms(r.Base.P99),
			r.Ours.Errors, r.Ours.Timeouts, r.Base.Errors, r.Base.Timeouts,
			cpuShown(r.Ours, db), cpuShown(r.Base, db), bytesPer(r.Ours.Alloc), bytesPer(r.Base.Alloc))
	}
	fmt.Fprintln(out)
}

// cpuShown is a server's CPU time per request, with its database's
// unless db is "" (the database runs within).
func cpuShown(s summary, db string) string {
	if db == "" {
		return strings.TrimSuffix(cpuPair(s.ServerCPU, 0), " + –")
	}
	return cpuPair(s.ServerCPU, s.DBCPU)
}

// cpuPair shows a server's and PostgreSQL's CPU time per request, "–" for
// what is not known.
func cpuPair(server, db time.Duration) string {
	show := func(d time.Duration) string {
		if d == 0 {
			return "–"
		}
		return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond))
	}
	return show(server) + " + " + show(db)
}

// writeScaleTable writes the scale part's table.
func writeScaleTable(out io.Writer, w *world, samples int, rows []scaleRow) {
	small, big := sizeLabel(w.Scale[0].Size), sizeLabel(w.Scale[1].Size)
	fmt.Fprintf(out, "## scale: one job with %s candidates, one with %s\n\n", thousands(w.Scale[0].Size), thousands(w.Scale[1].Size))
	fmt.Fprintf(out, "p50 of %d sequential requests after %d warm-ups, with an owner's token. Goal for ours: page 1, the stage filter and page %d at %s within %.0f× their p50 at %s; the search within %s; meta.total exact.\n\n",
		samples, scaleWarmups, scalePage, big, scaleRatioGoal, small, ms(scaleSearchGoal))
	fmt.Fprintf(out, "| query | ours p50 at %s | ours p50 at %s | ratio | goal | met | meta.total exact (%s; %s) | baseline p50 at %s | baseline p50 at %s | baseline ratio |\n",
		small, big, small, big, small, big)
	fmt.Fprintln(out, "|---|--:|--:|--:|---|---|---|--:|--:|--:|")
	for _, r := range rows {
		goal := fmt.Sprintf("≤ %.0f×", scaleRatioGoal)
		if r.Search {
			goal = "≤ " + ms(scaleSearchGoal) + " at " + big
		}
		fmt.Fprintf(out, "| %s | %s | %s | %.2f× | %s | %s | yes (%s; %s) | %s | %s | %.2f× |\n",
			r.Query, ms(r.Ours[0]), ms(r.Ours[1]), ratio(r.Ours), goal, yesNo(r.met()),
			thousands(r.Totals[0]), thousands(r.Totals[1]), ms(r.Base[0]), ms(r.Base[1]), ratio(r.Base))
	}
	fmt.Fprintln(out)
	writeScaleSearchTable(out, w, rows)
}

// ms is a duration in milliseconds.
func ms(d time.Duration) string {
	if d%time.Millisecond == 0 {
		return fmt.Sprintf("%d ms", d/time.Millisecond)
	}
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

// thousands writes n with thousands separators.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	var b strings.Builder
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	return b.String()
}

// sizeLabel is a job size in short: 10k, 1M, or the number.
func sizeLabel(n int) string {
	switch {
	case n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "M"
	case n%1_000 == 0:
		return strconv.Itoa(n/1_000) + "k"
	}
	return thousands(n)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}
