package pipelinehttp

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// securityWarning is Spectral's rule whose warnings follow from the table:
// one for each operation that needs a scope (.ci/README.md says why they
// stay).
const securityWarning = "spectral warn oas3-operation-security-defined "

// TestLint_ExpectedProblems: the linters' explained warnings that follow
// from the table of operations, in lint/expected-problems.txt, are exactly
// the table's: a new operation needs no edit of the list (-update writes
// it, with the document).
func TestLint_ExpectedProblems(t *testing.T) {
	const path = "lint/expected-problems.txt"
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var want []string
	for _, l := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		if !strings.HasPrefix(l, securityWarning) {
			want = append(want, l)
		}
	}
	escape := strings.NewReplacer("~", "~0", "/", "~1")
	for _, o := range operations {
		if o.op.Scope() != "" {
			want = append(want, securityWarning+"#/paths/"+escape.Replace("/api/v1"+o.path)+"/"+strings.ToLower(o.method)+"/security/0/bearerAuth/0")
			if o.servesHead() {
				want = append(want, securityWarning+"#/paths/"+escape.Replace("/api/v1"+o.path)+"/head/security/0/bearerAuth/0")
			}
		}
	}
	slices.Sort(want)
	text := strings.Join(want, "\n") + "\n"
	if *updateOpenAPI {
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		return
	}
	assert.Equal(t, text, string(raw), "run go test ./pipelinehttp -run 'TestOpenAPI_Generated|TestLint' -update")
}
