package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The plans auto_explain logs are read back from the server's log, from
// the offset on, and a whole scan of a table an erasure must not scan is
// called out.
func TestLoggedPlans(t *testing.T) {
	before := "2026-11-27 19:00:00.000 UTC [1] LOG:  duration: 9.000 ms  plan:\n\tQuery Text: SELECT 0\n\tSeq Scan on activity\n"
	log := before +
		"2026-11-27 19:00:01.000 UTC [2] LOG:  duration: 0.250 ms  plan:\n" +
		"\tQuery Text: DELETE FROM notes WHERE candidate_id = $1\n" +
		"\tDelete on notes  (cost=0.29..8.30 rows=0 width=0)\n" +
		"\t  ->  Index Scan using notes_candidate_idx on notes  (cost=0.29..8.30 rows=1 width=6)\n" +
		"2026-11-27 19:00:01.100 UTC [3] LOG:  checkpoint starting: wal\n" +
		"2026-11-27 19:00:01.200 UTC [2] LOG:  duration: 1.500 ms  plan:\n" +
		"\tQuery Text: UPDATE candidates SET name = $1 WHERE email_fold = $2\n" +
		"\tUpdate on candidates\n" +
		"\t  ->  Seq Scan on candidates  (cost=0.00..20000.00 rows=1 width=6)\n"
	path := filepath.Join(t.TempDir(), "server.log")
	require.NoError(t, os.WriteFile(path, []byte(log), 0o600))
	plans, err := loggedPlans(path, int64(len(before)))
	require.NoError(t, err)
	require.Len(t, plans, 2)
	assert.Contains(t, plans[0], "notes_candidate_idx")
	assert.NotContains(t, plans[0], "checkpoint")
	var out bytes.Buffer
	writeErasurePlans(&out, 120*time.Millisecond, plans)
	assert.Contains(t, out.String(), "**Scanned whole: candidates.**")
	assert.Contains(t, out.String(), "2 statements, 1.75 ms")
}
