package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestMain lets the test binary stand in for the command: the benchmark
// re-executes its own binary as the baseline server, which in a test is
// this binary.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "baseline" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := runBaseline(ctx, os.Args[2:], os.Stderr)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "baseline:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestBench runs the whole tool on a tiny dataset: it keeps the baseline in
// step with our contract (the correctness check fails the run otherwise)
// and proves every scenario of every case runs clean on both servers.
func TestBench(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	cfg, err := parseConfig([]string{
		"-db", dsn, "-users", "4", "-jobs", "3", "-candidates", "40", "-conns", "8",
		"-rounds", "1", "-warmup", "200ms", "-duration", "200ms",
		"-scale", "-scale-size", "1000", "-scale-samples", "2",
		"-erasure", "-erasure-people", "1",
	}, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)

	var out, log bytes.Buffer
	o, err := bench(context.Background(), cfg, &out, &log)
	require.NoError(t, err, "progress:\n%s", log.String())
	t.Log("\n" + out.String())

	assert.Greater(t, o.Compared, 50, "the correctness check compared both servers' answers")
	for _, name := range caseNames {
		rows := o.Cases[name]
		want := len(scenarioNames)
		switch name {
		case "hot-candidate":
			want = 5 // writes only
		case "hot-job":
			want = 3 // the moves, the moves spread over jobs, the notes
		case "hot-user":
			want -= 3 // no clashes, no reschedule
		}
		require.Len(t, rows, want, name)
		for _, r := range rows {
			for server, s := range map[string]summary{"ours": r.Ours, "baseline": r.Base} {
				at := name + "/" + r.Scenario + " on " + server
				assert.Positive(t, s.Requests, at)
				assert.Zero(t, s.Errors, at)
				assert.Zero(t, s.Timeouts, at)
			}
		}
		assert.Contains(t, out.String(), "## "+name+":")
	}
	assert.Contains(t, out.String(), "| CPU per request: ours + its PostgreSQL |")
	for _, r := range o.Cases["spread"] {
		if r.Scenario == "upload" {
			// Read from each server's runtime: a window this short holds
			// too few uploads for the figure to mean more than that.
			assert.Positive(t, r.Ours.Alloc, "ours' allocations are read")
			assert.Positive(t, r.Base.Alloc, "the baseline's allocations are read")
		}
	}
	require.Len(t, o.Erasures, 2, "one erasure in small jobs, one with a candidate in the large job")
	for _, r := range o.Erasures {
		assert.Equal(t, 3, r.Erased, r.Kind)
		assert.Positive(t, r.Took, r.Kind)
	}
	assert.Contains(t, out.String(), "## erasure:")
	assert.Contains(t, out.String(), "hot-job, round by round:")
	assert.Contains(t, out.String(), "| ours | ", "the hot job's moves against the same moves spread")
	require.Len(t, o.Scale, 5)
	for _, r := range o.Scale {
		assert.Positive(t, r.Ours[1], r.Query)
		assert.Positive(t, r.Base[1], r.Query)
	}
	assert.Equal(t, [2]int{scaleBase, 1000}, o.Scale[0].Totals, "page 1 counts every candidate")
	assert.Contains(t, out.String(), "## scale:")
	common := o.Scale[4]
	assert.Equal(t, "search \"son\"", common.Query)
	assert.InDelta(t, 0.03, float64(common.Totals[0])/scaleBase, 0.015, "the common term matches about 3%% of the job")

	require.Len(t, o.DataOnly, len(dataOnlyScenarios))
	for _, r := range o.DataOnly {
		for server, s := range map[string]summary{"ours": r.Ours, "baseline": r.Base, "data-only": r.DataOnly} {
			at := "data-only/" + r.Scenario + " on " + server
			assert.Positive(t, s.Requests, at)
			assert.Zero(t, s.Errors, at)
			assert.Zero(t, s.Timeouts, at)
		}
	}
	assert.Contains(t, out.String(), "## data-only:")
}

func TestParseConfig(t *testing.T) {
	none := func(string) string { return "" }
	_, err := parseConfig(nil, none, io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), dbEnv, "without -db the error names the variable")

	fromEnv := func(k string) string {
		if k == dbEnv {
			return "postgres://u@h/db"
		}
		return ""
	}
	cfg, err := parseConfig([]string{"-scenarios", "note, me", "-cases", "spread"}, fromEnv, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "postgres://u@h/db", cfg.DB)
	assert.Equal(t, []string{"me", "note"}, cfg.Scenarios, "in run order")
	assert.Equal(t, []string{"spread"}, cfg.Cases)

	_, err = parseConfig([]string{"-scenarios", "nope"}, fromEnv, io.Discard)
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "nope"))
	_, err = parseConfig([]string{"-db", "pipeline.db"}, none, io.Discard)
	require.Error(t, err, "a SQLite path is no PostgreSQL server")
}
