package pipeline

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of a message's fields.
const (
	// MaxSubjectLength is the longest subject, in characters, once trimmed.
	MaxSubjectLength = 200
	// MaxMessageBodyLength is the longest body, in characters.
	MaxMessageBodyLength = 20000
	// MaxSendAhead is how far ahead a message may be scheduled.
	MaxSendAhead = 30 * 24 * time.Hour
)

// sendAtGrace is how far before now a send_at may be and still mean now:
// a client's clock and the server's are never quite together.
const sendAtGrace = time.Minute

// Message statuses: queued, then sent or failed, or cancelled.
const (
	MessageQueued    = "queued"
	MessageSent      = "sent"
	MessageFailed    = "failed"
	MessageCancelled = "cancelled"
)

// MessageStatuses lists the statuses of a message.
var MessageStatuses = []string{MessageQueued, MessageSent, MessageFailed, MessageCancelled}

const (
	msgMailOff     = "Sending email is not configured."
	msgAlreadySent = "The message has already been sent."
	msgNotFailed   = "Only a failed message can be retried."
)

// Message is an email to a candidate, as the API shows it.
type Message struct {
	ID          int64
	JobID       int64
	CandidateID int64
	TeamID      int64  // the team of the job
	To          string // the candidate's email when the message was written
	ToName      string // the candidate's name as it reads now, which the mail's To shows
	ReplyTo     string // the author's email when the message was written
	Subject     string
	Body        string
	Status      string // one of MessageStatuses
	SendAt      time.Time
	SentAt      *time.Time
	Attempts    int
	LastError   string // the last failed attempt's reply or error; "": none
	Author      User   // ID and Name
	CreatedAt   time.Time
}

// NewMessage is the input of SendMessage.
type NewMessage struct {
	Subject string `json:"subject"`           // 1–200 characters once trimmed, no line break
	Body    string `json:"body"`              // plain text, 1–20,000 characters
	SendAt  string `json:"send_at,omitempty"` // RFC 3339 with an offset, not before now, at most 30 days ahead; "": now
	// Idempotency is the key of the call; nil: none.
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *NewMessage) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *NewMessage) SetUnread(err error) { in.Unread = err }

// Validate reports what is wrong with the input at the present time.
func (in NewMessage) Validate() error { return inputVerdict(in.Unread, in.check(time.Now())) }

func (in NewMessage) check(now time.Time) error {
	f := FieldErrors{}
	switch n := utf8.RuneCountInString(strings.TrimSpace(in.Subject)); {
	case !checkText(f, "subject", in.Subject):
	case n == 0:
		f.Add("subject", "The subject field is required.")
	case n > MaxSubjectLength:
		f.Add("subject", "The subject may not be greater than 200 characters.")
	case strings.ContainsAny(in.Subject, "\r\n\u0085\u2028\u2029"):
		f.Add("subject", "The subject may not contain a line break.")
	}
	switch n := utf8.RuneCountInString(in.Body); {
	case !checkText(f, "body", in.Body):
	case strings.TrimSpace(in.Body) == "":
		f.Add("body", "The body field is required.")
	case n > MaxMessageBodyLength:
		f.Add("body", "The body may not be greater than 20000 characters.")
	}
	if checkText(f, "send_at", in.SendAt) && in.SendAt != "" {
		at, err := time.Parse(time.RFC3339, in.SendAt)
		switch {
		case err != nil:
			f.Add("send_at", "The send at must be an RFC 3339 date and time with an offset, such as 2026-01-05T10:00:00Z.")
		case at.Before(now.Add(-sendAtGrace)):
			f.Add("send_at", "The send at may not be in the past.")
		case at.After(now.Add(MaxSendAhead)):
			f.Add("send_at", "The send at may not be more than 30 days ahead.")
		}
	}
	return f.Err()
}

// sendAt is when the message is due: now, or the time asked for.
func (in NewMessage) sendAt(now time.Time) time.Time {
	if in.SendAt == "" {
		return now
	}
	at, _ := time.Parse(time.RFC3339, in.SendAt) // checked
	if at.Before(now) {
		return now // within the grace
	}
	return at.UTC().Truncate(time.Microsecond)
}

// SendMessage writes an email to a candidate and queues it, due at its
// send_at; a queue sends it (see Postman). Scope: messages:send. Errors:
// unauthenticated, insufficient_scope, not_found, validation_failed,
// forbidden (mail is not configured), conflict (idempotency key in flight).
func (s *Service) SendMessage(ctx context.Context, jobID, candidateID int64, in NewMessage) (Result[Message], error) {
	c, err := authorize(ctx, OpSendMessage)
	if err != nil {
		return Result[Message]{}, err
	}
	k, err := takeKey(OpSendMessage, Ref{Job: jobID, Candidate: candidateID}, &in, &in.Idempotency)
	if err != nil {
		return Result[Message]{}, err
	}
	load := func(tx Tx, kc KeyClaim) (LockedCandidate, error) {
		return tx.Candidates().Lock(ctx, LockCandidateParams{Viewer: c.user.ID, JobID: jobID, ID: candidateID, Draw: "message", Claim: kc})
	}
	return write(s, ctx, c, k, load, func(tx Tx, l LockedCandidate) (Message, error) {
		cand, now := l.Candidate, s.now()
		if err := inputVerdict(in.Unread, in.check(now)); err != nil {
			return Message{}, err
		}
		if cand.ErasedAt != nil {
			return Message{}, errErased()
		}
		if s.mail == nil {
			return Message{}, Errorf(EForbidden, msgMailOff)
		}
		m, err := tx.Messages().Insert(ctx, Message{
			ID: l.Drawn, JobID: cand.JobID, CandidateID: cand.ID, TeamID: cand.TeamID, To: cand.Email, ToName: cand.Name, ReplyTo: c.user.Email,
			Subject: strings.TrimSpace(in.Subject), Body: in.Body, Status: MessageQueued,
			SendAt: in.sendAt(now), Author: User{ID: c.user.ID, Name: c.user.Name}, CreatedAt: now,
		})
		if err != nil {
			return Message{}, err
		}
		changes := map[string]any{"message_id": m.ID}
		return m, s.log(ctx, tx, c, cand.TeamID, cand.JobID, ActionCandidateMessaged, SubjectCandidate, cand.ID, changes)
	})
}

// MessageCancellation is the input of CancelMessage: its key alone.
type MessageCancellation struct {
	// Idempotency is the key of the call; nil: none.
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *MessageCancellation) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *MessageCancellation) SetUnread(err error) { in.Unread = err }

// Validate reports what could not be read of the input.
func (in MessageCancellation) Validate() error { return in.Unread }

// CancelMessage cancels a queued message, which is then never sent; a
// cancelled one is returned unchanged. Scope: messages:send. Errors:
// unauthenticated, insufficient_scope, not_found, validation_failed (the
// key), forbidden (the message was sent, or failed), conflict (idempotency
// key in flight).
func (s *Service) CancelMessage(ctx context.Context, jobID, candidateID, id int64, in MessageCancellation) (Result[Message], error) {
	return s.writeMessage(ctx, OpCancelMessage, jobID, candidateID, id, &in, &in.Idempotency, func(tx Tx, m Message) (Message, string, error) {
		switch m.Status {
		case MessageCancelled:
			return m, "", nil
		case MessageSent, MessageFailed:
			return Message{}, "", Errorf(EForbidden, msgAlreadySent)
		}
		m.Status = MessageCancelled
		return m, ActionCandidateMessageCancelled, tx.Messages().Cancel(ctx, MessageByIDParams{ID: m.ID})
	})
}

// writeMessage is the keyed write op on message id to a candidate of a job
// the caller reaches, in the check order: act, given the message locked,
// changes it and names the action to log ("" when nothing changed);
// input, whose Idempotency idem is, is validated first.
func (s *Service) writeMessage(ctx context.Context, op Op, jobID, candidateID, id int64, input interface{ Validate() error },
	idem **Idempotency, act func(Tx, Message) (Message, string, error)) (Result[Message], error) {
	c, err := authorize(ctx, op)
	if err != nil {
		return Result[Message]{}, err
	}
	k, err := takeKey(op, Ref{Job: jobID, Candidate: candidateID, Message: id}, input, idem)
	if err != nil {
		return Result[Message]{}, err
	}
	type target struct {
		cand Candidate
		msg  Message
	}
	load := func(tx Tx, kc KeyClaim) (target, error) {
		cand, err := lockCandidate(ctx, tx, LockCandidateParams{Viewer: c.user.ID, JobID: jobID, ID: candidateID, Claim: kc})
		if err != nil {
			return target{}, err
		}
		m, err := tx.Messages().Lock(ctx, LockMessageParams{CandidateID: cand.ID, ID: id})
		return target{cand, m}, err
	}
	return write(s, ctx, c, k, load, func(tx Tx, t target) (Message, error) {
		if err := input.Validate(); err != nil {
			return Message{}, err
		}
		m, action, err := act(tx, t.msg)
		if err != nil || action == "" {
			return m, err
		}
		changes := map[string]any{"message_id": m.ID}
		return m, s.log(ctx, tx, c, t.cand.TeamID, t.cand.JobID, action, SubjectCandidate, t.cand.ID, changes)
	})
}

// MessageRetry is the input of RetryMessage: its key and reason.
type MessageRetry struct {
	// Idempotency is the key of the call; nil: none.
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *MessageRetry) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *MessageRetry) SetUnread(err error) { in.Unread = err }

// Validate reports what could not be read of the input.
func (in MessageRetry) Validate() error { return in.Unread }

// RetryMessage queues a failed message again, due now, with the same
// Message-ID, once the cause of its failure is fixed; its attempts count
// from 0 again and its last error stays until the next attempt. Scope:
// messages:send. Errors: unauthenticated, insufficient_scope, not_found,
// validation_failed (the key), forbidden (the message is not failed; mail
// is not configured), conflict (idempotency key in flight).
func (s *Service) RetryMessage(ctx context.Context, jobID, candidateID, id int64, in MessageRetry) (Result[Message], error) {
	return s.writeMessage(ctx, OpRetryMessage, jobID, candidateID, id, &in, &in.Idempotency, func(tx Tx, m Message) (Message, string, error) {
		if s.mail == nil {
			return Message{}, "", Errorf(EForbidden, msgMailOff)
		}
		if m.Status != MessageFailed {
			return Message{}, "", Errorf(EForbidden, msgNotFailed)
		}
		m.Status, m.SendAt, m.Attempts = MessageQueued, s.now(), 0
		return m, ActionCandidateMessageRetried, tx.Messages().Requeue(ctx, m)
	})
}

// MessageFilter selects a page of a candidate's messages. The zero value
// selects the first page.
type MessageFilter struct {
	Page int // from 1; 0: the first page
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error
}

// SetUnread sets what a face could not read of the request.
func (in *MessageFilter) SetUnread(err error) { in.Unread = err }

// Validate reports what is wrong with the filter.
func (f MessageFilter) Validate() error {
	bad := FieldErrors{}
	if f.Page < 0 {
		bad.Add("page", msgPage)
	}
	return inputVerdict(f.Unread, bad.Err())
}

// ListMessages returns a page of the messages of a candidate of a job,
// newest first (created_at, then id). Scope: candidates:read. Errors:
// unauthenticated, insufficient_scope, not_found, validation_failed (page).
func (s *Service) ListMessages(ctx context.Context, jobID, candidateID int64, f MessageFilter) (List[Message], error) {
	c, err := authorize(ctx, OpListMessages)
	if err != nil {
		return List[Message]{}, err
	}
	if bad := f.Validate(); bad != nil {
		// Not found comes before invalid.
		if _, err := s.store.Candidates().Get(ctx, CandidateParams{Viewer: c.user.ID, JobID: jobID, ID: candidateID}); err != nil {
			return List[Message]{}, err
		}
		return List[Message]{}, bad
	}
	return s.store.Messages().List(ctx, ListMessagesParams{Viewer: c.user.ID, JobID: jobID, CandidateID: candidateID, Page: max(f.Page, 1)})
}

// GetMessage returns a message of a candidate of a job. Scope:
// candidates:read. Errors: unauthenticated, insufficient_scope, not_found.
func (s *Service) GetMessage(ctx context.Context, jobID, candidateID, id int64) (Message, error) {
	c, err := authorize(ctx, OpGetMessage)
	if err != nil {
		return Message{}, err
	}
	return s.store.Messages().Get(ctx, MessageParams{Viewer: c.user.ID, JobID: jobID, CandidateID: candidateID, ID: id})
}

// The operations on messages.
const (
	OpSendMessage   Op = "send_message"
	OpListMessages  Op = "list_messages"
	OpGetMessage    Op = "get_message"
	OpCancelMessage Op = "cancel_message"
	OpRetryMessage  Op = "retry_message"
)

// messagePath is the path of one message, below /api/v1.
const messagePath = candidatePath + "/messages/{message}"

// messageOps are the rows of opTable for these operations, in the order of
// the API's document.
var messageOps = []opRow{
	{OpSendMessage, opTraits{ScopeMessagesSend, mPost, candidatePath + "/messages", forbids | queues}, runs(onCandidate((*Service).SendMessage), Message.Record), &Words{Title: "Send a message",
		Description: "Emails a candidate from the server's address, Reply-To the token's user, now or at send_at, and returns the queued message (POST .../candidates/{candidate}/messages). " +
			"forbidden when the server has no mail configured. Each call sends one: send an idempotency_key to retry safely."}, Doc{
		Tag: "Messages", Summary: "Send an email to a candidate",
		Description: "Scope: `messages:send`. Queues an email to the candidate's address, from the server's " +
			"`PIPELINE_MAIL_FROM` with `Reply-To` the token's user, due at `send_at` (now when absent). The " +
			"message is queued in the transaction that records it and sent at least once, with the same " +
			"`Message-ID` on every attempt; a temporary failure is retried after 1 min, 5 min, 30 min, 2 h and 6 " +
			"h, a 5xx reply fails it at once. A server without mail configured answers 403 `forbidden`, checked " +
			"after the body. Activity `candidate.messaged`.",
		Success: "The message is queued (or this is the replay of its sending); or, when the token's approval " +
			"policy holds `send_message`, the proposal (see the `Proposed` response).",
		Invalid: "`validation_failed`: `subject` is missing, blank, longer than 200 characters or holds a line " +
			"break, `body` is missing, blank or longer than 20,000 characters, `send_at` is not an RFC 3339 date " +
			"and time with an offset, is in the past or more than 30 days ahead, a text is not valid text, the " +
			"body is not a JSON object, a field has the wrong type or is not taken, or the `Idempotency-Key` is " +
			"invalid or was used for a different request.",
	}},
	{OpListMessages, opTraits{ScopeCandidatesRead, mGet, candidatePath + "/messages", 0}, nil, &Words{Title: "List a candidate's messages", Description: "A page of 15 of the messages sent to a candidate, newest first, each with its status, with links and meta (GET .../candidates/{candidate}/messages)."}, Doc{
		Tag: "Messages", Summary: "List the messages to a candidate",
		Description: "Scope: `candidates:read`. Newest first (`created_at`, then `id`, descending), 15 a page, " +
			"each with its status.",
		Success: "A page of messages.",
		Invalid: invalidPageOrQuery,
	}},
	{OpGetMessage, opTraits{ScopeCandidatesRead, mGet, messagePath, 0}, nil, &Words{Title: "Get a message", Description: "One message to a candidate, with its status: queued, sent, failed or cancelled (GET .../candidates/{candidate}/messages/{message})."}, Doc{
		Tag: "Messages", Summary: "Get a message to a candidate",
		Description: "Scope: `candidates:read`.",
		Success:     "The message.",
	}},
	{OpCancelMessage, opTraits{ScopeMessagesSend, mPost, messagePath + "/cancel", forbids}, runs(onRecord(messageOf, (*Service).CancelMessage), Message.Record), &Words{Title: "Cancel a message", Idempotent: true,
		Description: "Cancels a queued message, which is then never sent, and returns it; a cancelled one is returned unchanged, a sent or failed one is forbidden (POST .../messages/{message}/cancel)."}, Doc{
		Tag: "Messages", Summary: "Cancel a queued message",
		Description: "Scope: `messages:send`. A `queued` message becomes `cancelled` and is never sent (activity " +
			"`candidate.message_cancelled`); a cancelled one answers unchanged; a `sent` or `failed` one answers " +
			"403 `forbidden` (\"The message has already been sent.\"). Its body takes only a `reason`.",
		Success: "The message as it is now.",
		Invalid: invalidReasonOnly,
	}},
	{OpRetryMessage, opTraits{ScopeMessagesSend, mPost, messagePath + "/retry", forbids}, runs(onRecord(messageOf, (*Service).RetryMessage), Message.Record), &Words{Title: "Retry a failed message",
		Description: "Queues a failed message again, due now and with the same Message-ID, once the cause of its failure is fixed, and returns it; a message that is not failed is forbidden (POST .../messages/{message}/retry)."}, Doc{
		Tag: "Messages", Summary: "Retry a failed message",
		Description: "Scope: `messages:send`. A `failed` message is queued again, due now, once the cause of its " +
			"failure is fixed: it keeps its `Message-ID`, its `attempts` count from 0 again and `last_error` " +
			"stays until the next attempt (activity `candidate.message_retried`, `changes` `{\"message_id\": " +
			"12}`). Any other message answers 403 `forbidden` (\"Only a failed message can be retried.\"). A " +
			"failure that no retry can change (a 5xx reply, refused credentials, a server that refuses the TLS " +
			"the URL asks for) fails a message at once; `pipelined mail test --to ADDRESS` tries the settings. " +
			"Its body takes only a `reason`.",
		Success: "The message, queued again.",
		Invalid: invalidReasonOnly,
	}},
}

// MessageStore is what the Service and the Postman read of messages
// outside a write.
type MessageStore interface {
	// List returns a page of the messages of a candidate of a job the
	// viewer can reach, newest first (created_at, then id, descending).
	List(ctx context.Context, p ListMessagesParams) (List[Message], error)
	// Get returns a message of a candidate of a job the viewer can reach.
	Get(ctx context.Context, p MessageParams) (Message, error)
	// ToSend returns a message by id, for its queue, as the last
	// committed write left it (a cancel just committed is seen);
	// not_found when it is gone.
	ToSend(ctx context.Context, p MessageByIDParams) (Message, error)
}

// MessageParams names a message of a candidate of a job, read for a
// viewer.
type MessageParams struct {
	Viewer, JobID, CandidateID, ID int64
}

// ListMessagesParams selects a page of a candidate's messages, read for a
// viewer.
type ListMessagesParams struct {
	Viewer, JobID, CandidateID int64
	Page                       int // from 1
}

// MessageByIDParams names a message by its id alone.
type MessageByIDParams struct {
	ID int64
}

// MessageTx is what a write transaction does to messages. A message it
// changes is one Lock returned.
type MessageTx interface {
	// Insert stores a queued message and returns it with its id (its ID
	// when drawn), and enqueues, in the same transaction, its sending,
	// due at its SendAt.
	Insert(ctx context.Context, m Message) (Message, error)
	// Lock returns a message of a candidate, locked.
	Lock(ctx context.Context, p LockMessageParams) (Message, error)
	// Cancel marks a locked message cancelled if it is still queued; a
	// sent, failed or cancelled one stays as it is. A cancel wins over a
	// send in flight: a retry or a failure reported after it changes
	// nothing (see RecordAttempt).
	Cancel(ctx context.Context, p MessageByIDParams) error
	// Requeue stores a locked message queued again, due at its SendAt,
	// with its attempts, and enqueues, in the same transaction, its
	// sending.
	Requeue(ctx context.Context, m Message) error
	// RecordAttempt stores the outcome of an attempt: its count, error
	// and status, and the time a sent message was sent, and reports
	// whether it changed the message. A retry (status queued) or a
	// failure changes only a queued message. A sent outcome changes the
	// message whatever it has become (a cancel that came while it was
	// being sent, a failure reported before): the mail is out. So a sent
	// message stays sent, and of a cancel and a sent outcome racing, the
	// message ends sent in either order.
	RecordAttempt(ctx context.Context, a MessageAttempt) (bool, error)
}

// LockMessageParams names a message of a candidate, to lock.
type LockMessageParams struct {
	CandidateID, ID int64
}
