package pipelinestore

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// messageRow is a message with its job and author, as the queries read it.
type messageRow struct {
	ID          int64      `bun:"id"`
	JobID       int64      `bun:"job_id"`
	CandidateID int64      `bun:"candidate_id"`
	TeamID      int64      `bun:"team_id"`
	Recipient   string     `bun:"recipient"`
	ToName      string     `bun:"to_name"`
	ReplyTo     string     `bun:"reply_to"`
	Subject     string     `bun:"subject"`
	Body        string     `bun:"body"`
	Status      string     `bun:"status"`
	SendAt      time.Time  `bun:"send_at"`
	SentAt      *time.Time `bun:"sent_at"`
	Attempts    int        `bun:"attempts"`
	LastError   *string    `bun:"last_error"`
	CreatedAt   time.Time  `bun:"created_at"`
	AuthorID    int64      `bun:"author_id"`
	AuthorName  string     `bun:"author_name"`

	Total int `bun:"total,scanonly"`
}

func (r messageRow) windowTotal() int { return r.Total }

func (r messageRow) toMessage() pipeline.Message {
	m := pipeline.Message{
		ID: r.ID, JobID: r.JobID, CandidateID: r.CandidateID, TeamID: r.TeamID, To: r.Recipient, ToName: r.ToName, ReplyTo: r.ReplyTo,
		Subject: r.Subject, Body: r.Body, Status: r.Status, SendAt: r.SendAt.UTC(), SentAt: utcPtr(r.SentAt),
		Attempts: r.Attempts, Author: pipeline.User{ID: r.AuthorID, Name: r.AuthorName}, CreatedAt: r.CreatedAt.UTC(),
	}
	if r.LastError != nil {
		m.LastError = *r.LastError
	}
	return m
}

// messageStore is the DB's MessageStore.
type messageStore struct{ *DB }

// Messages reads messages.
func (db *DB) Messages() pipeline.MessageStore { return messageStore{db} }

// messageTx is a transaction's MessageTx.
type messageTx struct{ *tx }

// Messages writes messages.
func (t *tx) Messages() pipeline.MessageTx { return messageTx{t} }

// Insert stores a message and enqueues its sending, due at its SendAt, in
// the transaction.
func (t messageTx) Insert(ctx context.Context, m pipeline.Message) (pipeline.Message, error) {
	m.SendAt, m.CreatedAt = ts(m.SendAt), ts(m.CreatedAt)
	a := args(m.CandidateID, m.Author.ID, m.To, m.ReplyTo, m.Subject, m.Body, m.Status, m.SendAt, m.CreatedAt)
	if m.ID != 0 {
		// Its id drawn: the insert waits in the batch, and its River job
		// goes with the transaction's others before the commit.
		if err := t.run.deferred(ctx, t.q.InsertMessageWithID, append(a, m.ID)...); err != nil {
			return pipeline.Message{}, formatError(err, "Message")
		}
		t.jobs = append(t.jobs, river.InsertManyParams{Args: messageArgs{MessageID: m.ID}, InsertOpts: messageOpts(m)})
		return m, nil
	}
	if err := t.run.get(ctx, t.q.InsertMessage, a, &m.ID); err != nil {
		return pipeline.Message{}, formatError(err, "Message")
	}
	if err := t.enqueueMessage(ctx, m); err != nil {
		return pipeline.Message{}, formatError(err, "Message")
	}
	return m, nil
}

// Lock returns a message of a candidate, locked.
func (t messageTx) Lock(ctx context.Context, p pipeline.LockMessageParams) (pipeline.Message, error) {
	var r messageRow
	if err := t.run.get(ctx, t.q.MessageForUpdateLocked, args(p.ID, p.CandidateID), &r); err != nil {
		return pipeline.Message{}, formatError(err, "Message")
	}
	return r.toMessage(), nil
}

// Cancel marks a queued message cancelled.
func (t messageTx) Cancel(ctx context.Context, p pipeline.MessageByIDParams) error {
	_, err := t.run.exec(ctx, t.q.CancelMessage, p.ID)
	return formatError(err, "Message")
}

// Requeue queues a message again and enqueues its sending.
func (t messageTx) Requeue(ctx context.Context, m pipeline.Message) error {
	m.SendAt = ts(m.SendAt)
	if _, err := t.run.exec(ctx, t.q.RequeueMessage, m.ID, m.SendAt, m.Attempts); err != nil {
		return formatError(err, "Message")
	}
	return formatError(t.enqueueMessage(ctx, m), "Message")
}

// List returns a page of a candidate's messages, newest first, with the
// count of them all in the same statement; an empty page asks the
// candidate for the count (or not found).
func (db messageStore) List(ctx context.Context, p pipeline.ListMessagesParams) (pipeline.List[pipeline.Message], error) {
	var rows []messageRow
	err := db.read().all(ctx, db.q.MessagesPage, args(p.CandidateID, p.JobID, p.Viewer, pipeline.Offset(p.Page)), &rows)
	if err != nil {
		return pipeline.List[pipeline.Message]{}, formatError(err, "Message")
	}
	list := pageOf(p.Page, rows, messageRow.toMessage)
	if len(rows) > 0 {
		return list, nil
	}
	if err := db.read().get(ctx, db.q.MessagesCount, args(p.CandidateID, p.JobID, p.Viewer), &list.Total); err != nil {
		return pipeline.List[pipeline.Message]{}, formatError(err, "Candidate")
	}
	return list, nil
}

// Get returns a message of a candidate of a job viewer can reach.
func (db messageStore) Get(ctx context.Context, p pipeline.MessageParams) (pipeline.Message, error) {
	var r messageRow
	if err := db.read().get(ctx, db.q.Message, args(p.ID, p.CandidateID, p.JobID, p.Viewer), &r); err != nil {
		return pipeline.Message{}, formatError(err, "Message")
	}
	return r.toMessage(), nil
}

// ToSend returns a message by id, read on the writer so that a cancel
// just committed is seen.
func (db messageStore) ToSend(ctx context.Context, p pipeline.MessageByIDParams) (pipeline.Message, error) {
	var r messageRow
	if err := db.write().get(ctx, db.q.MessageByID, args(p.ID), &r); err != nil {
		return pipeline.Message{}, formatError(err, "Message")
	}
	return r.toMessage(), nil
}

// RecordAttempt stores the outcome of an attempt in the transaction, and
// reports whether it changed the message.
func (t messageTx) RecordAttempt(ctx context.Context, a pipeline.MessageAttempt) (bool, error) {
	lastError, sentAt := attemptValues(a)
	res, err := t.run.exec(ctx, t.q.RecordMessageAttempt, a.MessageID, a.Status, a.Attempt, lastError, sentAt)
	if err != nil {
		return false, formatError(err, "Message")
	}
	n, err := res.RowsAffected()
	return n > 0, formatError(err, "Message")
}

// attemptValues are the error (none: NULL) and, once sent, the time of
// the outcome a, as the records of attempts store them.
func attemptValues(a pipeline.MessageAttempt) (lastError *string, sentAt *time.Time) {
	if a.Error != "" {
		lastError = &a.Error
	}
	if a.Status == pipeline.MessageSent {
		at := ts(a.At)
		sentAt = &at
	}
	return lastError, sentAt
}

// recordAttempt runs query, a message's or an invitation mail's record of
// an attempt, with a's outcome: its status, count, error (none: NULL) and,
// once sent, when.
func (db *DB) recordAttempt(ctx context.Context, query string, a pipeline.MessageAttempt, what string) error {
	lastError, sentAt := attemptValues(a)
	_, err := db.write().exec(ctx, query, a.MessageID, a.Status, a.Attempt, lastError, sentAt)
	return formatError(err, what)
}

// messageQueue is the River queue of messages to candidates.
const messageQueue = "messages"

// messageArgs is a message to send as a River job's arguments.
type messageArgs struct {
	MessageID int64 `json:"message_id"`
}

// Kind names the job kind.
func (messageArgs) Kind() string { return "pipeline_message" }

// InsertOpts puts messages on their queue with the contract's number of
// attempts.
func (messageArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: messageQueue, MaxAttempts: pipeline.MaxMailAttempts}
}

// enqueueMessage inserts the job that sends m, due at its SendAt, after
// the writes waiting in the batch, which River's statements must follow.
// A message due now is queued available, to be taken at once: River
// queues any job given a time as scheduled, past times included, and
// makes it available only when its leader next looks (every 5 s).
func (t *tx) enqueueMessage(ctx context.Context, m pipeline.Message) error {
	if err := t.run.flush(ctx); err != nil {
		return err
	}
	_, err := t.river.InsertTx(ctx, t.run.tx.Tx, messageArgs{MessageID: m.ID}, messageOpts(m))
	return err
}

// messageOpts are the options of m's River job: due at its SendAt.
func messageOpts(m pipeline.Message) *river.InsertOpts {
	var opts river.InsertOpts
	if m.SendAt.After(time.Now()) {
		opts.ScheduledAt = m.SendAt
	}
	return &opts
}

// Postman sends messages: pipeline.Postman.
type Postman interface {
	// Deliver makes attempt number attempt (from 1) of message id; an
	// error asks for another attempt.
	Deliver(ctx context.Context, id int64, attempt int) error
	// DeliverInvitation makes attempt number attempt (from 1) of
	// invitation mail id; an error asks for another attempt.
	DeliverInvitation(ctx context.Context, id int64, attempt int) error
	// RetryAfter is how long to wait after failed attempt number attempt.
	RetryAfter(attempt int) (time.Duration, bool)
	// MaxAttempts is the number of attempts of a message, the first
	// included.
	MaxAttempts() int
}

// mailWorker works River's jobs of one kind of mail (T), each attempt by
// send, on the Postman's schedule.
type mailWorker[T river.JobArgs] struct {
	river.WorkerDefaults[T]
	p    Postman
	send func(ctx context.Context, args T, attempt int) error
}

func (w *mailWorker[T]) Work(ctx context.Context, job *river.Job[T]) error {
	return w.send(ctx, job.Args, job.Attempt)
}

// NextRetry is the Postman's wait after the attempt that failed.
func (w *mailWorker[T]) NextRetry(job *river.Job[T]) time.Time {
	return nextMailAttempt(w.p, job.Attempt)
}

// messageJobTimeout bounds one attempt: the mail's time-out, and the
// reads and writes around it.
const messageJobTimeout = pipeline.MailTimeout + 30*time.Second

func (w *mailWorker[T]) Timeout(*river.Job[T]) time.Duration { return messageJobTimeout }

// addPostman adds the workers and queue of messages and invitation mails to a queue's
// configuration when cfg has a Postman and workers.
func (db *DB) addPostman(workers *river.Workers, queues map[string]river.QueueConfig, cfg DeliveryConfig) error {
	if cfg.Postman == nil || cfg.Workers == 0 {
		return nil
	}
	// A message is queued for the contract's number of attempts: a
	// longer schedule would promise attempts that never come.
	if n := cfg.Postman.MaxAttempts(); n > pipeline.MaxMailAttempts {
		return fmt.Errorf("pipelinestore: a mail schedule of %d attempts exceeds the %d a message is queued for", n, pipeline.MaxMailAttempts)
	}
	p := cfg.Postman
	river.AddWorker(workers, &mailWorker[messageArgs]{p: p, send: func(ctx context.Context, a messageArgs, attempt int) error {
		return p.Deliver(ctx, a.MessageID, attempt)
	}})
	river.AddWorker(workers, &mailWorker[invitationArgs]{p: p, send: func(ctx context.Context, a invitationArgs, attempt int) error {
		return p.DeliverInvitation(ctx, a.InvitationMailID, attempt)
	}})
	river.AddWorker(workers, &mailWorker[invitationPlaceArgs]{p: p, send: func(ctx context.Context, a invitationPlaceArgs, attempt int) error {
		return db.deliverInvitationAt(ctx, p, a, attempt)
	}})
	queues[messageQueue] = river.QueueConfig{MaxWorkers: cfg.Workers}
	return nil
}

// nextMailAttempt is when a mail's next attempt is due after attempt
// failed: the Postman's wait, or the schedule's last past its end.
func nextMailAttempt(p Postman, attempt int) time.Time {
	wait, ok := p.RetryAfter(attempt)
	if !ok {
		wait = pipeline.MailRetrySchedule[len(pipeline.MailRetrySchedule)-1]
	}
	return time.Now().Add(wait)
}
