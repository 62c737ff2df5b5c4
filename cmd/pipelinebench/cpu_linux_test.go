package main

import (
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProcessCPU: the CPU time read from /proc grows by the CPU time the
// kernel accounts to the process (getrusage) as it works. The work is
// measured in CPU time, not in wall-clock time: on a busy machine a span of
// wall-clock time may hold less than one tick of CPU time for the process.
func TestProcessCPU(t *testing.T) {
	before, ok := processCPU(os.Getpid())
	require.True(t, ok)
	start := rusageCPU(t)
	deadline := time.Now().Add(time.Minute)
	for rusageCPU(t)-start < 200*time.Millisecond {
		require.True(t, time.Now().Before(deadline), "the process got less than 200ms of CPU time in a minute")
		for range 1000 {
			runtime.Gosched() // burn CPU time
		}
	}
	used := rusageCPU(t) - start
	after, ok := processCPU(os.Getpid())
	require.True(t, ok)
	// /proc counts in ticks of 10ms, truncated.
	assert.InDelta(t, used, after-before, float64(30*time.Millisecond), "/proc says %v, getrusage %v", after-before, used)

	_, ok = processCPU(-1)
	assert.False(t, ok)
}

// rusageCPU is the CPU time, user and system, the kernel has accounted to
// this process so far.
func rusageCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
