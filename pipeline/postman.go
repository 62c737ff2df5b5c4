package pipeline

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
)

// MailRetrySchedule is how long a message waits after each failed attempt
// that may be retried (a connection error, a time-out, a 4xx reply) before
// the next: after the last one fails, the message is failed.
var MailRetrySchedule = []time.Duration{
	time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 6 * time.Hour,
}

// MaxMailAttempts is the first attempt of a message and its retries.
var MaxMailAttempts = len(MailRetrySchedule) + 1

// MailTimeout is how long one attempt to hand a mail to the server may
// take, from connecting to its reply to the data.
const MailTimeout = 30 * time.Second

// Mail is one email as the domain writes it, for a Mailer to send.
type Mail struct {
	// MessageID is the Message-ID header's value, angle brackets
	// included: the same on every attempt.
	MessageID string
	From      *mail.Address
	To        *mail.Address
	ReplyTo   *mail.Address // nil: none
	Subject   string
	Date      time.Time
	Body      string // text/plain; charset=utf-8
	// Parts are further parts beside the body (a calendar invitation);
	// none for a message.
	Parts []MailPart
}

// MailPart is a part of a mail beside its text body.
type MailPart struct {
	ContentType string // e.g. text/calendar; method=REQUEST
	Filename    string // "": shown inline
	Content     []byte
}

// MailReply is what became of one attempt to send a mail: the server's
// last reply code (0 when none came) and, when the mail was not taken, the
// reply's text or the connection's error, never a credential.
type MailReply struct {
	Code int
	Err  error
	// Final says that no retry can change the outcome though no 5xx came:
	// the server refused the TLS the URL asks for.
	Final bool
}

// Sent reports whether the server took the mail.
func (r MailReply) Sent() bool { return r.Err == nil }

// Permanent reports whether the mail failed for good: a 5xx reply (refused
// credentials included), or a Final failure. Anything else that failed
// may be retried.
func (r MailReply) Permanent() bool {
	return r.Err != nil && (r.Final || r.Code >= 500 && r.Code < 600)
}

// Mailer sends mails: the transport of messages (package
// pipeline/mail speaks SMTP).
type Mailer interface {
	Send(ctx context.Context, m Mail) MailReply
}

// MailConfig is how a program sends email: the From address and the
// Mailer.
type MailConfig struct {
	From   *mail.Address
	Mailer Mailer
}

// WithMail configures sending email from the address from (ParseFrom
// reads one) with m; without it, SendMessage is forbidden.
func WithMail(from *mail.Address, m Mailer) Option {
	return func(o *options) {
		if from != nil && m != nil {
			o.mail = &MailConfig{From: from, Mailer: m}
		}
	}
}

// WithMailRetrySchedule sets the waits between the attempts of a message;
// the default is MailRetrySchedule. Tests shorten it. A queue holds each
// message for MaxMailAttempts attempts, so a longer schedule is refused
// where sending starts.
func WithMailRetrySchedule(waits []time.Duration) Option {
	return func(o *options) { o.mailRetries = waits }
}

// ParseFrom reads a From address: one RFC 5322 address with a domain.
func ParseFrom(s string) (*mail.Address, error) {
	a, err := mail.ParseAddress(s)
	if err != nil {
		return nil, fmt.Errorf("the From address %q is not an email address: %w", s, err)
	}
	if _, domain, _ := strings.Cut(a.Address, "@"); domain == "" {
		return nil, fmt.Errorf("the From address %q has no domain", s)
	}
	return a, nil
}

// MessageMailID is the Message-ID of message id sent from the address
// from: <message-{id}@{from's domain}>.
func MessageMailID(id int64, from *mail.Address) string {
	return fmt.Sprintf("<message-%d@%s>", id, mailDomain(from))
}

// InvitationMailID is the Message-ID of invitation mail m sent from the
// address from: <invitation-{interview}-{sequence}-{id}@{from's domain}>.
func InvitationMailID(m InvitationMail, from *mail.Address) string {
	return fmt.Sprintf("<invitation-%d-%d-%d@%s>", m.InterviewID, m.Sequence, m.ID, mailDomain(from))
}

// mailDomain is the domain of the address a.
func mailDomain(a *mail.Address) string {
	_, domain, _ := strings.Cut(a.Address, "@")
	return domain
}

// ErrMailFailed is what Postman.Deliver returns, wrapped, when an attempt
// failed and the message is to be retried.
var ErrMailFailed = errors.New("pipeline: mail failed")

// MessageAttempt is the outcome of one attempt to send a message, or an
// invitation mail, as the store records it.
type MessageAttempt struct {
	MessageID int64  // the message's id, or the invitation mail's
	Attempt   int    // from 1
	Status    string // queued (to be retried), sent or failed
	Error     string // "" when sent
	At        time.Time
}

// Postman sends queued messages: it reads each, has the Mailer send it and
// records the outcome. A queue calls Deliver for each attempt.
type Postman struct {
	store    Store
	clock    Clock
	mail     *MailConfig
	schedule []time.Duration
}

// NewPostman returns a Postman on store, configured by WithMail (required)
// and WithMailRetrySchedule.
func NewPostman(store Store, opts ...Option) (*Postman, error) {
	o := newOptions(opts)
	if o.mail == nil {
		return nil, errors.New("pipeline: a postman needs WithMail")
	}
	return &Postman{store: store, clock: o.clock, mail: o.mail, schedule: o.mailRetries}, nil
}

// RetryAfter is how long a message waits after failed attempt number
// attempt (from 1) before the next, or false when that was the last.
func (p *Postman) RetryAfter(attempt int) (time.Duration, bool) {
	if attempt < 1 || attempt > len(p.schedule) {
		return 0, false
	}
	return p.schedule[attempt-1], true
}

// MaxAttempts is the number of attempts of a message, the first included.
func (p *Postman) MaxAttempts() int { return len(p.schedule) + 1 }

// Mail is the mail of message m: the domain's content, the same on every
// attempt.
func (p *Postman) Mail(m Message) Mail {
	out := Mail{
		MessageID: MessageMailID(m.ID, p.mail.From),
		From:      p.mail.From,
		To:        &mail.Address{Name: m.ToName, Address: m.To},
		Subject:   m.Subject,
		Date:      now(p.clock),
		Body:      m.Body,
	}
	if m.ReplyTo != "" {
		out.ReplyTo = &mail.Address{Name: m.Author.Name, Address: m.ReplyTo}
	}
	return out
}

// Deliver makes attempt number attempt (from 1) of message id. It returns
// nil when nothing more is to be done (sent, failed for good, cancelled or
// gone), and an error wrapping ErrMailFailed when the attempt failed and
// is to be retried. Any other error is a fault of the storage; the queue
// retries it too.
func (p *Postman) Deliver(ctx context.Context, id int64, attempt int) error {
	m, err := p.store.Messages().ToSend(ctx, MessageByIDParams{ID: id})
	if errors.Is(err, ErrNotFound) {
		return nil // its candidate was deleted
	}
	if err != nil {
		return err
	}
	if m.Status != MessageQueued {
		return nil // cancelled, or recorded already
	}
	return p.attempt(ctx, p.Mail(m), id, attempt, func(ctx context.Context, a MessageAttempt) error {
		return p.recordMessage(ctx, m, a)
	})
}

// recordMessage stores the outcome a of an attempt of message m and, when
// it is final (sent or failed), logs it in the same transaction as the
// server's own act: no user, token or address.
func (p *Postman) recordMessage(ctx context.Context, m Message, a MessageAttempt) error {
	return p.store.Write(ctx, func(tx Tx) error {
		changed, err := tx.Messages().RecordAttempt(ctx, a)
		if err != nil || !changed {
			return err
		}
		changes := map[string]any{"message_id": m.ID}
		var action string
		switch a.Status {
		case MessageSent:
			action = ActionCandidateMessageSent
		case MessageFailed:
			action, changes["error"] = ActionCandidateMessageFailed, a.Error
		default:
			return nil
		}
		return tx.Activity().Insert(ctx, Activity{TeamID: m.TeamID, JobID: m.JobID, Action: action,
			SubjectType: SubjectCandidate, SubjectID: m.CandidateID, Changes: mustJSON(changes), CreatedAt: a.At})
	})
}

// InvitationMail is the mail of invitation mail m: its text, and its
// calendar object both as the text's alternative, which calendar clients
// show as an invitation, and attached as invite.ics; the same on every
// attempt.
func (p *Postman) InvitationMail(m InvitationMail) Mail {
	method := "text/calendar; method=" + m.Method // the mailer adds the charset, UTF-8
	return Mail{
		MessageID: InvitationMailID(m, p.mail.From),
		From:      p.mail.From,
		To:        &mail.Address{Name: m.To.Name, Address: m.To.Email},
		Subject:   m.Subject,
		Date:      now(p.clock),
		Body:      m.Body,
		Parts: []MailPart{
			{ContentType: method, Content: m.Calendar},
			{ContentType: "application/ics", Filename: "invite.ics", Content: m.Calendar},
		},
	}
}

// DeliverInvitation makes attempt number attempt (from 1) of invitation
// mail id, as Deliver does a message's: on the same schedule, with the
// same reading of the server's replies.
func (p *Postman) DeliverInvitation(ctx context.Context, id int64, attempt int) error {
	m, err := p.store.Invitations().ToSend(ctx, InvitationByIDParams{ID: id})
	if errors.Is(err, ErrNotFound) {
		return nil // its interview was deleted
	}
	if err != nil {
		return err
	}
	if m.Status != MessageQueued {
		return nil // recorded already
	}
	return p.attempt(ctx, p.InvitationMail(m), id, attempt, p.store.Invitations().RecordAttempt)
}

// attempt sends out, the mail of id, and has record store the outcome: an
// error wrapping ErrMailFailed when the attempt is to be retried.
func (p *Postman) attempt(ctx context.Context, out Mail, id int64, attempt int,
	record func(context.Context, MessageAttempt) error) error {
	actx, cancel := context.WithTimeout(ctx, MailTimeout)
	reply := p.mail.Mailer.Send(actx, out)
	cancel()
	rec := MessageAttempt{MessageID: id, Attempt: attempt, Status: MessageSent, At: now(p.clock)}
	if reply.Sent() {
		return record(ctx, rec)
	}
	rec.Error = mailError(reply)
	_, retry := p.RetryAfter(attempt)
	if reply.Permanent() || !retry {
		rec.Status = MessageFailed
		return record(ctx, rec)
	}
	rec.Status = MessageQueued
	if err := record(ctx, rec); err != nil {
		return err
	}
	return fmt.Errorf("%w: %s", ErrMailFailed, rec.Error)
}

// mailError is the last_error of a failed attempt.
func mailError(r MailReply) string {
	msg := "The mail was not sent."
	if r.Err != nil {
		msg = r.Err.Error()
	}
	if r.Code != 0 && !strings.Contains(msg, fmt.Sprint(r.Code)) {
		msg = fmt.Sprintf("%d %s", r.Code, msg)
	}
	return msg
}
