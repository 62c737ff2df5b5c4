package pipelinehttp

import (
	"context"
	"net/url"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// noteOperations are the operations on notes on candidates, in the order of the
// document.
var noteOperations = []operation{
	newOperation(opSpec[pipeline.NewNote, data[pipeline.NoteRecord]]{
		op: pipeline.OpAddNote,
		params: []param[pipeline.NewNote]{
			jobID[pipeline.NewNote](), candidateID[pipeline.NewNote](),
			textField("content", true, described(textSchema(1, pipeline.MaxNoteLength, `\S`), "The note: up to 5,000 characters, not blank."), func(in *pipeline.NewNote) *string { return &in.Content }),
		},
		call: onCandidate((*pipeline.Service).AddNote, pipeline.Note.Record),
	}),
	newOperation(opSpec[pipeline.NoteFilter, list[pipeline.NoteRecord]]{
		op: pipeline.OpListNotes,
		params: []param[pipeline.NoteFilter]{
			jobID[pipeline.NoteFilter](), candidateID[pipeline.NoteFilter](),
			pageParam(pageSchema, func(in *pipeline.NoteFilter) *int { return &in.Page }),
		},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.NoteFilter]) (list[pipeline.NoteRecord], bool, error) {
			l, err := svc.ListNotes(ctx, in.ref.Job, in.ref.Candidate, in.domain())
			return listOf(in.self, url.Values{}, l, pipeline.Note.Record), false, err
		},
	}),
}
