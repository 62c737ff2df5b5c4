package main

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is the unit of the CPU times in /proc/PID/stat (USER_HZ, 100
// on every Linux platform Go supports).
const clockTicks = 100

// processCPU is the CPU time, user and system, that process pid has used
// so far; false where /proc does not tell (another OS, an ended process).
func processCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	return statCPU(string(b))
}

// statCPU reads utime and stime from a /proc/PID/stat line. The command
// name, in parentheses, may hold spaces, so fields are counted from the
// last parenthesis.
func statCPU(stat string) (time.Duration, bool) {
	f, ok := statFields(stat)
	if !ok {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, true
}

// childrenCPU is the CPU time, user and system, that the children of
// process pid have used so far: those it has waited for (cutime and
// cstime of its stat) and those still running; false where /proc does
// not tell.
func childrenCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	f, ok := statFields(string(b))
	if !ok {
		return 0, false
	}
	cu, err1 := strconv.ParseInt(f[13], 10, 64)
	cs, err2 := strconv.ParseInt(f[14], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	total := time.Duration(cu+cs) * time.Second / clockTicks
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	parent := strconv.Itoa(pid)
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if f, ok := statFields(string(b)); ok && f[1] == parent {
			if t, ok := statCPU(string(b)); ok {
				total += t
			}
		}
	}
	return total, true
}

// runQueueWait is how long the threads of process pid have waited for a
// CPU so far (the second field of each thread's schedstat); false where
// /proc does not tell. A thread that ended takes its share with it.
func runQueueWait(pid int) (time.Duration, bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, false
	}
	var total time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(dir + t.Name() + "/schedstat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) < 2 {
			continue
		}
		if ns, err := strconv.ParseInt(f[1], 10, 64); err == nil {
			total += time.Duration(ns)
		}
	}
	return total, true
}

// loadAverage is the machine's load average over the last minute, as
// /proc/loadavg says; "" where it does not.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// statFields are the fields of a /proc/PID/stat line after the command
// name: state, ppid, …, utime at 11, cutime at 13 (proc(5)).
func statFields(stat string) ([]string, bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return nil, false
	}
	f := strings.Fields(stat[i+1:])
	return f, len(f) >= 15
}

// postgresCPU is the CPU time used so far by the PostgreSQL processes on
// this machine, whatever they serve (the benchmark's two servers, and
// PostgreSQL's own workers); false when none runs here, as with a remote
// database.
func postgresCPU() (time.Duration, bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	var total time.Duration
	found := false
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile("/proc/" + e.Name() + "/comm")
		if err != nil || strings.TrimSpace(string(comm)) != "postgres" {
			continue
		}
		if t, ok := processCPU(pid); ok {
			total += t
			found = true
		}
	}
	return total, found
}

// cpuSample is the CPU times of a server process and of PostgreSQL at one
// moment.
type cpuSample struct {
	server, db     time.Duration
	serverOK, dbOK bool
}

func sampleCPU(pid int) cpuSample {
	var s cpuSample
	if pid > 0 {
		s.server, s.serverOK = processCPU(pid)
	}
	s.db, s.dbOK = postgresCPU()
	return s
}

// perRequest is the CPU time from a to b over n requests, or 0 when it is
// not known.
func perRequest(a, b time.Duration, aOK, bOK bool, n int) time.Duration {
	if !aOK || !bOK || n == 0 || b < a {
		return 0
	}
	return (b - a) / time.Duration(n)
}
