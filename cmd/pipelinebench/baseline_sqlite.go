package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	_ "modernc.org/sqlite" // the driver our store uses

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The connections of the SQLite baseline, as our store opens them: one
// writer that begins every transaction with BEGIN IMMEDIATE, in WAL mode,
// and query-only readers beside it.
const (
	sqliteBusy   = "_pragma=busy_timeout(10000)&"
	sqliteWriter = sqliteBusy + "_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_pragma=secure_delete(1)&_txlock=immediate"
	sqliteReader = sqliteBusy + "_pragma=query_only(1)&_pragma=foreign_keys(1)"
)

// The statements of the SQLite baseline.
const (
	// sqliteTokenSQL reads a token by its hash with its user and the
	// user's current team.
	sqliteTokenSQL = `SELECT t.id, t.user_id, t.scopes, t.approval, t.expires_at, t.revoked_at, t.last_used_at,
	u.name, u.email, tm.id, tm.name
FROM tokens AS t JOIN users AS u ON u.id = t.user_id JOIN teams AS tm ON tm.id = u.current_team_id
WHERE t.hash = $1`
	// sqliteCandidateSQL finds a candidate of a job that the user
	// reaches, and the job's team.
	sqliteCandidateSQL = `SELECT j.team_id FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE c.id = $3 AND c.job_id = $2 AND ` + visibleSQL
	sqliteDocumentSQL = `INSERT INTO documents (candidate_id, user_id, kind, filename, content_type, size, sha256, text_status, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`
	sqliteContentSQL = `INSERT INTO document_contents (document_id, content) VALUES ($1, $2)`
	// sqliteTextJobSQL queues a document's text extraction as ours does
	// through River's SQLite driver: a row of River's job table, on the
	// documents queue, due now, in River's time format.
	sqliteTextJobSQL = `INSERT INTO river_job (args, created_at, kind, max_attempts, metadata, priority, queue, scheduled_at, state, tags)
VALUES (jsonb($1), datetime('now', 'subsec'), 'pipeline_document_text', 5, jsonb('{}'), 1, 'documents', datetime('now', 'subsec'), 'available', jsonb('[]'))`
	sqliteActivitySQL = `INSERT INTO activity (team_id, job_id, user_id, token_id, ip, action, subject_type, subject_id, changes, created_at)
VALUES ($1, $2, $3, $4, $5, $6, 'candidate', $7, $8, $9)`
)

// sqliteBaseline is the baseline on SQLite: Gin and database/sql with the
// SQLite driver our store uses, on the same file as ours. It serves
// GET /api/v1/me and the upload, and per request reads the token by its
// hash on a reader (after the shape and checksum check) and counts the
// request in memory, with the domain's own MemoryLimiter, as ours does
// on SQLite (one process serves a SQLite file). The upload reads the file
// within 10 MiB, judges it by the domain's NewDocument.Validate and, in
// one transaction on the writer, checks the candidate through the
// visibility rule, then stores the documents row, the bytes in
// document_contents, the River job of its text and the activity entry.
type sqliteBaseline struct {
	w, r    *sql.DB
	limiter *pipeline.MemoryLimiter
	limit   int
	log     *slog.Logger
	touched sync.Map // token id → time.Time of the last recorded use
}

// runSQLiteBaseline serves the SQLite baseline on the file at path until
// ctx is cancelled (SIGTERM), then drains.
func runSQLiteBaseline(ctx context.Context, path, addr string, limit int, stderr io.Writer) error {
	w, err := openSQLiteBaseline(ctx, path, sqliteWriter, 1)
	if err != nil {
		return err
	}
	defer w.Close()
	r, err := openSQLiteBaseline(ctx, path, sqliteReader, max(4, runtime.GOMAXPROCS(0)))
	if err != nil {
		return err
	}
	defer r.Close()
	b := &sqliteBaseline{w: w, r: r, limiter: pipeline.NewMemoryLimiter(limit), limit: limit,
		log: slog.New(slog.NewJSONHandler(stderr, nil))}
	return serve(ctx, addr, b.routes())
}

// openSQLiteBaseline opens a pool of conns connections to the file at
// path with params, all kept.
func openSQLiteBaseline(ctx context.Context, path, params string, conns int) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?"+params)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxLifetime(0)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("baseline: open %s: %w", path, err)
	}
	return db, nil
}

func (b *sqliteBaseline) routes() http.Handler {
	e := engine(b.log, b.r.PingContext)
	v1 := e.Group("/api/v1", b.guard)
	v1.GET("/me", me)
	v1.POST("/jobs/:job/candidates/:candidate/documents", b.upload)
	return e
}

func (b *sqliteBaseline) serverError(c *gin.Context, err error) {
	b.log.Error("server error", "path", c.Request.URL.Path, "error", err.Error())
	fail(c, http.StatusInternalServerError, "server_error", "Server error.", nil)
}

// guard authenticates the request and counts it, in the API's order: a
// request without an active token is counted against its client address
// and answered 429 while that budget is spent, else 401.
func (b *sqliteBaseline) guard(c *gin.Context) {
	ctx := c.Request.Context()
	now := time.Now().UTC().Truncate(time.Microsecond)
	value := bearer(c.GetHeader("Authorization"))
	var tokenID, userID, teamID int64
	var scopes, approval, userName, userEmail, teamName string
	var expires time.Time
	var revoked, lastUse sql.NullTime
	found := false
	if pipeline.WellFormedToken(value) {
		err := b.r.QueryRowContext(ctx, sqliteTokenSQL, pipeline.HashToken(value)).Scan(
			&tokenID, &userID, &scopes, &approval, &expires, &revoked, &lastUse, &userName, &userEmail, &teamID, &teamName)
		switch {
		case err == nil:
			found = true
		case !errors.Is(err, sql.ErrNoRows):
			b.serverError(c, err)
			return
		}
	}
	active := found && !revoked.Valid && now.Before(expires)
	bucket := "ip:" + c.ClientIP()
	if active {
		bucket = "user:" + strconv.FormatInt(userID, 10)
	}
	q, err := b.limiter.Take(ctx, bucket, now)
	if err != nil {
		b.serverError(c, err)
		return
	}
	c.Header("X-RateLimit-Limit", strconv.Itoa(q.Limit))
	c.Header("X-RateLimit-Remaining", strconv.Itoa(q.Remaining))
	c.Header("X-RateLimit-Reset", strconv.FormatInt(ceilUnix(q.Reset), 10))
	if !q.Allowed {
		wait := int((q.Reset.Sub(now) + time.Second - 1) / time.Second)
		c.Header("Retry-After", strconv.Itoa(min(max(wait, 1), 60)))
		fail(c, http.StatusTooManyRequests, "rate_limited", "Too Many Attempts.", nil)
		return
	}
	if !active {
		fail(c, http.StatusUnauthorized, "unauthenticated", "Unauthenticated.", nil)
		return
	}
	var last *time.Time
	if lastUse.Valid {
		last = &lastUse.Time
	}
	b.touch(ctx, tokenID, last, now)
	cl := &caller{userID: userID, userName: userName, userEmail: userEmail, teamID: teamID, teamName: teamName,
		tokenID: tokenID, ip: c.ClientIP(), approval: []string{}}
	if scopes != "" {
		cl.scopes = strings.Split(scopes, ",")
	}
	if approval != "" {
		cl.approval = strings.Split(approval, ",")
	}
	c.Set(callerKey, cl)
	c.Next()
}

// touch records a token's use at most once a minute per token, as the
// PostgreSQL baseline does.
func (b *sqliteBaseline) touch(ctx context.Context, id int64, last *time.Time, now time.Time) {
	if touchDue(&b.touched, id, last, now) {
		_, _ = b.w.ExecContext(ctx, `UPDATE tokens SET last_used_at = $1 WHERE id = $2`, now, id)
	}
}

// upload serves POST .../candidates/:candidate/documents, unkeyed, as the
// PostgreSQL baseline's upload does, in one transaction on the writer.
func (b *sqliteBaseline) upload(c *gin.Context) {
	cl, ok := scoped(c, pipeline.ScopeCandidatesWrite)
	if !ok {
		return
	}
	name, file, kind, bad, ok := uploadInput(c)
	if !ok {
		return
	}
	ctx := c.Request.Context()
	jobID, candID := pathID(c, "job"), pathID(c, "candidate")
	now := time.Now().UTC().Truncate(time.Microsecond)
	tx, err := b.w.BeginTx(ctx, nil)
	if err != nil {
		b.serverError(c, err)
		return
	}
	defer func() { _ = tx.Rollback() }() // after a commit, nothing
	var teamID int64
	err = tx.QueryRowContext(ctx, sqliteCandidateSQL, cl.userID, jobID, candID).Scan(&teamID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		notFound(c, "Candidate")
		return
	case err != nil:
		b.serverError(c, err)
		return
	case len(bad) > 0:
		invalid(c, bad)
		return
	}
	sum := sha256.Sum256(file)
	d := documentBody{CandidateID: candID, Kind: cmpOr(kind, pipeline.DocumentResume), Filename: pipeline.CleanFilename(name),
		ContentType: pipeline.DetectType(file), Size: int64(len(file)), SHA256: hex.EncodeToString(sum[:]),
		TextStatus: pipeline.TextPending, UploadedBy: named{ID: cl.userID, Name: cl.userName}, CreatedAt: stamp(now)}
	err = tx.QueryRowContext(ctx, sqliteDocumentSQL, candID, cl.userID, d.Kind, d.Filename, d.ContentType, d.Size, d.SHA256,
		d.TextStatus, now).Scan(&d.ID)
	if err == nil {
		_, err = tx.ExecContext(ctx, sqliteContentSQL, d.ID, file)
	}
	if err == nil {
		_, err = tx.ExecContext(ctx, sqliteTextJobSQL, `{"document_id":`+strconv.FormatInt(d.ID, 10)+`}`)
	}
	if err == nil {
		_, err = tx.ExecContext(ctx, sqliteActivitySQL, teamID, jobID, cl.userID, cl.tokenID, cl.ip,
			pipeline.ActionCandidateDocumentAdded, candID, string(encode(map[string]any{"document_id": d.ID})), now)
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		b.serverError(c, err)
		return
	}
	c.Header("Location", "/api/v1/jobs/"+strconv.FormatInt(jobID, 10)+"/candidates/"+strconv.FormatInt(candID, 10)+
		"/documents/"+strconv.FormatInt(d.ID, 10))
	respond(c, http.StatusCreated, envelope[documentBody]{Data: d})
}
