package main

import (
	"os"
	"runtime"
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

	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	before, ok := processCPU(os.Getpid())
	require.True(t, ok)
	for start := time.Now(); time.Since(start) < 100*time.Millisecond; {
		runtime.Gosched() // burn CPU time
	}
	after, ok := processCPU(os.Getpid())
	require.True(t, ok)
	assert.Greater(t, after, before, "the process's own CPU time grows as it works")
	_, ok = processCPU(-1)
	assert.False(t, ok)
}
