package pipelinestore

import "sync"

// sizes remembers the number of candidates of the jobs searched, which
// decides how the next search of a job runs (see searchScanLimit). It only
// chooses a plan: a stale size costs time, never a wrong answer.
type sizes struct {
	mu sync.RWMutex
	m  map[int64]int
}

// maxSizes bounds what sizes holds; past it, it starts again.
const maxSizes = 100000

func (s *sizes) get(jobID int64) (int, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n, ok := s.m[jobID]
	return n, ok
}

func (s *sizes) put(jobID int64, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil || len(s.m) >= maxSizes {
		s.m = map[int64]int{}
	}
	s.m[jobID] = n
}
