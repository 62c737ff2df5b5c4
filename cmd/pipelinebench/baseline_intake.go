package main

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// intakeJobSQL reads, in share mode against a change of its status, the job
// the caller reaches, the stage $3 of it (0: its first), and whether a
// candidate of it has the folded email $4, as ours does.
const intakeJobSQL = `SELECT j.team_id, j.status, s.id, s.name,
	EXISTS (SELECT 1 FROM candidates AS c WHERE c.job_id = j.id AND c.email_fold = $4)
FROM jobs AS j
LEFT JOIN stages AS s ON s.job_id = j.id AND s.id = COALESCE(NULLIF($3::bigint, 0),
	(SELECT f.id FROM stages AS f WHERE f.job_id = j.id ORDER BY f.position LIMIT 1))
WHERE j.id = $2 AND ` + visibleSQL + ` FOR SHARE OF j`

// intakeInput is the body of an intake.
type intakeInput struct {
	name, email, applied, resumeURL string
	stage                           int64
}

// readIntake decodes an intake's body and judges it as ours does: what
// could not be read, then the domain's checks of the fields that were.
func readIntake(raw []byte) (intakeInput, pipeline.NewCandidate, map[string][]string) {
	var in intakeInput
	bad := decodeFields(raw,
		bodyField{name: "name", kind: "a string", into: &in.name},
		bodyField{name: "email", kind: "a string", into: &in.email},
		bodyField{name: "applied", kind: "a string", into: &in.applied},
		bodyField{name: "stage", kind: "an integer", into: &in.stage},
		bodyField{name: "resume_url", kind: "a string", into: &in.resumeURL})
	nc := pipeline.NewCandidate{Name: in.name, Email: in.email, Applied: in.applied, StageID: in.stage, ResumeURL: in.resumeURL}
	if bad["body"] != nil {
		return in, nc, bad
	}
	for name, msgs := range pipeline.Fields(nc.Validate()) {
		if bad == nil {
			bad = map[string][]string{}
		}
		if _, ok := bad[name]; !ok && name != "body" {
			bad[name] = msgs
		}
	}
	return in, nc, bad
}

// intakeRead is what an intake's first round trip found.
type intakeRead struct {
	found, taken bool
	status       string
	stageID      *int64
	stage        *string
	candID       int64
}

// intake serves POST /api/v1/jobs/:job/candidates: in one transaction the
// same checks as ours, the candidate (its id drawn from its sequence in the
// first round trip), its activity entry and the idempotency record.
func (b *baseline) intake(c *gin.Context) {
	w, _, ok := newWrite(c, http.StatusCreated)
	if !ok {
		return
	}
	defer w.rollback()
	in, nc, bad := readIntake(w.raw)
	if w.keyed {
		w.print = pipeline.RequestDigest(pipeline.OpAddCandidate, pipeline.Ref{Job: w.jobID}, &nc)
	}
	email := in.email
	if !pipeline.ValidText(email) {
		email = ""
	}
	var r intakeRead
	err := b.open(c.Request.Context(), w, func(batch *pgx.Batch) {
		batch.Queue(intakeJobSQL, w.cl.userID, w.jobID, max(in.stage, 0), pipeline.Fold(email)).QueryRow(func(row pgx.Row) error {
			err := row.Scan(&w.teamID, &r.status, &r.stageID, &r.stage, &r.taken)
			r.found = err == nil
			return ignoreNoRows(err)
		})
		batch.Queue(`SELECT nextval(pg_get_serial_sequence('candidates', 'id'))`).QueryRow(func(row pgx.Row) error {
			return row.Scan(&r.candID)
		})
	})
	// The write is on a job: its lookup stands where a candidate's would.
	w.locked, w.found = r.found, r.found
	switch {
	case err != nil:
		serverError(c, b, err)
		return
	case !r.found:
		notFound(c, "Job")
		return
	case !w.checks(c):
		return
	case bad != nil:
		invalid(c, bad)
		return
	case r.stageID == nil:
		invalid(c, map[string][]string{"stage": {msgStage}})
		return
	case r.taken:
		invalid(c, map[string][]string{"email": {msgEmailTaken}})
		return
	case r.status == string(pipeline.JobClosed):
		fail(c, http.StatusForbidden, "forbidden", "The job is closed.", nil)
		return
	}
	b.insertCandidate(c, w, in, r)
}

const msgEmailTaken = "The email has already been taken."

// insertCandidate sends the candidate, its activity entry and the key's
// record, commits, and answers 201 with its Location.
func (b *baseline) insertCandidate(c *gin.Context, w *write, in intakeInput, r intakeRead) {
	applied := w.now
	if in.applied != "" {
		applied, _ = time.Parse(time.DateOnly, in.applied) // validated
	}
	k := candidateBody{ID: r.candID, Name: strings.TrimSpace(in.name), Email: in.email, Applied: day(applied),
		Stage: *r.stage, Status: pipeline.CandidateActive, ResumeURL: in.resumeURL}
	var batch pgx.Batch
	batch.Queue(`INSERT INTO candidates (id, job_id, stage_id, name, email, name_fold, email_fold, applied, status,
	resume_url, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)`,
		k.ID, w.jobID, *r.stageID, k.Name, k.Email, pipeline.Fold(k.Name), pipeline.Fold(k.Email), k.Applied, k.Status, k.ResumeURL, w.now)
	changes := map[string]change{
		"name": {After: k.Name}, "email": {After: k.Email}, "applied": {After: k.Applied},
		"stage": {After: k.Stage}, "status": {After: k.Status},
	}
	if k.ResumeURL != "" {
		changes["resume_url"] = change{After: k.ResumeURL}
	}
	w.candID = k.ID
	w.logActivity(&batch, pipeline.ActionCandidateCreated, changes)
	c.Header("Location", "/api/v1/jobs/"+strconv.FormatInt(w.jobID, 10)+"/candidates/"+strconv.FormatInt(k.ID, 10))
	if w.keyed {
		batch.Queue(saveKeySQL, w.cl.teamID, w.key, w.cl.userID, w.print, encode(envelope[candidateBody]{Data: k}), w.now)
	}
	ctx := c.Request.Context()
	err := w.tx.SendBatch(ctx, &batch).Close()
	if err == nil {
		err = w.tx.Commit(ctx)
	}
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && pgErr.ConstraintName == "candidates_job_email_key":
		c.Writer.Header().Del("Location")
		invalid(c, map[string][]string{"email": {msgEmailTaken}})
	case err != nil:
		c.Writer.Header().Del("Location")
		serverError(c, b, err)
	default:
		c.Data(http.StatusCreated, jsonType, encode(envelope[candidateBody]{Data: k}))
	}
}
