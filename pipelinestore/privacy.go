package pipelinestore

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// An erasure (privacy.md) rewrites a candidate's row, deletes or empties
// the rows that hold its person's data, and deletes the River jobs that
// would send or carry them, in the transaction of the erasure. Webhook
// messages store only the ids of an entry and a webhook: each delivery
// renders the entry as it reads then, erased values included, so no
// webhook payload holding the person is stored.

// privacyStore is the DB's PrivacyStore.
type privacyStore struct{ *DB }

// Privacy reads a person's candidates.
func (db *DB) Privacy() pipeline.PrivacyStore { return privacyStore{db} }

// privacyTx is a transaction's PrivacyTx.
type privacyTx struct{ *tx }

// Privacy erases people and finds whom retention erases.
func (t *tx) Privacy() pipeline.PrivacyTx { return privacyTx{t} }

// Person returns the candidates of a team with an email, in any letter
// case (by its folded copy).
func (db privacyStore) Person(ctx context.Context, p pipeline.PersonParams) ([]pipeline.Candidate, error) {
	return candidates(ctx, db.read(), db.q.Person, args(p.TeamID, pipeline.Fold(p.Email)))
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

// LockPerson returns the candidates of a team with an email that are not
// erased; on PostgreSQL their rows stay locked, so that of two erasures of
// one person the second finds them erased, and the record locks of the
// candidates and of their interviews are taken before the rows' (see
// pipeline_lock_candidates).
func (t privacyTx) LockPerson(ctx context.Context, p pipeline.PersonParams) ([]pipeline.Candidate, error) {
	return candidates(ctx, t.run, t.q.PersonForErasureLocked, args(p.TeamID, pipeline.Fold(p.Email)))
}

// List returns a candidate's ratings with their users.
func (db ratingStore) List(ctx context.Context, p pipeline.ListRatingsParams) ([]pipeline.UserRating, error) {
	var rows []struct {
		ID    int64  `bun:"id"`
		Name  string `bun:"name"`
		Value string `bun:"value"`
	}
	if err := db.read().all(ctx, db.q.Ratings, args(p.CandidateID), &rows); err != nil {
		return nil, formatError(err, "Rating")
	}
	out := make([]pipeline.UserRating, len(rows))
	for i, r := range rows {
		out[i] = pipeline.UserRating{User: pipeline.User{ID: r.ID, Name: r.Name}, Value: pipeline.RatingValue(r.Value)}
	}
	return out, nil
}

// Erase erases a locked candidate and the rows that hold its person's
// data. The River jobs go first, while the rows that name them are there.
func (t privacyTx) Erase(ctx context.Context, p pipeline.EraseCandidateParams) error {
	candidateID, at := p.CandidateID, p.At
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
