package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// dataOnlyScenarios are the reads measured against the data-only baseline:
// those whose data statements cost least, where the request's fixed cost
// (authentication, the limiter) weighs most.
var dataOnlyScenarios = []string{"job", "candidates-stage"}

// dataOnlyRow is one scenario against the data-only baseline, measured in
// the same rounds on the three servers.
type dataOnlyRow struct {
	Scenario             string
	Ours, Base, DataOnly summary
}

// runDataOnly starts the data-only baseline (`pipelinebench baseline
// -data-only`: the baseline without the token's lookup and without the
// limiter) and loads it, ours and the baseline with the spread case's
// dataOnlyScenarios that cfg selects, the first server rotating between
// rounds; then it writes the table. It does nothing when none is
// selected.
func runDataOnly(ctx context.Context, cfg config, w *world, ours, base *endpoint, dsn, dir string, out io.Writer, progress func(string, ...any)) ([]dataOnlyRow, error) {
	var only []string
	for _, s := range dataOnlyScenarios {
		if slices.Contains(cfg.Scenarios, s) {
			only = append(only, s)
		}
	}
	if !cfg.DataOnly || !slices.Contains(cfg.Cases, "spread") || len(only) == 0 {
		return nil, nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	progress("starting the data-only baseline on %s", addr)
	p, err := startProcess(ctx, "data-only baseline", addr, filepath.Join(dir, "dataonly.log"), self,
		[]string{"baseline", "-data-only", "-db", dsn, "-addr", addr, "-rate-limit", strconv.Itoa(benchRateLimit)}, serverEnv())
	if err != nil {
		return nil, err
	}
	defer p.stop()
	data := newEndpoint("data-only", addr, cfg.Conns, clientTimeout)
	data.pid = p.cmd.Process.Pid
	run := scenarios(w, "spread", only, newKeySource())
	servers := []*endpoint{ours, base, data}
	results := make([][3][]runResult, len(run))
	for round := range cfg.Rounds {
		for i, s := range run {
			for k := range servers {
				which := (round + k) % len(servers)
				r := drive(ctx, servers[which], s, cfg.Conns, cfg.Warmup, cfg.Duration)
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				results[i][which] = append(results[i][which], r)
				progress("data-only round %d/%d: %s on %s: %.0f req/s, p50 %s, p99 %s, %d errors, %d timeouts %s",
					round+1, cfg.Rounds, s.name, servers[which].name, r.RPS, ms(r.P50), ms(r.P99), r.Errors, r.Timeouts, r.Sample)
			}
		}
	}
	rows := make([]dataOnlyRow, len(run))
	for i, s := range run {
		rows[i] = dataOnlyRow{Scenario: s.name, Ours: summarize(results[i][0]), Base: summarize(results[i][1]), DataOnly: summarize(results[i][2])}
	}
	writeDataOnlyTable(out, rows)
	return rows, nil
}

// writeDataOnlyTable writes the reads against the data-only baseline.
func writeDataOnlyTable(out io.Writer, rows []dataOnlyRow) {
	fmt.Fprintf(out, "## data-only: the reads against the baseline without authentication and limiter (spread)\n\n")
	fmt.Fprintln(out, "| scenario | ours req/s | baseline req/s | data-only req/s | ours ÷ data-only | baseline ÷ data-only | ours p50 | baseline p50 | data-only p50 | errors/timeouts (ours, baseline, data-only) |")
	fmt.Fprintln(out, "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|")
	share := func(a, b summary) string {
		if b.RPS <= 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f×", a.RPS/b.RPS)
	}
	for _, r := range rows {
		fmt.Fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %d/%d, %d/%d, %d/%d |\n", r.Scenario,
			thousands(int(r.Ours.RPS+0.5)), thousands(int(r.Base.RPS+0.5)), thousands(int(r.DataOnly.RPS+0.5)),
			share(r.Ours, r.DataOnly), share(r.Base, r.DataOnly), ms(r.Ours.P50), ms(r.Base.P50), ms(r.DataOnly.P50),
			r.Ours.Errors, r.Ours.Timeouts, r.Base.Errors, r.Base.Timeouts, r.DataOnly.Errors, r.DataOnly.Timeouts)
	}
	fmt.Fprintln(out)
}
