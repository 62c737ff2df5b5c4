package pipelinestore

import (
	"context"

	"github.com/pipeline-dev/pipeline/pipeline"
)

var qInsertNote = prepared(`INSERT INTO notes (candidate_id, user_id, content, created_at)
VALUES ($1, $2, $3, $4) RETURNING id`)

// InsertNote stores a note and returns it with its id; the author is
// returned as given.
func (t *tx) InsertNote(ctx context.Context, n pipeline.Note) (pipeline.Note, error) {
	n.CreatedAt = ts(n.CreatedAt)
	err := t.run.get(ctx, qInsertNote, args(n.CandidateID, n.Author.ID, n.Content, n.CreatedAt), &n.ID)
	if err != nil {
		return pipeline.Note{}, formatError(err, "Note")
	}
	return n, nil
}
