package pipelinestore

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// An erasure (privacy.md) rewrites a candidate's row, deletes or empties
// the rows that hold its person's data, and deletes the River jobs that
// would send or carry them, in the transaction of the erasure. Webhook
// messages store only the ids of an entry and a webhook: each delivery
// renders the entry as it reads then, erased values included, so no
// webhook payload holding the person is stored.

// personFrom is a team's candidates c with their jobs j.
const personFrom = `
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE j.team_id = $1 AND c.email_fold = $2`

var (
	qPerson            = prepared(`SELECT ` + candidateColumns + personFrom + ` ORDER BY c.id`)
	qPersonForErasure  = preparedLockingRead(`SELECT `+candidateColumns+personFrom+` AND c.erased_at IS NULL ORDER BY c.id`, ` FOR NO KEY UPDATE OF c`)
	qCandidatesErasePG = `SELECT ` + candidateColumns + ` FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE c.erased_at IS NULL AND ` + idsIn(true, "c.id", 1) + ` ORDER BY c.id FOR NO KEY UPDATE OF c`
	qCandidatesEraseSQLite = preparedSQLite(`SELECT ` + candidateColumns + ` FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE c.erased_at IS NULL AND ` + idsIn(false, "c.id", 1) + ` ORDER BY c.id`)
	qRatings = prepared(`SELECT u.id, u.name, r.value FROM ratings AS r JOIN users AS u ON u.id = r.user_id
WHERE r.candidate_id = $1 ORDER BY u.id`)

	qEraseCandidate = prepared(`UPDATE candidates SET name = $1, name_fold = $2, email = $3, email_fold = $4, resume_url = '',
	erased_at = $5, updated_at = $5
WHERE id = $6`)
	qEraseNotes = prepared(`DELETE FROM notes WHERE candidate_id = $1`)
	// The candidate's documents, each deleted as RemoveDocument deletes one.
	qCandidateDocuments = prepared(`SELECT id FROM documents WHERE candidate_id = $1`)
	qEraseRatings       = prepared(`DELETE FROM ratings WHERE candidate_id = $1`)
	qEraseMessages      = prepared(`UPDATE messages SET recipient = '', subject = '', body = '', last_error = NULL,
	status = CASE WHEN status = 'queued' THEN 'cancelled' ELSE status END
WHERE candidate_id = $1`)
	qEraseInvitations = prepared(`DELETE FROM invitation_mails
WHERE interview_id IN (SELECT i.id FROM interviews AS i WHERE i.candidate_id = $1)`)
	// The River jobs of a candidate's messages and invitation mails,
	// whatever their state: a finished job's row may keep errors naming
	// the recipient.
	qEraseMessageJobsPG = `DELETE FROM river_job WHERE kind = 'pipeline_message'
	AND (args->>'message_id')::bigint IN (SELECT m.id FROM messages AS m WHERE m.candidate_id = $1)`
	qEraseInvitationJobsPG = `DELETE FROM river_job WHERE kind = 'pipeline_invitation'
	AND (args->>'invitation_mail_id')::bigint IN (SELECT im.id FROM invitation_mails AS im
		JOIN interviews AS i ON i.id = im.interview_id WHERE i.candidate_id = $1)`
	qEraseMessageJobsSQLite = preparedSQLite(`DELETE FROM river_job WHERE kind = 'pipeline_message'
	AND json_extract(args, '$.message_id') IN (SELECT m.id FROM messages AS m WHERE m.candidate_id = $1)`)
	qEraseInvitationJobsSQLite = preparedSQLite(`DELETE FROM river_job WHERE kind = 'pipeline_invitation'
	AND json_extract(args, '$.invitation_mail_id') IN (SELECT im.id FROM invitation_mails AS im
		JOIN interviews AS i ON i.id = im.interview_id WHERE i.candidate_id = $1)`)

	qInterviewsToCancel = preparedLockingRead(`SELECT `+interviewColumns+interviewFrom+`
WHERE i.candidate_id = $1 AND i.status = 'scheduled' AND i.ends_at > $2 ORDER BY i.starts_at, i.id`, ` FOR NO KEY UPDATE OF i`)
	// Two reads of activity_subject_idx: as one OR, PostgreSQL reads
	// every interview's entries and filters them.
	qCandidateEntries = prepared(`SELECT id, team_id, job_id, user_id, token_id, ip, action, subject_type, subject_id, changes, created_at
FROM activity WHERE subject_type = 'candidate' AND subject_id = $1
UNION ALL
SELECT id, team_id, job_id, user_id, token_id, ip, action, subject_type, subject_id, changes, created_at
FROM activity WHERE subject_type = 'interview' AND subject_id IN (SELECT i.id FROM interviews AS i WHERE i.candidate_id = $1)
ORDER BY id`)
	// The reasons of the entries about a candidate: its own, its
	// interviews' and the proposals' about it.
	qEraseEntryReasons = prepared(`UPDATE activity SET reason = '` + pipeline.ErasedValue + `'
WHERE reason IS NOT NULL AND (
	(subject_type = 'candidate' AND subject_id = $1)
	OR (subject_type = 'interview' AND subject_id IN (SELECT i.id FROM interviews AS i WHERE i.candidate_id = $1))
	OR (subject_type = 'proposal' AND subject_id IN (SELECT p.id FROM proposals AS p WHERE p.candidate_id = $1)))`)
	qSetActivityChanges  = prepared(`UPDATE activity SET changes = $1 WHERE id = $2`)
	qIdempotencyRecords  = prepared(`SELECT team_id, key, user_id, request, result, created_at FROM idempotency_keys WHERE team_id = $1`)
	qSetIdempotencyResul = prepared(`UPDATE idempotency_keys SET result = $1 WHERE team_id = $2 AND key = $3`)
)

// Person returns the candidates of a team with an email, in any letter
// case (by its folded copy).
func (db *DB) Person(ctx context.Context, teamID int64, email string) ([]pipeline.Candidate, error) {
	return candidates(ctx, db.read(), qPerson, args(teamID, pipeline.Fold(email)))
}

func candidates(ctx context.Context, run runner, query string, a []any) ([]pipeline.Candidate, error) {
	var rows []candidateRow
	if err := run.all(ctx, query, a, &rows); err != nil {
		return nil, formatError(err, "Candidate")
	}
	out := make([]pipeline.Candidate, len(rows))
	for i, r := range rows {
		out[i] = r.toCandidate()
	}
	return out, nil
}

// PersonForErasure returns the candidates of a team with an email that
// are not erased; on PostgreSQL their rows stay locked, so that of two
// erasures of one person the second finds them erased.
func (t *tx) PersonForErasure(ctx context.Context, teamID int64, email string) ([]pipeline.Candidate, error) {
	return candidates(ctx, t.run, t.lock(qPersonForErasure), args(teamID, pipeline.Fold(email)))
}

// CandidatesForErasure returns those of ids not erased, locked on
// PostgreSQL.
func (t *tx) CandidatesForErasure(ctx context.Context, ids []int64) ([]pipeline.Candidate, error) {
	return candidates(ctx, t.run, pick(t.pg, qCandidatesErasePG, qCandidatesEraseSQLite), args(jsonIDs(ids)))
}

// Ratings returns a candidate's ratings with their users.
func (db *DB) Ratings(ctx context.Context, candidateID int64) ([]pipeline.UserRating, error) {
	var rows []struct {
		ID    int64  `bun:"id"`
		Name  string `bun:"name"`
		Value string `bun:"value"`
	}
	if err := db.read().all(ctx, qRatings, args(candidateID), &rows); err != nil {
		return nil, formatError(err, "Rating")
	}
	out := make([]pipeline.UserRating, len(rows))
	for i, r := range rows {
		out[i] = pipeline.UserRating{User: pipeline.User{ID: r.ID, Name: r.Name}, Value: pipeline.RatingValue(r.Value)}
	}
	return out, nil
}

// CandidateActivity returns the entries about the candidates, with their
// actors, by id.
func (db *DB) CandidateActivity(ctx context.Context, candidateIDs []int64) ([]pipeline.FeedEntry, error) {
	pg := db.dialect == DialectPostgres
	query := `SELECT ` + feedColumns(pg) + ` FROM activity AS a JOIN users AS u ON u.id = a.user_id
WHERE a.subject_type = 'candidate' AND ` + idsIn(pg, "a.subject_id", 1) + ` ORDER BY a.id`
	var rows []activityRow
	if err := db.read().all(ctx, query, args(jsonIDs(candidateIDs)), &rows); err != nil {
		return nil, formatError(err, "Activity")
	}
	out := make([]pipeline.FeedEntry, len(rows))
	for i, r := range rows {
		out[i] = r.toFeedEntry()
	}
	return out, nil
}

// EraseCandidate erases a locked candidate and the rows that hold its
// person's data. The River jobs go first, while the rows that name them
// are there.
func (t *tx) EraseCandidate(ctx context.Context, candidateID int64, at time.Time) error {
	email := pipeline.ErasedEmail(candidateID)
	stmts := []struct {
		q string
		a []any
	}{
		{pick(t.pg, qEraseMessageJobsPG, qEraseMessageJobsSQLite), args(candidateID)},
		{pick(t.pg, qEraseInvitationJobsPG, qEraseInvitationJobsSQLite), args(candidateID)},
		{qEraseCandidate, args(pipeline.ErasedName, pipeline.Fold(pipeline.ErasedName), email, pipeline.Fold(email), ts(at), candidateID)},
		{qEraseNotes, args(candidateID)},
		{qEraseRatings, args(candidateID)},
		{qEraseMessages, args(candidateID)},
		{qEraseInvitations, args(candidateID)},
		{qEraseEntryReasons, args(candidateID)},
	}
	for _, s := range stmts {
		if err := t.run.deferred(ctx, s.q, s.a...); err != nil {
			return formatError(err, "Candidate")
		}
	}
	// Documents go whole, bytes, text and filename; bytes in an object
	// store once the erasure has committed.
	var docs []int64
	if err := t.run.all(ctx, qCandidateDocuments, args(candidateID), &docs); err != nil {
		return formatError(err, "Document")
	}
	for _, id := range docs {
		if err := t.DeleteDocument(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// InterviewsToCancel returns a candidate's scheduled interviews that end
// after at, with their interviewers, locked on PostgreSQL.
func (t *tx) InterviewsToCancel(ctx context.Context, candidateID int64, at time.Time) ([]pipeline.Interview, error) {
	var rows []interviewRow
	if err := t.run.all(ctx, t.lock(qInterviewsToCancel), args(candidateID, ts(at)), &rows); err != nil {
		return nil, formatError(err, "Interview")
	}
	ivs := make([]pipeline.Interview, len(rows))
	for i, r := range rows {
		ivs[i] = r.toInterview()
	}
	return ivs, withInterviewers(ctx, t.run, ivs)
}

// CandidateEntries returns the entries about a candidate and about its
// interviews.
func (t *tx) CandidateEntries(ctx context.Context, candidateID int64) ([]pipeline.Activity, error) {
	var rows []activityRow
	if err := t.run.all(ctx, qCandidateEntries, args(candidateID), &rows); err != nil {
		return nil, formatError(err, "Activity")
	}
	out := make([]pipeline.Activity, len(rows))
	for i, r := range rows {
		out[i] = r.toActivity()
	}
	return out, nil
}

// SetActivityChanges replaces the changes of an entry.
func (t *tx) SetActivityChanges(ctx context.Context, id int64, changes []byte) error {
	return formatError(t.run.deferred(ctx, qSetActivityChanges, string(changes), id), "Activity")
}

// IdempotencyRecords returns the records of a team's keys, expired ones
// included: they hold what they held until the purge.
func (t *tx) IdempotencyRecords(ctx context.Context, teamID int64) ([]pipeline.IdempotencyRecord, error) {
	var rows []struct {
		TeamID    int64     `bun:"team_id"`
		Key       string    `bun:"key"`
		UserID    int64     `bun:"user_id"`
		Request   string    `bun:"request"`
		Result    []byte    `bun:"result"`
		CreatedAt time.Time `bun:"created_at"`
	}
	if err := t.run.all(ctx, qIdempotencyRecords, args(teamID), &rows); err != nil {
		return nil, formatError(err, "Idempotency key")
	}
	out := make([]pipeline.IdempotencyRecord, len(rows))
	for i, r := range rows {
		out[i] = pipeline.IdempotencyRecord{TeamID: r.TeamID, Key: r.Key, UserID: r.UserID, Request: r.Request, Result: r.Result,
			CreatedAt: r.CreatedAt.UTC()}
	}
	return out, nil
}

// SetIdempotencyResult replaces the stored result of a team's key.
func (t *tx) SetIdempotencyResult(ctx context.Context, teamID int64, key string, result []byte) error {
	return formatError(t.run.deferred(ctx, qSetIdempotencyResul, result, teamID, key), "Idempotency key")
}

// erasedTables are the tables an erasure rewrites or deletes from, which
// PostgreSQL vacuums after it.
var erasedTables = []string{"candidates", "candidate_search", "notes", "ratings", "messages", "invitation_mails",
	"interviews", "activity", "idempotency_keys", "river_job"}

// Scrub makes the rows an erasure changed unreadable in the files: on
// SQLite, with secure_delete on, a checkpoint that writes the erased
// pages back into the database file and truncates the WAL; on
// PostgreSQL a VACUUM of the tables erasures touch, which frees the dead
// versions of their rows. Each runs on its own, outside any transaction.
func (db *DB) Scrub(ctx context.Context) {
	if db.dialect == DialectPostgres {
		// VACUUM runs outside a transaction, so not on the store's own
		// pool, whose connections send their settings in front of each
		// statement: on a connection that sets them when it opens.
		var err error
		if db.dsn == "" {
			_, err = db.w.bun.DB.ExecContext(ctx, `VACUUM `+strings.Join(erasedTables, ", "))
		} else {
			conn := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(db.dsn)))
			_, err = conn.ExecContext(ctx, `VACUUM `+strings.Join(erasedTables, ", "))
			err = errors.Join(err, conn.Close())
		}
		if err != nil {
			slog.WarnContext(ctx, "pipelinestore: vacuum after an erasure", "error", err)
		}
		return
	}
	if _, err := db.w.bun.DB.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		slog.WarnContext(ctx, "pipelinestore: checkpoint after an erasure", "error", err)
	}
}
