package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStatCPU(t *testing.T) {
	// A command name with spaces and parentheses; utime 250 and stime 125
	// ticks.
	d, ok := statCPU("4242 (pipe (d) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 125 0 0 20 0 9 0 1000 0 0")
	require.True(t, ok)
	assert.Equal(t, 3750*time.Millisecond, d)
	_, ok = statCPU("4242 (short) S 1 2")
	assert.False(t, ok)
}
