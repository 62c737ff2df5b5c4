package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// RetrySchedule is how long a failed delivery waits before each retry, per
// the API's events contract: after the last one fails, the message is
// marked failed.
var RetrySchedule = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// MaxDeliveryAttempts is the first attempt and its retries.
var MaxDeliveryAttempts = len(RetrySchedule) + 1

// DeliveryTimeout is how long a receiver has to answer.
const DeliveryTimeout = 10 * time.Second

// WebhookMessage is one activity entry to send to one webhook. The store makes
// one, in the transaction of the write that logs the entry, for each
// webhook of the entry's team that selects its action.
type WebhookMessage struct {
	WebhookID  int64 `json:"webhook_id"`
	ActivityID int64 `json:"activity_id"`
}

// ID is the message's webhook-id: the same on every attempt, unique per
// message.
func (m WebhookMessage) ID() string { return fmt.Sprintf("msg_%d_%d", m.ActivityID, m.WebhookID) }

// Delivery is one attempt to deliver a message.
type Delivery struct {
	ID         int64
	WebhookID  int64
	ActivityID int64  // the entry sent: the event's id
	Action     string // the entry's action, filled in by the store
	Attempt    int    // from 1
	StatusCode *int   // the receiver's answer; nil when none came
	// Error says why the attempt failed, or why the message was not sent;
	// "" when it was delivered.
	Error         string
	Duration      time.Duration
	AttemptedAt   time.Time
	NextAttemptAt *time.Time // nil: no further attempt (delivered, failed, or not sent)
}

// DeliveryTarget is what a delivery needs, read when it is attempted: the
// webhook, the role its creator now has on its team ("" when none), and
// the entry as its creator may read it now (nil when the creator may not).
type DeliveryTarget struct {
	Webhook     Webhook
	CreatorRole Role
	Entry       *FeedEntry
}

// Outgoing is a message as a Sender sends it.
type Outgoing struct {
	MessageID string
	URL       string
	Secret    string // the webhook's signing secret, whsec_ prefix included
	Entry     FeedEntry
}

// Reply is what became of one attempt to send.
type Reply struct {
	StatusCode int // 0 when no answer came
	Err        error
	Duration   time.Duration
}

// Delivered reports whether the receiver took the message: a 2xx answer.
func (r Reply) Delivered() bool { return r.Err == nil && r.StatusCode >= 200 && r.StatusCode < 300 }

// Sender sends messages to their webhooks: the transport of deliveries
// (package pipelinehttp signs and POSTs them).
type Sender interface {
	Send(ctx context.Context, o Outgoing) Reply
}

// ErrDeliveryFailed is what Dispatcher.Deliver returns, wrapped, when an
// attempt failed and the message is to be retried.
var ErrDeliveryFailed = errors.New("pipeline: delivery failed")

// Dispatcher delivers messages: it reads what each needs, has a Sender send
// it and records the attempt. A queue calls Deliver for each attempt of
// each message.
type Dispatcher struct {
	svc      *Service
	op       *Operator
	sender   Sender
	schedule []time.Duration
}

// NewDispatcher returns a Dispatcher on store that sends with sender. It
// needs the SecretKey the Service sealed the secrets with (WithSecretKey).
func NewDispatcher(store Store, sender Sender, opts ...Option) *Dispatcher {
	o := newOptions(opts)
	return &Dispatcher{svc: NewService(store, opts...), op: NewOperator(store, opts...), sender: sender, schedule: o.retries}
}

// Purge is Operator.Purge: the queue that runs deliveries runs it too,
// every PurgeInterval, so that every program delivering webhooks keeps
// its tables bounded.
func (d *Dispatcher) Purge(ctx context.Context) (Purged, error) { return d.op.Purge(ctx) }

// WithRetrySchedule sets the waits between the attempts of a delivery;
// the default is RetrySchedule. Tests shorten it. A queue holds each
// message for MaxDeliveryAttempts attempts, so a longer schedule is
// refused where deliveries start.
func WithRetrySchedule(waits []time.Duration) Option {
	return func(o *options) { o.retries = waits }
}

// RetryAfter is how long a message waits after failed attempt number
// attempt (from 1) before the next, or false when that was the last.
func (d *Dispatcher) RetryAfter(attempt int) (time.Duration, bool) {
	if attempt < 1 || attempt > len(d.schedule) {
		return 0, false
	}
	return d.schedule[attempt-1], true
}

// MaxAttempts is the number of attempts of a message, the first included.
func (d *Dispatcher) MaxAttempts() int { return len(d.schedule) + 1 }

// Deliver makes attempt number attempt (from 1) of m. It returns nil when
// nothing more is to be done (delivered; failed for good after the last
// attempt; the webhook is gone, or answered 410 Gone and is deleted; or the
// message may no longer be sent), which its deliveries record, and an
// error wrapping ErrDeliveryFailed when the attempt failed and is to be
// retried. Any other error is a fault of the
// storage; the queue retries it too.
func (d *Dispatcher) Deliver(ctx context.Context, m WebhookMessage, attempt int) error {
	t, err := d.svc.store.Webhooks().DeliveryTarget(ctx, m)
	if errors.Is(err, ErrNotFound) {
		return nil // the webhook was deleted: nothing more is sent to it
	}
	if err != nil {
		return err
	}
	rec := Delivery{WebhookID: m.WebhookID, ActivityID: m.ActivityID, Attempt: attempt, AttemptedAt: d.svc.now()}
	switch {
	case t.CreatorRole != RoleOwner && t.CreatorRole != RoleAdmin:
		rec.Error = "Not sent: the webhook's creator is no longer an owner or admin of the team."
		return d.svc.store.Webhooks().RecordDelivery(ctx, rec)
	case t.Entry == nil:
		rec.Error = "Not sent: the webhook's creator may not read this entry."
		return d.svc.store.Webhooks().RecordDelivery(ctx, rec)
	}
	var reply Reply
	if d.svc.secrets == nil {
		reply.Err = ErrNoSecretKey
	} else if secret, err := d.svc.secrets.open(t.Webhook.SealedSecret); err != nil {
		reply.Err = err
	} else {
		reply = d.sender.Send(ctx, Outgoing{MessageID: m.ID(), URL: t.Webhook.URL, Secret: string(secret), Entry: *t.Entry})
	}
	if reply.StatusCode == 410 {
		return d.gone(ctx, t)
	}
	return d.record(ctx, rec, reply)
}

// record stores the attempt and tells the queue whether to retry.
func (d *Dispatcher) record(ctx context.Context, rec Delivery, reply Reply) error {
	rec.Duration = reply.Duration
	if reply.StatusCode != 0 {
		code := reply.StatusCode
		rec.StatusCode = &code
	}
	if reply.Delivered() {
		return d.svc.store.Webhooks().RecordDelivery(ctx, rec)
	}
	switch {
	case reply.Err != nil:
		rec.Error = reply.Err.Error()
	default:
		rec.Error = fmt.Sprintf("The receiver answered %d.", reply.StatusCode)
	}
	wait, retry := d.RetryAfter(rec.Attempt)
	if !retry {
		// The schedule is the Dispatcher's: the message ends here, failed.
		rec.Error += " No attempts are left: the message failed."
		return d.svc.store.Webhooks().RecordDelivery(ctx, rec)
	}
	next := d.svc.now().Add(wait)
	rec.NextAttemptAt = &next
	if err := d.svc.store.Webhooks().RecordDelivery(ctx, rec); err != nil {
		return err
	}
	return fmt.Errorf("%w: %s", ErrDeliveryFailed, rec.Error)
}

// gone deletes a webhook whose receiver answered 410 Gone, as its
// creator's act through no token.
func (d *Dispatcher) gone(ctx context.Context, t DeliveryTarget) error {
	c := Caller{user: t.Webhook.CreatedBy, team: Team{ID: t.Webhook.TeamID}, valid: true}
	reason := "The receiver answered 410 Gone."
	return d.svc.store.Write(ctx, func(tx Tx) error {
		w, err := tx.Webhooks().Lock(ctx, WebhookParams{TeamID: t.Webhook.TeamID, ID: t.Webhook.ID})
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return d.svc.deleteWebhook(ctx, tx, c, w, &reason)
	})
}
