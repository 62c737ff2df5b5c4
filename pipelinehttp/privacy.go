package pipelinehttp

import (
	"context"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// personExport is everything stored about a person (privacy.md §1).
type personExport struct {
	Email      string            `json:"email"`
	Candidates []candidateExport `json:"candidates"`
	Activity   []entryItem       `json:"activity"`
}

// candidateExport is one candidate of the person with what is stored
// about it.
type candidateExport struct {
	Job        jobRef                     `json:"job"`
	Candidate  pipeline.CandidateRecord   `json:"candidate"`
	Notes      []pipeline.NoteRecord      `json:"notes"`
	Ratings    []userRating               `json:"ratings"`
	Messages   []pipeline.MessageRecord   `json:"messages"`
	Interviews []pipeline.InterviewRecord `json:"interviews"`
	Documents  []documentExport           `json:"documents"`
	Proposals  []proposalItem             `json:"proposals"`
}

// documentExport is a document as the API shows it, with its text as
// GET …/documents/{id}/text answers it whole: null unless its text_status
// is ready.
type documentExport struct {
	documentItem
	Text      *string `json:"text"`
	Truncated bool    `json:"truncated"`
}

func newDocumentExport(d pipeline.DocumentWithText) documentExport {
	x := documentExport{documentItem: newDocumentItem(d.Document), Truncated: d.TextTruncated}
	if d.TextStatus == pipeline.TextReady {
		x.Text = &d.Text
	}
	return x
}

// jobRef names a job by id and title.
type jobRef struct {
	ID    int64  `json:"id"`
	Title string `json:"title"`
}

// userRating is a rating with its user.
type userRating struct {
	User   pipeline.Named       `json:"user"`
	Rating pipeline.RatingValue `json:"rating"`
}

func newPersonExport(x pipeline.PersonExport) personExport {
	out := personExport{Email: x.Email, Candidates: []candidateExport{}, Activity: mapItems(x.Activity, newEntryItem)}
	for _, c := range x.Candidates {
		out.Candidates = append(out.Candidates, candidateExport{
			Job:       jobRef{ID: c.Job.ID, Title: c.Job.Title},
			Candidate: c.Candidate.Record(),
			Notes:     mapItems(c.Notes, pipeline.Note.Record),
			Ratings: mapItems(c.Ratings, func(r pipeline.UserRating) userRating {
				return userRating{pipeline.Named{ID: r.User.ID, Name: r.User.Name}, r.Value}
			}),
			Messages:   mapItems(c.Messages, pipeline.Message.Record),
			Interviews: mapItems(c.Interviews, pipeline.Interview.Record),
			Documents:  mapItems(c.Documents, newDocumentExport),
			Proposals:  mapItems(c.Proposals, newProposalItem),
		})
	}
	return out
}

// mapItems renders each of xs, [] for none.
func mapItems[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

var (
	personEmailSchema = described(textSchema(1, pipeline.MaxEmailLength, ""), "The person's email; every candidate of the token's current team with it, in any letter case, is the person.")
)

var exportPersonOperation = newOperation(opSpec[pipeline.PersonQuery, data[personExport]]{
	op: pipeline.OpExportPerson,
	params: []param[pipeline.PersonQuery]{
		textField("email", true, personEmailSchema, func(in *pipeline.PersonQuery) *string { return &in.Email }),
	},
	call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.PersonQuery]) (data[personExport], bool, error) {
		x, err := svc.ExportPerson(ctx, in.domain())
		return data[personExport]{Data: newPersonExport(x)}, false, err
	},
})

var erasePersonOperation = newOperation(opSpec[pipeline.PersonErasure, data[pipeline.ErasureRecord]]{
	op: pipeline.OpErasePerson,
	params: []param[pipeline.PersonErasure]{
		textField("email", true, personEmailSchema, func(in *pipeline.PersonErasure) *string { return &in.Email }),
		requiredReason[pipeline.PersonErasure](),
	},
	call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.PersonErasure]) (data[pipeline.ErasureRecord], bool, error) {
		res, err := svc.ErasePerson(ctx, in.domain())
		return data[pipeline.ErasureRecord]{Data: res.Value.Record()}, res.Replayed, err
	},
})

// privacyOperations are the operations on a person's data, in the order of
// the document.
var privacyOperations = []operation{exportPersonOperation, erasePersonOperation}
