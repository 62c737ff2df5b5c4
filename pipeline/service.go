package pipeline

import (
	"context"
	"sync"
	"time"
)

// Service implements every operation of the API on a Store. It is safe for
// concurrent use.
type Service struct {
	store Store
	clock Clock

	touched sync.Map // token id → time.Time of the last recorded use
}

// Option configures a Service.
type Option func(*Service)

// WithClock sets the clock; the default is SystemClock.
func WithClock(c Clock) Option { return func(s *Service) { s.clock = c } }

// NewService returns a Service on store.
func NewService(store Store, opts ...Option) *Service {
	s := &Service{store: store, clock: SystemClock{}}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Ping reports whether the storage answers, for readiness checks.
func (s *Service) Ping(ctx context.Context) error { return s.store.Ping(ctx) }

func (s *Service) now() time.Time { return s.clock.Now().UTC() }
