package pipeline

import (
	"context"
	"sync"
	"time"
)

// Service implements every operation of the API on a Store, each on behalf
// of the Caller found on its context. It is safe for concurrent use.
type Service struct {
	store    Store
	clock    Clock
	tokenTTL time.Duration
	webhooks WebhookPolicy
	secrets  *SecretKey  // nil: webhooks cannot be created or signed
	mail     *MailConfig // nil: messages cannot be sent
	calendar Calendar
	render   InvitationRenderer // nil: no invitation is emailed
	limiter  Limiter
	// background runs work that follows an answer (WithBackground).
	background func(work func())

	tokens   tokenCache
	touched  sync.Map // token id → time.Time of the last recorded use
	inflight inflightKeys
}

// Option configures a Service or an Operator.
type Option func(*options)

type options struct {
	clock    Clock
	tokenTTL time.Duration
	webhooks WebhookPolicy
	secrets  *SecretKey
	retries  []time.Duration

	mail        *MailConfig
	mailRetries []time.Duration
	calendar    *Calendar
	render      InvitationRenderer
	limiter     Limiter
	background  func(work func())
}

// WithClock sets the clock; the default is SystemClock.
func WithClock(c Clock) Option { return func(o *options) { o.clock = c } }

// DefaultTokenTTL is how long a Service trusts what it read of a token.
const DefaultTokenTTL = time.Second

// WithTokenTTL sets how long the Service trusts what it read of a token
// before reading it again: a token revoked elsewhere (by another replica
// or process) stops working within that time; its expiry is checked on
// every request. 0 reads the token on every request. The default is
// DefaultTokenTTL.
func WithTokenTTL(d time.Duration) Option { return func(o *options) { o.tokenTTL = max(d, 0) } }

// WithWebhookPolicy sets which URLs webhooks may be created for; the
// default is the zero WebhookPolicy (https, public addresses only).
func WithWebhookPolicy(p WebhookPolicy) Option { return func(o *options) { o.webhooks = p } }

// WithSecretKey sets the key that webhook secrets are stored under. Without
// one, creating a webhook is forbidden and deliveries cannot be signed.
func WithSecretKey(k *SecretKey) Option { return func(o *options) { o.secrets = k } }

// WithBackground sets how the Service runs the work that follows an
// answer, such as the sign-in link's lookup, write and mail (see
// RequestSignIn): start runs work and may return before it ends. The
// default runs it in a goroutine of its own; a program that waits for it
// on its way out, or a test that runs it when it chooses, passes its own.
func WithBackground(start func(work func())) Option {
	return func(o *options) { o.background = start }
}

func newOptions(opts []Option) options {
	o := options{clock: SystemClock{}, tokenTTL: DefaultTokenTTL, retries: RetrySchedule, mailRetries: MailRetrySchedule,
		background: func(work func()) { go work() }}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// NewService returns a Service on store.
func NewService(store Store, opts ...Option) *Service {
	o := newOptions(opts)
	if o.limiter == nil {
		// Only a Service admits requests: the default is made here.
		o.limiter = NewMemoryLimiter(DefaultRateLimit)
	}
	return &Service{store: store, clock: o.clock, tokenTTL: o.tokenTTL, webhooks: o.webhooks, secrets: o.secrets, mail: o.mail,
		calendar: o.calendarOf(), render: o.render, limiter: o.limiter, background: o.background}
}

// Ping reports whether the storage answers, for readiness checks.
func (s *Service) Ping(ctx context.Context) error { return s.store.Ping(ctx) }

func (s *Service) now() time.Time { return now(s.clock) }

// Now is the time by the Service's clock, so that a face reading records
// "as they are now" agrees with the Service.
func (s *Service) Now() time.Time { return s.now() }

// now is the clock's time to the microsecond, which both databases keep
// exactly, so that what a write returns equals what is read back.
func now(c Clock) time.Time { return c.Now().UTC().Truncate(time.Microsecond) }
