package pipelinestore

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
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

// Person returns the candidates of a team with an email, in any letter
// case (by its folded copy).
func (db *DB) Person(ctx context.Context, teamID int64, email string) ([]pipeline.Candidate, error) {
	return candidates(ctx, db.read(), db.q.Person, args(teamID, pipeline.Fold(email)))
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
// erasures of one person the second finds them erased, and the record
// locks of the candidates and of their interviews are taken before the
// rows' (see LockInterviewsWithCandidate).
func (t *tx) PersonForErasure(ctx context.Context, teamID int64, email string) ([]pipeline.Candidate, error) {
	return candidates(ctx, t.run, t.q.PersonForErasureLocked, args(teamID, pipeline.Fold(email)))
}

// Ratings returns a candidate's ratings with their users.
func (db *DB) Ratings(ctx context.Context, candidateID int64) ([]pipeline.UserRating, error) {
	var rows []struct {
		ID    int64  `bun:"id"`
		Name  string `bun:"name"`
		Value string `bun:"value"`
	}
	if err := db.read().all(ctx, db.q.Ratings, args(candidateID), &rows); err != nil {
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
	var rows []activityRow
	if err := db.read().all(ctx, db.q.CandidateActivity, args(jsonIDs(candidateIDs)), &rows); err != nil {
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
	if t.pg {
		// Its interviews before anything: a change of one, which mails the
		// candidate, either committed before and its mails go below, or
		// waits and then reads the candidate erased.
		if err := t.run.deferred(ctx, t.q.LockCandidateInterviews, candidateID); err != nil {
			return formatError(err, "Interview")
		}
	}
	email := pipeline.ErasedEmail(candidateID)
	stmts := []struct {
		q string
		a []any
	}{
		{t.q.EraseMessageJobs, args(candidateID)},
		{t.q.EraseInvitationJobs, args(candidateID)},
		{t.q.EraseCandidate, args(pipeline.ErasedName, pipeline.Fold(pipeline.ErasedName), email, pipeline.Fold(email), ts(at), candidateID)},
		{t.q.EraseNotes, args(candidateID)},
		{t.q.EraseRatings, args(candidateID)},
		{t.q.EraseMessages, args(candidateID)},
		{t.q.EraseInvitations, args(candidateID)},
		{t.q.EraseEntryReasons, args(candidateID)},
	}
	for _, s := range stmts {
		if err := t.run.deferred(ctx, s.q, s.a...); err != nil {
			return formatError(err, "Candidate")
		}
	}
	// Documents go whole, bytes, text and filename; bytes in an object
	// store once the erasure has committed.
	var docs []int64
	if err := t.run.all(ctx, t.q.CandidateDocuments, args(candidateID), &docs); err != nil {
		return formatError(err, "Document")
	}
	for _, id := range docs {
		if err := t.Documents().Delete(ctx, pipeline.DocumentByIDParams{ID: id}); err != nil {
			return err
		}
	}
	return nil
}

// CandidateEntries returns the entries about a candidate and about its
// interviews.
func (t *tx) CandidateEntries(ctx context.Context, candidateID int64) ([]pipeline.Activity, error) {
	var rows []activityRow
	if err := t.run.all(ctx, t.q.CandidateEntries, args(candidateID), &rows); err != nil {
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
	return formatError(t.run.deferred(ctx, t.q.SetActivityChanges, string(changes), id), "Activity")
}

// IdempotencyRecords returns the records of a team's keys, expired ones
// included: they hold what they held until the purge.
func (t *tx) IdempotencyRecords(ctx context.Context, teamID int64) ([]pipeline.IdempotencyRecord, error) {
	var rows []struct {
		TeamID      int64     `bun:"team_id"`
		Key         string    `bun:"key"`
		UserID      int64     `bun:"user_id"`
		Request     string    `bun:"request"`
		Result      []byte    `bun:"result"`
		CreatedAt   time.Time `bun:"created_at"`
		CandidateID *int64    `bun:"candidate_id"`
		Op          *string   `bun:"operation"`
	}
	if err := t.run.all(ctx, t.q.IdempotencyRecords, args(teamID), &rows); err != nil {
		return nil, formatError(err, "Idempotency key")
	}
	out := make([]pipeline.IdempotencyRecord, len(rows))
	for i, r := range rows {
		out[i] = pipeline.IdempotencyRecord{TeamID: r.TeamID, Key: r.Key, UserID: r.UserID, Request: r.Request, Result: r.Result,
			CreatedAt: r.CreatedAt.UTC()}
		if r.CandidateID != nil {
			out[i].CandidateID = *r.CandidateID
		}
		if r.Op != nil {
			out[i].Op = pipeline.Op(*r.Op)
		}
	}
	return out, nil
}

// SetIdempotencyResult replaces the stored result of a team's key.
func (t *tx) SetIdempotencyResult(ctx context.Context, teamID int64, key string, result []byte) error {
	return formatError(t.run.deferred(ctx, t.q.SetIdempotencyResul, result, teamID, key), "Idempotency key")
}

// Scrub makes the rows an erasure changed unreadable in the files
// (ScrubErased): on SQLite, with secure_delete on, a checkpoint that
// writes the erased pages back into the database file and truncates the
// WAL; on PostgreSQL a VACUUM of every table an erasure changes, which
// frees the dead versions of their rows. Each runs on its own, outside
// any transaction.
func (db *DB) Scrub(ctx context.Context) {
	if db.dialect == DialectPostgres {
		// VACUUM runs outside a transaction, so not on the store's own
		// pool, whose connections send their settings in front of each
		// statement: on a connection that sets them when it opens.
		var err error
		if db.dsn == "" {
			_, err = db.w.bun.DB.ExecContext(ctx, db.q.ScrubErased)
		} else {
			conn := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(db.dsn)))
			_, err = conn.ExecContext(ctx, db.q.ScrubErased)
			err = errors.Join(err, conn.Close())
		}
		if err != nil {
			slog.WarnContext(ctx, "pipelinestore: vacuum after an erasure", "error", err)
		}
		return
	}
	if _, err := db.w.bun.DB.ExecContext(ctx, db.q.ScrubErased); err != nil {
		slog.WarnContext(ctx, "pipelinestore: checkpoint after an erasure", "error", err)
	}
}
