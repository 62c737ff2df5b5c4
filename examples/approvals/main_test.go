package main

import (
	"bytes"
	"context"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestApprovals: with pipeline and pipelinestore alone, a held write is
// proposed and changes nothing; the approved one runs, the rejected one
// does not.
func TestApprovals(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), filepath.Join(t.TempDir(), "pipeline.db"), &out))
	got := out.String()
	t.Log(got)
	assert.Contains(t, got, "proposal 1 move_candidate pending: {StageID:2 ")
	assert.Contains(t, got, "proposal 2 add_note pending: {Content:Strong candidate. ")
	assert.Contains(t, got, "Ada Lovelace is in Applied with 0 notes\n", "nothing changes before a decision")
	assert.Contains(t, got, `approved 1: applied, answered 200 {"data":{"id":1,"name":"Ada Lovelace",`)
	assert.Contains(t, got, `"stage":"Screening"`)
	assert.Contains(t, got, "rejected 2: rejected\n")
	assert.Contains(t, got, "Ada Lovelace is in Screening with 0 notes\n", "the move ran, the note did not")
}

// TestApprovals_NoFace: the program imports no face of the library.
func TestApprovals_NoFace(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ImportsOnly)
	require.NoError(t, err)
	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		require.NoError(t, err)
		assert.NotContains(t, path, "pipelinehttp")
	}
}
