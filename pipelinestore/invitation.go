package pipelinestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/riverqueue/river"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// invitationMailRow is an invitation mail as the queries read it.
type invitationMailRow struct {
	ID            int64     `bun:"id"`
	InterviewID   int64     `bun:"interview_id"`
	Sequence      int       `bun:"sequence"`
	Method        string    `bun:"method"`
	Recipient     string    `bun:"recipient"`
	RecipientName string    `bun:"recipient_name"`
	Subject       string    `bun:"subject"`
	Body          string    `bun:"body"`
	Calendar      string    `bun:"calendar"`
	Status        string    `bun:"status"`
	Attempts      int       `bun:"attempts"`
	LastError     *string   `bun:"last_error"`
	CreatedAt     time.Time `bun:"created_at"`
}

func (r invitationMailRow) toInvitationMail() pipeline.InvitationMail {
	m := pipeline.InvitationMail{
		ID: r.ID, InterviewID: r.InterviewID, Sequence: r.Sequence, Method: r.Method,
		To: pipeline.User{Name: r.RecipientName, Email: r.Recipient}, Subject: r.Subject, Body: r.Body,
		Calendar: []byte(r.Calendar), Status: r.Status, Attempts: r.Attempts, CreatedAt: r.CreatedAt.UTC(),
	}
	if r.LastError != nil {
		m.LastError = *r.LastError
	}
	return m
}

// invitationMailJSON is an invitation mail as InsertInvitationMails
// reads it.
type invitationMailJSON struct {
	InterviewID   int64     `json:"interview_id"`
	Sequence      int       `json:"sequence"`
	Method        string    `json:"method"`
	Recipient     string    `json:"recipient"`
	RecipientName string    `json:"recipient_name"`
	Subject       string    `json:"subject"`
	Body          string    `json:"body"`
	Calendar      string    `json:"calendar"`
	Status        string    `json:"status"`
	CreatedAt     time.Time `json:"created_at"`
}

// InsertInvitationMails stores invitation mails and enqueues the sending
// of each, due now, in the transaction. On PostgreSQL the mails go in one
// statement, which waits in the batch, and their River jobs go with the
// transaction's others before the commit (see enqueuePending).
func (t *tx) InsertInvitationMails(ctx context.Context, ms []pipeline.InvitationMail) error {
	if len(ms) == 0 {
		return nil
	}
	if t.pg {
		return formatError(t.insertInvitationMailsPG(ctx, ms), "Invitation")
	}
	jobs := make([]river.InsertManyParams, len(ms))
	for i, m := range ms {
		var id int64
		err := t.run.get(ctx, t.q.InsertInvitationMail, args(m.InterviewID, m.Sequence, m.Method, m.To.Email, m.To.Name,
			m.Subject, m.Body, string(m.Calendar), m.Status, ts(m.CreatedAt)), &id)
		if err != nil {
			return formatError(err, "Invitation")
		}
		jobs[i] = river.InsertManyParams{Args: invitationArgs{InvitationMailID: id}}
	}
	_, err := t.river.InsertManyFastTx(ctx, t.run.tx.Tx, jobs)
	return formatError(err, "Invitation")
}

// insertInvitationMailsPG stores ms in the batch; once it is sent, their
// ids make their River jobs.
func (t *tx) insertInvitationMailsPG(ctx context.Context, ms []pipeline.InvitationMail) error {
	rows := make([]invitationMailJSON, len(ms))
	for i, m := range ms {
		rows[i] = invitationMailJSON{InterviewID: m.InterviewID, Sequence: m.Sequence, Method: m.Method, Recipient: m.To.Email,
			RecipientName: m.To.Name, Subject: m.Subject, Body: m.Body, Calendar: string(m.Calendar), Status: m.Status,
			CreatedAt: ts(m.CreatedAt)}
	}
	raw, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	scan := func(ctx context.Context, rows *sql.Rows) error {
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			t.jobs = append(t.jobs, river.InsertManyParams{Args: invitationArgs{InvitationMailID: id}})
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return rows.Close()
	}
	return t.run.deferredReturning(ctx, t.q.InsertInvitationMails, scan, string(raw))
}

// InvitationMailToSend returns an invitation mail by id, read on the
// writer.
func (db *DB) InvitationMailToSend(ctx context.Context, id int64) (pipeline.InvitationMail, error) {
	var r invitationMailRow
	if err := db.write().get(ctx, db.q.InvitationMailByID, args(id), &r); err != nil {
		return pipeline.InvitationMail{}, formatError(err, "Invitation")
	}
	return r.toInvitationMail(), nil
}

// RecordInvitationAttempt stores the outcome of an attempt of an
// invitation mail.
func (db *DB) RecordInvitationAttempt(ctx context.Context, a pipeline.MessageAttempt) error {
	return db.recordAttempt(ctx, db.q.RecordInvitationAttempt, a, "Invitation")
}

// invitationArgs is an invitation mail to send as a River job's
// arguments; it goes on the queue of messages, worked by the same
// Postman.
type invitationArgs struct {
	InvitationMailID int64 `json:"invitation_mail_id"`
}

// Kind names the job kind.
func (invitationArgs) Kind() string { return "pipeline_invitation" }

// InsertOpts puts invitation mails on the queue of messages with the
// contract's number of attempts.
func (invitationArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: messageQueue, MaxAttempts: pipeline.MaxMailAttempts}
}

// invitationWorker works River's jobs of invitation mails, on the
// Postman's schedule.
type invitationWorker struct {
	river.WorkerDefaults[invitationArgs]
	p Postman
}

func (w *invitationWorker) Work(ctx context.Context, job *river.Job[invitationArgs]) error {
	return w.p.DeliverInvitation(ctx, job.Args.InvitationMailID, job.Attempt)
}

// NextRetry is the Postman's wait after the attempt that failed.
func (w *invitationWorker) NextRetry(job *river.Job[invitationArgs]) time.Time {
	return nextMailAttempt(w.p, job.Attempt)
}

func (w *invitationWorker) Timeout(*river.Job[invitationArgs]) time.Duration {
	return messageJobTimeout
}
