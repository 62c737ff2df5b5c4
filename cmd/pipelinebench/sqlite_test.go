package main

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBench_SQLite runs the SQLite side on a tiny dataset: both servers
// answer alike (the check fails the run otherwise), /me and the upload
// run clean on both, each server's allocations are read, and every
// uploaded document is in the file with its bytes.
func TestBench_SQLite(t *testing.T) {
	args := []string{
		"-sqlite", "-users", "4", "-jobs", "3", "-candidates", "40", "-conns", "4",
		"-rounds", "2", "-warmup", "200ms", "-duration", "300ms",
	}
	t.Run("as run", func(t *testing.T) { benchSQLiteBriefly(t, args) })
	t.Run("text paused", func(t *testing.T) {
		o, _ := benchSQLiteBriefly(t, append(args, "-pause-text"))
		assert.GreaterOrEqual(t, o.Stored.Waiting, o.Stored.Documents-2, "only the check's uploads may have been read")
	})
	t.Run("hostile", func(t *testing.T) {
		_, out := benchSQLiteBriefly(t, append(args, "-hostile", "-rounds", "1"))
		assert.Contains(t, out, "## /me beside hostile files: 1 reader(s) in a closed loop on ours")
		assert.Regexp(t, `\| 1 \| .* \| bomb\.docx (ready|failed) [0-9.]+ s;`, out, "the round, with what became of the first file")
	})
}

func benchSQLiteBriefly(t *testing.T, args []string) (*outcome, string) {
	cfg, err := parseConfig(args, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)

	var out, log bytes.Buffer
	o, err := bench(context.Background(), cfg, &out, &log)
	require.NoError(t, err, "progress:\n%s", log.String())
	t.Log("\n" + out.String())

	assert.Equal(t, 5, o.Compared, "the check compared both servers' answers")
	rows := o.Cases["spread"]
	require.Len(t, rows, 2)
	assert.Equal(t, []string{"me", "upload"}, []string{rows[0].Scenario, rows[1].Scenario})
	uploads := 0
	for _, r := range rows {
		for server, s := range map[string]summary{"ours": r.Ours, "baseline": r.Base} {
			at := r.Scenario + " on " + server
			assert.Positive(t, s.Requests, at)
			assert.Zero(t, s.Errors, at)
			assert.Zero(t, s.Timeouts, at)
			assert.Positive(t, s.Alloc, at+": allocations are read")
			assert.Zero(t, s.DBCPU, at+": no PostgreSQL's CPU is counted")
		}
		if r.Scenario == "upload" {
			for _, rr := range append(r.OursRounds, r.BaseRounds...) {
				uploads += rr.Requests
			}
		}
	}
	assert.Contains(t, out.String(), "| CPU per request: ours, SQLite within | baseline, SQLite within |")
	assert.Contains(t, out.String(), "SQLite file")
	// Measured uploads, the warm-ups' and the check's two: all stored.
	assert.Greater(t, o.Stored.Documents, uploads)
	assert.Equal(t, o.Stored.Documents, o.Stored.Intact, "every document's bytes are in the file, of its size and SHA-256")
	assert.Equal(t, o.Stored.Documents, o.Stored.TextJobs, "every document's text is queued")
	return o, out.String()
}

func TestParseConfig_SQLite(t *testing.T) {
	none := func(string) string { return "" }
	cfg, err := parseConfig([]string{"-sqlite"}, none, io.Discard)
	require.NoError(t, err, "no -db needed")
	assert.Equal(t, sqliteScenarios, cfg.Scenarios)
	assert.Equal(t, []string{"spread"}, cfg.Cases)
	assert.False(t, cfg.DataOnly)
	_, err = parseConfig([]string{"-sqlite", "-hostile"}, none, io.Discard)
	require.NoError(t, err, "/me beside hostile files on the embedded default")

	for _, args := range [][]string{
		{"-sqlite", "-scenarios", "move"},
		{"-sqlite", "-cases", "hot-job"},
		{"-sqlite", "-hostile", "-pause-text"},
		{"-sqlite", "-scale"},
		{"-sqlite", "-data-only"},
		{"-pause-text", "-db", "postgres://u@h/db"},
	} {
		_, err := parseConfig(args, none, io.Discard)
		assert.Error(t, err, "%v", args)
	}
}
