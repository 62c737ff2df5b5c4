package pipeline

import (
	"context"
	"sync"
	"time"
)

// RateWindow is the length of a rate-limit window.
const RateWindow = time.Minute

// DefaultRateLimit is the number of requests a user may make in one window.
const DefaultRateLimit = 60

// Quota is the state of a rate-limit bucket after one request was counted.
type Quota struct {
	Limit     int
	Remaining int       // requests left in the window after this one
	Reset     time.Time // when the window ends
	Allowed   bool
}

// Limiter counts requests in fixed windows: a bucket's window opens with its
// first request and lasts RateWindow, and no more than the limit is allowed
// in it.
type Limiter interface {
	// Take counts one request against bucket at now and returns the
	// bucket's quota after it.
	Take(ctx context.Context, bucket string, now time.Time) (Quota, error)
	// Limit is the number of requests allowed per bucket in one window. It
	// needs no storage, so it can be reported even when Take fails.
	Limit() int
}

// MemoryLimiter is a Limiter for a single process.
type MemoryLimiter struct {
	limit int
	mu    sync.Mutex
	seen  map[string]*window
	swept time.Time
}

type window struct {
	start time.Time
	count int
}

// NewMemoryLimiter returns a limiter allowing limit requests per window.
func NewMemoryLimiter(limit int) *MemoryLimiter {
	return &MemoryLimiter{limit: limit, seen: map[string]*window{}}
}

// Limit is the number of requests allowed per bucket in one window.
func (l *MemoryLimiter) Limit() int { return l.limit }

// Take counts one request against bucket.
func (l *MemoryLimiter) Take(_ context.Context, bucket string, now time.Time) (Quota, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) >= RateWindow {
		// Forget ended windows so the map holds only live buckets.
		for k, w := range l.seen {
			if now.Sub(w.start) >= RateWindow {
				delete(l.seen, k)
			}
		}
		l.swept = now
	}
	w := l.seen[bucket]
	if w == nil || now.Sub(w.start) >= RateWindow {
		w = &window{start: now}
		l.seen[bucket] = w
	}
	w.count++
	return QuotaOf(l.limit, w.count, w.start), nil
}

// QuotaOf is the quota of a bucket whose window opened at start and has
// counted count requests.
func QuotaOf(limit, count int, start time.Time) Quota {
	return Quota{
		Limit:     limit,
		Remaining: max(0, limit-count),
		Reset:     start.Add(RateWindow),
		Allowed:   count <= limit,
	}
}
