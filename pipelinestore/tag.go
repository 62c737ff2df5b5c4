package pipelinestore

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// tagStatements are the statements of a team's tags (sql/common/tag.sql),
// embedded in statements.
type tagStatements struct {
	InsertTag    string
	TagNameTaken string
	TagsCount    string
	TeamTags     string
	Tag          string
	RenameTag    string
	DeleteTag    string

	CandidateTags string
	PutTag        string
	TakeTag       string
}

// tagRow is a tag as its table holds it.
type tagRow struct {
	ID        int64     `bun:"id"`
	TeamID    int64     `bun:"team_id"`
	Name      string    `bun:"name"`
	CreatedAt time.Time `bun:"created_at"`
}

func (r tagRow) toTag() pipeline.Tag {
	return pipeline.Tag{ID: r.ID, TeamID: r.TeamID, Name: r.Name, CreatedAt: r.CreatedAt.UTC()}
}

// tagStore is the DB's TagStore.
type tagStore struct{ *DB }

// Tags reads a team's tags.
func (db *DB) Tags() pipeline.TagStore { return tagStore{db} }

// List returns every tag of a team, oldest first (ids follow creation).
func (db tagStore) List(ctx context.Context, p pipeline.TeamTagsParams) ([]pipeline.Tag, error) {
	var rows []tagRow
	if err := db.read().all(ctx, db.q.TeamTags, args(p.TeamID), &rows); err != nil {
		return nil, formatError(err, "Tag")
	}
	out := make([]pipeline.Tag, len(rows))
	for i, r := range rows {
		out[i] = r.toTag()
	}
	return out, nil
}

// tagTx is a transaction's TagTx.
type tagTx struct{ *tx }

// Tags writes a team's tags.
func (t *tx) Tags() pipeline.TagTx { return tagTx{t} }

// Insert stores a tag, with its name folded, and returns it with its id.
func (t tagTx) Insert(ctx context.Context, tag pipeline.Tag) (pipeline.Tag, error) {
	tag.CreatedAt = ts(tag.CreatedAt)
	err := t.run.get(ctx, t.q.InsertTag, args(tag.TeamID, tag.Name, pipeline.Fold(tag.Name), tag.CreatedAt), &tag.ID)
	return tag, formatError(err, "Tag")
}

// NameTaken reports whether a tag of the team other than p.Except has the
// name, in any letter case.
func (t tagTx) NameTaken(ctx context.Context, p pipeline.TagNameParams) (bool, error) {
	var taken int
	if err := t.run.get(ctx, t.q.TagNameTaken, args(p.TeamID, pipeline.Fold(p.Name), p.Except), &taken); err != nil {
		return false, formatError(err, "Tag")
	}
	return taken == 1, nil
}

// Count returns how many tags the team has.
func (t tagTx) Count(ctx context.Context, p pipeline.TeamTagsParams) (int, error) {
	var n int
	err := t.run.get(ctx, t.q.TagsCount, args(p.TeamID), &n)
	return n, formatError(err, "Tag")
}

// Get returns a tag of a team.
func (t tagTx) Get(ctx context.Context, p pipeline.TagParams) (pipeline.Tag, error) {
	var r tagRow
	if err := t.run.get(ctx, t.q.Tag, args(p.ID, p.TeamID), &r); err != nil {
		return pipeline.Tag{}, formatError(err, "Tag")
	}
	return r.toTag(), nil
}

// Rename stores a tag's new name, folded too.
func (t tagTx) Rename(ctx context.Context, p pipeline.RenameTagParams) error {
	return formatError(t.run.deferred(ctx, t.q.RenameTag, p.ID, p.Name, pipeline.Fold(p.Name)), "Tag")
}

// Delete deletes a tag and, by cascade, takes it off its candidates.
func (t tagTx) Delete(ctx context.Context, p pipeline.DeleteTagParams) error {
	return formatError(t.run.deferred(ctx, t.q.DeleteTag, p.ID), "Tag")
}

// OfCandidate returns the tags a candidate carries, oldest tag first.
func (t tagTx) OfCandidate(ctx context.Context, p pipeline.CandidateTagsParams) ([]pipeline.Tag, error) {
	var rows []tagRow
	if err := t.run.all(ctx, t.q.CandidateTags, args(p.CandidateID), &rows); err != nil {
		return nil, formatError(err, "Tag")
	}
	out := make([]pipeline.Tag, len(rows))
	for i, r := range rows {
		out[i] = r.toTag()
	}
	return out, nil
}

// Put puts a tag on a candidate. It runs at once, not in the batch: a tag
// deleted since it was read fails its foreign key here, as not_found.
func (t tagTx) Put(ctx context.Context, p pipeline.CandidateTagParams) error {
	_, err := t.run.exec(ctx, t.q.PutTag, p.CandidateID, p.TagID, ts(p.At))
	if foreignKeyViolation(err) {
		return pipeline.Errorf(pipeline.ENotFound, "Tag not found.")
	}
	return formatError(err, "Tag")
}

// foreignKeyViolation reports whether err is a foreign key's violation.
func foreignKeyViolation(err error) bool {
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		return pgErr.Field('C') == "23503"
	}
	return err != nil && strings.Contains(err.Error(), "FOREIGN KEY constraint failed")
}

// Take takes a tag off a candidate and reports whether it carried it; it
// runs at once, not in the batch, for its count.
func (t tagTx) Take(ctx context.Context, p pipeline.CandidateTagParams) (bool, error) {
	res, err := t.run.exec(ctx, t.q.TakeTag, p.CandidateID, p.TagID)
	if err != nil {
		return false, formatError(err, "Tag")
	}
	n, err := res.RowsAffected()
	return n > 0, err
}
