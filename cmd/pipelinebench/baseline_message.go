package main

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// messageBody is a message as both servers answer it.
type messageBody struct {
	ID          int64   `json:"id"`
	Object      string  `json:"object"` // "message", as ours tells it from a proposal
	JobID       int64   `json:"job_id"`
	CandidateID int64   `json:"candidate_id"`
	To          string  `json:"to"`
	Subject     string  `json:"subject"`
	Body        string  `json:"body"`
	Status      string  `json:"status"`
	SendAt      string  `json:"send_at"`
	SentAt      *string `json:"sent_at"`
	Attempts    int     `json:"attempts"`
	LastError   *string `json:"last_error"`
	Author      named   `json:"author"`
	CreatedAt   string  `json:"created_at"`
}

// riverJobSQL queues a message's sending as ours does through River: a
// row of River's job table, on the messages queue, due now.
const riverJobSQL = `INSERT INTO river_job (args, kind, max_attempts, priority, queue, scheduled_at, state, metadata, tags)
VALUES ($1, 'pipeline_message', $2, 1, 'messages', $3, 'available', '{}', '{}')`

// message serves POST .../candidates/:candidate/messages, a message due
// now: in one transaction the same checks as ours (the scope, the
// candidate, the key, the input, mail configured), the message, its
// River job, its activity entry and the key's record.
func (b *baseline) message(c *gin.Context) {
	var in pipeline.NewMessage
	w, bad, ok := newScopedWrite(c, http.StatusAccepted, pipeline.ScopeMessagesSend,
		bodyField{name: "subject", kind: "a string", into: &in.Subject},
		bodyField{name: "body", kind: "a string", into: &in.Body},
		bodyField{name: "send_at", kind: "a string", into: &in.SendAt})
	if !ok {
		return
	}
	defer w.rollback()
	if bad["body"] == nil {
		for name, msgs := range pipeline.Fields(in.Validate()) {
			if bad == nil {
				bad = map[string][]string{}
			}
			if _, seen := bad[name]; !seen {
				bad[name] = msgs
			}
		}
	}
	if in.SendAt != "" && bad == nil {
		// The scenario sends messages due now; a schedule is not measured.
		bad = map[string][]string{"send_at": {"The baseline sends messages due now."}}
	}
	var id int64
	err := b.open(c.Request.Context(), w, func(batch *pgx.Batch) {
		if bad == nil {
			batch.Queue(`SELECT nextval(pg_get_serial_sequence('messages', 'id'))`).QueryRow(func(row pgx.Row) error {
				return row.Scan(&id)
			})
		}
	})
	if !w.opened(c, b, err, bad) {
		return
	}
	m := messageBody{ID: id, Object: "message", JobID: w.jobID, CandidateID: w.candID, To: w.cand.Email, Subject: strings.TrimSpace(in.Subject),
		Body: in.Body, Status: pipeline.MessageQueued, SendAt: stamp(w.now), Author: named{ID: w.cl.userID, Name: w.cl.userName},
		CreatedAt: stamp(w.now)}
	var batch pgx.Batch
	batch.Queue(`INSERT INTO messages (id, candidate_id, user_id, recipient, reply_to, subject, body, status, send_at, attempts, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, $9)`, id, w.candID, w.cl.userID, m.To, w.cl.userEmail, m.Subject, m.Body, m.Status, w.now)
	batch.Queue(riverJobSQL, `{"message_id":`+strconv.FormatInt(id, 10)+`}`, pipeline.MaxMailAttempts, w.now)
	w.logActivity(&batch, pipeline.ActionCandidateMessaged, map[string]any{"message_id": id})
	c.Header("Location", "/api/v1/jobs/"+strconv.FormatInt(w.jobID, 10)+"/candidates/"+strconv.FormatInt(w.candID, 10)+
		"/messages/"+strconv.FormatInt(id, 10))
	b.commit(c, w, &batch, http.StatusAccepted, encode(envelope[messageBody]{Data: m}))
}
