package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The statements of a write transaction. The candidate is locked by a
// statement of its own, then read by the next one, which takes a fresh
// snapshot: a locking read that waited for another writer would see that
// writer's candidate row but not its note, and its join on the stage would
// drop a candidate the other writer had moved.
const (
	lockCandidateSQL = `SELECT c.id FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE c.id = $3 AND c.job_id = $2 AND ` + visibleSQL + ` FOR NO KEY UPDATE OF c`
	readCandidateSQL = `SELECT c.name, c.email, c.applied, c.status, c.resume_url, c.stage_id, s.name, j.team_id,
	(SELECT count(*) FROM notes AS n WHERE n.candidate_id = c.id)
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id JOIN stages AS s ON s.id = c.stage_id
WHERE c.id = $3 AND c.job_id = $2 AND ` + visibleSQL
	keyLockSQL   = `SELECT pg_try_advisory_xact_lock($1)`
	keyRecordSQL = `SELECT user_id, request, result FROM idempotency_keys
WHERE team_id = $1 AND key = $2 AND created_at >= $3`
	saveKeySQL = `INSERT INTO idempotency_keys (team_id, key, user_id, request, result, created_at)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (team_id, key) DO UPDATE SET user_id = EXCLUDED.user_id, request = EXCLUDED.request,
	result = EXCLUDED.result, created_at = EXCLUDED.created_at`
	activitySQL = `INSERT INTO activity (team_id, user_id, token_id, ip, action, subject_type, subject_id, changes, created_at)
VALUES ($1, $2, $3, $4, $5, 'candidate', $6, $7, $8)`
)

// write is one write request on a candidate and what its transaction's
// first batch found.
type write struct {
	cl            *caller
	jobID, candID int64
	raw           []byte    // the body as sent
	now           time.Time // to the microsecond, as stored
	keyed         bool      // an Idempotency-Key header was sent, even an empty one
	key, print    string    // the key and the request's fingerprint
	status        int       // the status of success, which a replay repeats

	what string // the record the path names, for its 404: "Candidate" unless set
	// booking is the interview times the write books, whose clash
	// commit answers; nil: none.
	booking *booking
	// location is the Location header of success; "": none.
	location string
	tx       pgx.Tx
	locked   bool
	found    bool
	cand     candidateBody
	stageID  int64
	teamID   int64 // the job's team
	keyFree  bool
	stored   *storedResponse
}

// storedResponse is a key's record: the baseline stores the body it
// answered as the key's result.
type storedResponse struct {
	userID int64
	print  string
	body   []byte
}

// newWrite reads the body (413 before the scope check, as ours), checks
// the scope and decodes the body's fields, returning what is wrong with
// them (nil: nothing).
func newWrite(c *gin.Context, status int, fields ...bodyField) (*write, map[string][]string, bool) {
	return newScopedWrite(c, status, pipeline.ScopeCandidatesWrite, fields...)
}

// newScopedWrite is newWrite for a write that needs scope.
func newScopedWrite(c *gin.Context, status int, scope pipeline.Scope, fields ...bodyField) (*write, map[string][]string, bool) {
	raw, ok := readBody(c)
	if !ok {
		return nil, nil, false
	}
	cl, ok := scoped(c, scope)
	if !ok {
		return nil, nil, false
	}
	w := &write{
		cl: cl, jobID: pathID(c, "job"), candID: pathID(c, "candidate"), raw: raw, status: status,
		now: time.Now().UTC().Truncate(time.Microsecond),
	}
	if keys, keyed := c.Request.Header["Idempotency-Key"]; keyed {
		w.keyed = true
		if len(keys) > 0 {
			w.key = keys[0]
		}
		w.print = fingerprint(c.Request.URL.Path, w.jobID, w.candID, raw)
	}
	return w, decodeFields(raw, fields...), true
}

// open sends, in one round trip, BEGIN, the candidate's lock and read, the
// key's advisory lock and record lookup, and what more queues.
func (b *baseline) open(ctx context.Context, w *write, more func(*pgx.Batch)) error {
	return b.openOn(ctx, w, w.queueCandidate, more)
}

// openOn is open with the record's lock and read queued by subject, which
// sets w.locked and w.found.
func (b *baseline) openOn(ctx context.Context, w *write, subject, more func(*pgx.Batch)) error {
	var batch pgx.Batch
	batch.BeginTx(pgx.TxOptions{})
	subject(&batch)
	if w.keyed && pipeline.ValidIdempotencyKey(w.key) {
		batch.Queue(keyLockSQL, lockID(b.schema, w.cl.teamID, w.key)).QueryRow(func(row pgx.Row) error {
			return row.Scan(&w.keyFree)
		})
		since := w.now.Add(-pipeline.IdempotencyWindow)
		batch.Queue(keyRecordSQL, w.cl.teamID, w.key, since).QueryRow(func(row pgx.Row) error {
			var s storedResponse
			err := row.Scan(&s.userID, &s.print, &s.body)
			if err == nil {
				w.stored = &s
			}
			return ignoreNoRows(err)
		})
	}
	if more != nil {
		more(&batch)
	}
	br := b.pool.SendBatch(ctx, &batch)
	w.tx = br.Tx()
	return br.Close()
}

// queueCandidate queues the candidate's lock and read.
func (w *write) queueCandidate(batch *pgx.Batch) {
	batch.Queue(lockCandidateSQL, w.cl.userID, w.jobID, w.candID).QueryRow(func(row pgx.Row) error {
		var id int64
		err := row.Scan(&id)
		w.locked = err == nil
		return ignoreNoRows(err)
	})
	batch.Queue(readCandidateSQL, w.cl.userID, w.jobID, w.candID).QueryRow(func(row pgx.Row) error {
		var applied time.Time
		k := &w.cand
		err := row.Scan(&k.Name, &k.Email, &applied, &k.Status, &k.ResumeURL, &w.stageID, &k.Stage, &w.teamID, &k.NotesCount)
		k.ID, k.Applied, w.found = w.candID, day(applied), err == nil
		return ignoreNoRows(err)
	})
}

// rollback ends the transaction unless it was committed.
func (w *write) rollback() {
	if w.tx != nil {
		_ = w.tx.Rollback(context.Background())
	}
}

// checks answers what the API checks before the body, in its order: the
// candidate (404), then the key (422, 409, a replay of the stored response
// or the key of another request). It reports whether the write goes on.
func (w *write) checks(c *gin.Context) bool {
	switch {
	case !w.locked || !w.found:
		notFound(c, cmpOr(w.what, "Candidate"))
	case !w.keyed:
		return true
	case !pipeline.ValidIdempotencyKey(w.key):
		invalid(c, map[string][]string{"Idempotency-Key": {"The idempotency key must be 1 to 255 printable ASCII characters."}})
	case !w.keyFree:
		fail(c, http.StatusConflict, "conflict", "A request with this idempotency key is still being processed.", nil)
	case w.stored == nil:
		return true
	case w.stored.userID != w.cl.userID || w.stored.print != w.print:
		invalid(c, map[string][]string{"Idempotency-Key": {"The idempotency key was already used for a different request."}})
	default:
		c.Header("Idempotent-Replay", "true")
		c.Data(w.status, jsonType, w.stored.body)
		c.Abort()
	}
	return false
}

// opened reports whether a write goes on after its first round trip; it
// has answered already when the trip failed, a check refused the write or
// the body was invalid.
func (w *write) opened(c *gin.Context, b *baseline, err error, bad map[string][]string) bool {
	switch {
	case err != nil:
		serverError(c, b, err)
	case !w.checks(c):
	case bad != nil:
		invalid(c, bad)
	default:
		return true
	}
	return false
}

// commit sends the write's statements and its idempotency record in one
// round trip, commits, and answers with the response it stored (and the
// Location header w.location, when set). A write that books an
// interview's times (w.booking) answers a clash, or a deadlock between two
// bookings, with 409 and the busy times.
func (b *baseline) commit(c *gin.Context, w *write, batch *pgx.Batch, status int, body []byte) {
	ctx := c.Request.Context()
	if w.keyed {
		batch.Queue(saveKeySQL, w.cl.teamID, w.key, w.cl.userID, w.print, body, w.now)
	}
	var err error
	if batch.Len() > 0 {
		err = w.tx.SendBatch(ctx, batch).Close()
	}
	if err == nil {
		err = w.tx.Commit(ctx)
	}
	var pgErr *pgconn.PgError
	switch {
	case w.booking != nil && errors.As(err, &pgErr) && (pgErr.Code == "23P01" || pgErr.Code == "40P01"):
		w.rollback()
		b.booked(c, *w.booking)
	case err != nil:
		serverError(c, b, err)
	default:
		if w.location != "" {
			c.Header("Location", w.location)
		}
		c.Data(status, jsonType, body)
	}
}

// logActivity queues the write's activity entry.
func (w *write) logActivity(batch *pgx.Batch, action string, changes any) {
	batch.Queue(activitySQL, w.teamID, w.cl.userID, w.cl.tokenID, w.cl.ip, action, w.candID, string(encode(changes)), w.now)
}

// lockID is the advisory lock of a team's Idempotency-Key in a schema: the
// same 64-bit FNV-1a hash ours uses, so that the two servers exclude each
// other too.
func lockID(schema string, teamID int64, key string) int64 {
	h := fnv.New64a()
	h.Write([]byte("idempotency:" + schema + ":" + strconv.FormatInt(teamID, 10) + ":"))
	h.Write([]byte(key))
	return int64(h.Sum64())
}

// fingerprint identifies a write for its key as ours does: the digest of
// the operation, its records and its input as the domain reads it.
func fingerprint(path string, jobID, candID int64, raw []byte) string {
	ref := pipeline.Ref{Job: jobID, Candidate: candID}
	switch {
	case strings.HasSuffix(path, "/stage"):
		var body struct{ Stage int64 }
		if json.Unmarshal(raw, &body) == nil {
			return pipeline.RequestDigest(pipeline.OpMoveCandidate, ref, &pipeline.CandidateMove{StageID: body.Stage})
		}
	case strings.HasSuffix(path, "/messages"):
		var body struct{ Subject, Body, SendAt string }
		if json.Unmarshal(raw, &body) == nil {
			return pipeline.RequestDigest(pipeline.OpSendMessage, ref,
				&pipeline.NewMessage{Subject: body.Subject, Body: body.Body, SendAt: body.SendAt})
		}
	case strings.HasSuffix(path, "/notes"):
		var body struct{ Content string }
		if json.Unmarshal(raw, &body) == nil {
			return pipeline.RequestDigest(pipeline.OpAddNote, ref, &pipeline.NewNote{Content: body.Content})
		}
	}
	// A body that does not decode never succeeds, so no record holds it.
	h := sha256.Sum256(raw)
	return hex.EncodeToString(h[:])
}

// change is the before and after of a changed field in an activity entry.
type change struct {
	Before any `json:"before"`
	After  any `json:"after"`
}
