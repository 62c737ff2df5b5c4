package main

import (
	"slices"
	"time"
)

// percentiles returns the 50th and 99th percentile of latencies, by the
// nearest-rank method; it sorts latencies.
func percentiles(latencies []time.Duration) (p50, p99 time.Duration) {
	if len(latencies) == 0 {
		return 0, 0
	}
	slices.Sort(latencies)
	return rank(latencies, 0.50), rank(latencies, 0.99)
}

// rank is the nearest-rank percentile p of sorted values.
func rank(sorted []time.Duration, p float64) time.Duration {
	i := int(p*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// median is the median of values (the mean of the middle two for an even
// count); it sorts a copy.
func median[T ~int64 | ~float64 | ~int](values []T) T {
	if len(values) == 0 {
		return 0
	}
	s := slices.Clone(values)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// summary is the median over rounds of one scenario on one server, with the
// errors and timeouts of all rounds.
type summary struct {
	RPS              float64
	P50, P99         time.Duration
	ServerCPU, DBCPU time.Duration // per request
	Alloc            int64         // bytes the server allocated per request; 0: not known
	Requests         int
	Errors           int
	Timeouts         int
}

func summarize(rounds []runResult) summary {
	var s summary
	var rps []float64
	var p50, p99, server, db []time.Duration
	var alloc []int64
	for _, r := range rounds {
		rps = append(rps, r.RPS)
		p50 = append(p50, r.P50)
		p99 = append(p99, r.P99)
		server = append(server, r.ServerCPU)
		db = append(db, r.DBCPU)
		alloc = append(alloc, r.Alloc)
		s.Requests += r.Requests
		s.Errors += r.Errors
		s.Timeouts += r.Timeouts
	}
	s.RPS, s.P50, s.P99 = median(rps), median(p50), median(p99)
	s.ServerCPU, s.DBCPU = median(server), median(db)
	s.Alloc = median(alloc)
	return s
}
