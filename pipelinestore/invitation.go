package pipelinestore

import (
	"context"
	"encoding/json"
	"errors"
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

// invitationMailsJSON is mails of one change of an interview alike
// but for their recipients, as InsertInvitationMails reads them: what
// they share once (the calendar is most of a mail), and each recipient
// with the mail's place.
type invitationMailsJSON struct {
	InterviewID int64                     `json:"interview_id"`
	Sequence    int                       `json:"sequence"`
	Method      string                    `json:"method"`
	Subject     string                    `json:"subject"`
	Body        string                    `json:"body"`
	Calendar    string                    `json:"calendar"`
	Status      string                    `json:"status"`
	CreatedAt   time.Time                 `json:"created_at"`
	To          []invitationRecipientJSON `json:"to"`
}

// invitationRecipientJSON is a recipient of invitationMailsJSON.
type invitationRecipientJSON struct {
	Position      int    `json:"position"`
	Recipient     string `json:"recipient"`
	RecipientName string `json:"recipient_name"`
}

// alike reports whether m is the mail g's recipients get.
func (g *invitationMailsJSON) alike(m pipeline.InvitationMail) bool {
	return g.InterviewID == m.InterviewID && g.Sequence == m.Sequence && g.Method == m.Method && g.Subject == m.Subject &&
		g.Body == m.Body && g.Calendar == string(m.Calendar) && g.Status == m.Status && g.CreatedAt.Equal(ts(m.CreatedAt))
}

// mailChange is a change of an interview whose mails a transaction
// queued: its id and sequence.
type mailChange struct {
	interview int64
	sequence  int
}

// place is the position of the next mail of m's change, from 0, and
// takes it.
func (t *tx) place(m pipeline.InvitationMail) int {
	if t.places == nil {
		t.places = map[mailChange]int{}
	}
	c := mailChange{m.InterviewID, m.Sequence}
	n := t.places[c]
	t.places[c] = n + 1
	return n
}

// invitationStore is the DB's InvitationStore.
type invitationStore struct{ *DB }

// Invitations reads and records invitation mails.
func (db *DB) Invitations() pipeline.InvitationStore { return invitationStore{db} }

// invitationTx is a transaction's InvitationTx.
type invitationTx struct{ *tx }

// Invitations queues invitation mails.
func (t *tx) Invitations() pipeline.InvitationTx { return invitationTx{t} }

// Insert stores invitation mails and enqueues the sending of each, due
// now, in the transaction. Each mail takes the next place (its position)
// among those of its interview's change. On PostgreSQL the mails go in one
// statement, which waits in the batch; their River jobs name each by its
// place, known before the insert, and wait there with it (see
// enqueuePending).
func (t invitationTx) Insert(ctx context.Context, ms []pipeline.InvitationMail) error {
	if len(ms) == 0 {
		return nil
	}
	if t.pg {
		return formatError(t.insertInvitationMailsPG(ctx, ms), "Invitation")
	}
	jobs := make([]river.InsertManyParams, len(ms))
	for i, m := range ms {
		var id int64
		err := t.run.get(ctx, t.q.InsertInvitationMail, args(m.InterviewID, m.Sequence, t.place(m), m.Method, m.To.Email,
			m.To.Name, m.Subject, m.Body, string(m.Calendar), m.Status, ts(m.CreatedAt)), &id)
		if err != nil {
			return formatError(err, "Invitation")
		}
		jobs[i] = river.InsertManyParams{Args: invitationArgs{InvitationMailID: id}}
	}
	_, err := t.river.InsertManyFastTx(ctx, t.run.tx.Tx, jobs)
	return formatError(err, "Invitation")
}

// insertInvitationMailsPG has ms wait in the batch, and their River jobs
// with the transaction's others, which join the batch before it is sent
// (see enqueuePending).
func (t *tx) insertInvitationMailsPG(ctx context.Context, ms []pipeline.InvitationMail) error {
	if t.run.waiting.books {
		// The batch holds an interview's insert or update: it goes first,
		// so that a clash (a 409) is known before the mails' rows and
		// River's insert of their jobs are made, at one round trip more.
		if err := t.run.flush(ctx); err != nil {
			return err
		}
	}
	var groups []invitationMailsJSON // of consecutive mails alike
	for _, m := range ms {
		at := t.place(m)
		if len(groups) == 0 || !groups[len(groups)-1].alike(m) {
			groups = append(groups, invitationMailsJSON{InterviewID: m.InterviewID, Sequence: m.Sequence, Method: m.Method,
				Subject: m.Subject, Body: m.Body, Calendar: string(m.Calendar), Status: m.Status, CreatedAt: ts(m.CreatedAt)})
		}
		g := &groups[len(groups)-1]
		g.To = append(g.To, invitationRecipientJSON{Position: at, Recipient: m.To.Email, RecipientName: m.To.Name})
		t.jobs = append(t.jobs, river.InsertManyParams{Args: invitationPlaceArgs{InterviewID: m.InterviewID, Sequence: m.Sequence,
			Position: at}})
	}
	raw, err := json.Marshal(groups)
	if err != nil {
		return err
	}
	return t.run.deferred(ctx, t.q.InsertInvitationMails, string(raw))
}

// ToSend returns an invitation mail by id, read on the writer.
func (db invitationStore) ToSend(ctx context.Context, p pipeline.InvitationByIDParams) (pipeline.InvitationMail, error) {
	var r invitationMailRow
	if err := db.write().get(ctx, db.q.InvitationMailByID, args(p.ID), &r); err != nil {
		return pipeline.InvitationMail{}, formatError(err, "Invitation")
	}
	return r.toInvitationMail(), nil
}

// RecordAttempt stores the outcome of an attempt of an invitation mail.
func (db invitationStore) RecordAttempt(ctx context.Context, a pipeline.MessageAttempt) error {
	return db.recordAttempt(ctx, db.q.RecordInvitationAttempt, a, "Invitation")
}

// invitationArgs is an invitation mail to send, named by its id, as a
// River job's arguments (SQLite, and the jobs queued before mails had a
// place); it goes on the queue of messages, worked by the same Postman.
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

// invitationPlaceArgs is an invitation mail to send, named by its place
// (PostgreSQL). It is a kind of its own: a server from before places,
// working the same queue during an upgrade, knows no worker for it, so
// River has it tried again later, where with invitationArgs it would read
// no id and finish the job unsent.
type invitationPlaceArgs struct {
	InterviewID int64 `json:"interview_id"`
	Sequence    int   `json:"sequence"`
	Position    int   `json:"position"`
}

// Kind names the job kind.
func (invitationPlaceArgs) Kind() string { return "pipeline_invitation_place" }

// InsertOpts puts invitation mails on the queue of messages with the
// contract's number of attempts.
func (invitationPlaceArgs) InsertOpts() river.InsertOpts { return invitationArgs{}.InsertOpts() }

// deliverInvitationAt has p make attempt number attempt of the
// invitation mail at a's place. A place with no mail is an interview
// deleted since: nothing to send.
func (db *DB) deliverInvitationAt(ctx context.Context, p Postman, a invitationPlaceArgs, attempt int) error {
	var id int64
	err := formatError(db.write().get(ctx, db.q.InvitationMailAt, args(a.InterviewID, a.Sequence, a.Position), &id), "Invitation")
	if errors.Is(err, pipeline.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return p.DeliverInvitation(ctx, id, attempt)
}
