package main

import (
	"fmt"
	"io"
)

// writeRoundsTable shows each round of a case on its own, so that a round
// far from the others is seen instead of hidden by the median: per scenario
// and round, each server's req/s and p99 and ours ÷ baseline.
func writeRoundsTable(out io.Writer, name string, rows []caseRow) {
	fmt.Fprintf(out, "%s, round by round:\n\n", name)
	fmt.Fprintln(out, "| scenario | round | ours req/s | baseline req/s | ours ÷ baseline | ours p99 | baseline p99 |")
	fmt.Fprintln(out, "|---|--:|--:|--:|--:|--:|--:|")
	for _, r := range rows {
		for i := range min(len(r.OursRounds), len(r.BaseRounds)) {
			o, b := r.OursRounds[i], r.BaseRounds[i]
			fmt.Fprintf(out, "| %s | %d | %s | %s | %s | %s | %s |\n", r.Scenario, i+1,
				thousands(int(o.RPS+0.5)), thousands(int(b.RPS+0.5)), quotient(o.RPS, b.RPS), ms(o.P99), ms(b.P99))
		}
	}
	fmt.Fprintln(out)
}
