package main

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEmbed(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), filepath.Join(t.TempDir(), "pipeline.db"), &out))
	got := out.String()
	t.Log(got)
	assert.Contains(t, got, `created job 2 "Platform Engineer": open`)
	assert.Contains(t, got, "2 of 2 candidates in Applied")
	assert.Contains(t, got, "moved Ada Lovelace to Screening, noted, rated good_fit")
	assert.Contains(t, got, "moving with a read-only token: insufficient_scope")
	assert.Contains(t, got, `candidate.stage_changed candidate 1 by user 1 from 127.0.0.1: {"stage":{"before":"Applied","after":"Screening"}}`)
	assert.Equal(t, 7, bytes.Count(out.Bytes(), []byte("\nactivity ")), "one entry per write that changed something")
}
