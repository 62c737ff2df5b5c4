package pipelinestore

import (
	"context"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// InsertNote stores a note and returns it with its id; the author is
// returned as given.
func (t *tx) InsertNote(ctx context.Context, n pipeline.Note) (pipeline.Note, error) {
	r := noteRow{CandidateID: n.CandidateID, UserID: n.Author.ID, Content: n.Content, CreatedAt: ts(n.CreatedAt)}
	if _, err := t.idb.NewInsert().Model(&r).Returning("id").Exec(ctx); err != nil {
		return pipeline.Note{}, formatError(err, "Note")
	}
	n.ID, n.CreatedAt = r.ID, r.CreatedAt
	return n, nil
}
