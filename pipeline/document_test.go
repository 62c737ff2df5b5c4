package pipeline_test

import (
	"context"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// documentProbes call the operations of this file's resource for the tables of
// operations (see probe).
var documentProbes = []operation{
	{pipeline.OpAddDocument, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.AddDocument(ctx, p.ref.Job, p.ref.Candidate, pipeline.NewDocument{Filename: "probe.txt",
			Content: pick(p, []byte("Probe."), []byte{}), Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
	{pipeline.OpListDocuments, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.ListDocuments(ctx, p.ref.Job, p.ref.Candidate, pipeline.DocumentFilter{Page: pick(p, 1, -1)})
		return err
	}},
	{pipeline.OpGetDocument, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.GetDocument(ctx, p.ref.Job, p.ref.Candidate, p.ref.Document)
		return err
	}},
	{pipeline.OpGetDocumentContent, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, _, err := svc.GetDocumentContent(ctx, p.ref.Job, p.ref.Candidate, p.ref.Document)
		return err
	}},
	{pipeline.OpGetDocumentText, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.GetDocumentText(ctx, p.ref.Job, p.ref.Candidate, p.ref.Document, pipeline.TextRange{Offset: pick(p, 0, -1)})
		return err
	}},
	{pipeline.OpRemoveDocument, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.RemoveDocument(ctx, p.ref.Job, p.ref.Candidate, p.ref.Document,
			pipeline.DocumentRemoval{Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
}
