package pipelinestore

import (
	"context"
	"strings"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// InsertNote stores a note and returns it with its id; the author is
// returned as given.
func (t *tx) InsertNote(ctx context.Context, n pipeline.Note) (pipeline.Note, error) {
	n.CreatedAt = ts(n.CreatedAt)
	err := t.run.get(ctx, t.q.InsertNote, args(n.CandidateID, n.Author.ID, n.Content, n.CreatedAt), &n.ID)
	if err != nil {
		return pipeline.Note{}, formatError(err, "Note")
	}
	return n, nil
}

// noteListRow is a note with its author, as ListNotes reads it.
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

// visibleArg is the visibility rule of list.go with the viewer as Bun's
// first positional argument (?0), for statements run through Bun.
var visibleArg = strings.ReplaceAll(visible(1), "$1", "?0")

// ListNotes returns a page of the notes of a candidate of a job viewer can
// reach, newest first, with the count of them all in the same statement;
// an empty page asks the candidate for its count (or not found).
func (db *DB) ListNotes(ctx context.Context, viewer, jobID, candidateID int64, page int) (pipeline.List[pipeline.Note], error) {
	var rows []noteListRow
	err := db.r.bun.NewRaw(`SELECT n.id, n.candidate_id, n.content, n.created_at,
	u.id AS author_id, u.name AS author_name, count(*) OVER () AS total
FROM notes AS n
JOIN candidates AS c ON c.id = n.candidate_id
JOIN jobs AS j ON j.id = c.job_id
JOIN users AS u ON u.id = n.user_id
WHERE n.candidate_id = ?1 AND c.job_id = ?2 AND `+visibleArg+`
ORDER BY n.created_at DESC, n.id DESC
LIMIT ?3 OFFSET ?4`, viewer, candidateID, jobID, pipeline.PageSize, pipeline.Offset(page)).Scan(ctx, &rows)
	if err != nil {
		return pipeline.List[pipeline.Note]{}, formatError(err, "Note")
	}
	list := pageOf(page, rows, noteListRow.toNote)
	if len(rows) > 0 {
		return list, nil
	}
	err = db.r.bun.NewRaw(`SELECT c.notes_count FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE c.id = ?1 AND c.job_id = ?2 AND `+visibleArg, viewer, candidateID, jobID).Scan(ctx, &list.Total)
	if err != nil {
		return pipeline.List[pipeline.Note]{}, formatError(err, "Candidate")
	}
	return list, nil
}
