package pipelinestore

import (
	"context"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// noteStore is the DB's NoteStore.
type noteStore struct{ *DB }

// Notes reads notes.
func (db *DB) Notes() pipeline.NoteStore { return noteStore{db} }

// noteTx is a transaction's NoteTx.
type noteTx struct{ *tx }

// Notes writes notes.
func (t *tx) Notes() pipeline.NoteTx { return noteTx{t} }

// Insert stores a note and returns it with its id; the author is returned
// as given.
func (t noteTx) Insert(ctx context.Context, n pipeline.Note) (pipeline.Note, error) {
	n.CreatedAt = ts(n.CreatedAt)
	err := t.run.get(ctx, t.q.InsertNote, args(n.CandidateID, n.Author.ID, n.Content, n.CreatedAt), &n.ID)
	if err != nil {
		return pipeline.Note{}, formatError(err, "Note")
	}
	return n, nil
}

// noteListRow is a note with its author, as List reads it.
type noteListRow struct {
	ID          int64     `bun:"id"`
	CandidateID int64     `bun:"candidate_id"`
	Content     string    `bun:"content"`
	CreatedAt   time.Time `bun:"created_at"`
	AuthorID    int64     `bun:"author_id"`
	AuthorName  string    `bun:"author_name"`
	Total       int       `bun:"total"`
}

func (r noteListRow) windowTotal() int { return r.Total }

func (r noteListRow) toNote() pipeline.Note {
	return pipeline.Note{
		ID: r.ID, CandidateID: r.CandidateID, Content: r.Content,
		Author: pipeline.User{ID: r.AuthorID, Name: r.AuthorName}, CreatedAt: r.CreatedAt.UTC(),
	}
}

// List returns a page of the notes of a candidate of a job viewer can
// reach, newest first, with the count of them all in the same statement;
// an empty page asks the candidate for its count (or not found).
func (db noteStore) List(ctx context.Context, p pipeline.ListNotesParams) (pipeline.List[pipeline.Note], error) {
	viewer, jobID, candidateID, page := p.Viewer, p.JobID, p.CandidateID, p.Page
	var rows []noteListRow
	err := db.read().all(ctx, db.q.NotesPage, args(candidateID, jobID, viewer, pipeline.PageSize, pipeline.Offset(page)), &rows)
	if err != nil {
		return pipeline.List[pipeline.Note]{}, formatError(err, "Note")
	}
	list := pageOf(page, rows, noteListRow.toNote)
	if len(rows) > 0 {
		return list, nil
	}
	err = db.read().get(ctx, db.q.NotesCount, args(candidateID, jobID, viewer), &list.Total)
	if err != nil {
		return pipeline.List[pipeline.Note]{}, formatError(err, "Candidate")
	}
	return list, nil
}
