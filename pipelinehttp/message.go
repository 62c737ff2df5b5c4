package pipelinehttp

import (
	"context"
	"net/url"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pipeline-dev/pipeline/pipeline"
)

func messageID[In any]() param[In] {
	return pathID[In]("message", "Id of a message to that candidate.")
}

var (
	subjectSchema     = textSchema(1, pipeline.MaxSubjectLength, `\S`)
	messageBodySchema = textSchema(1, pipeline.MaxMessageBodyLength, `\S`)
)

// messageOperations are the operations on messages to candidates, in the
// order of the document.
var messageOperations = []operation{
	newOperation(opSpec[pipeline.NewMessage, data[pipeline.MessageRecord]]{
		op: pipeline.OpSendMessage,
		params: []param[pipeline.NewMessage]{
			jobID[pipeline.NewMessage](), candidateID[pipeline.NewMessage](),
			textField("subject", true, described(subjectSchema, "Up to 200 characters once trimmed, not blank, no line break."), func(in *pipeline.NewMessage) *string { return &in.Subject }),
			textField("body", true, described(messageBodySchema, "Plain text, up to 20,000 characters."), func(in *pipeline.NewMessage) *string { return &in.Body }),
			textField("send_at", false, described(&jsonschema.Schema{Type: "string", Format: "date-time"}, "RFC 3339 date and time with an offset, not in the past, at most 30 days ahead; now when absent."), func(in *pipeline.NewMessage) *string { return &in.SendAt }),
		},
		call:    onCandidate((*pipeline.Service).SendMessage, pipeline.Message.Record),
		created: func(out data[pipeline.MessageRecord]) int64 { return out.Data.ID },
	}),
	newOperation(opSpec[pipeline.MessageFilter, list[pipeline.MessageRecord]]{
		op: pipeline.OpListMessages,
		params: []param[pipeline.MessageFilter]{
			jobID[pipeline.MessageFilter](), candidateID[pipeline.MessageFilter](),
			pageParam(pageSchema, func(in *pipeline.MessageFilter) *int { return &in.Page }),
		},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.MessageFilter]) (list[pipeline.MessageRecord], bool, error) {
			l, err := svc.ListMessages(ctx, in.ref.Job, in.ref.Candidate, in.domain())
			return listOf(in.self, url.Values{}, l, pipeline.Message.Record), false, err
		},
	}),
	newOperation(opSpec[struct{}, data[pipeline.MessageRecord]]{
		op:     pipeline.OpGetMessage,
		params: []param[struct{}]{jobID[struct{}](), candidateID[struct{}](), messageID[struct{}]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[struct{}]) (data[pipeline.MessageRecord], bool, error) {
			m, err := svc.GetMessage(ctx, in.ref.Job, in.ref.Candidate, in.ref.Message)
			return data[pipeline.MessageRecord]{Data: m.Record()}, false, err
		},
	}),
	newOperation(opSpec[pipeline.MessageCancellation, data[pipeline.MessageRecord]]{
		op:     pipeline.OpCancelMessage,
		params: []param[pipeline.MessageCancellation]{jobID[pipeline.MessageCancellation](), candidateID[pipeline.MessageCancellation](), messageID[pipeline.MessageCancellation]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.MessageCancellation]) (data[pipeline.MessageRecord], bool, error) {
			res, err := svc.CancelMessage(ctx, in.ref.Job, in.ref.Candidate, in.ref.Message, in.domain())
			return data[pipeline.MessageRecord]{Data: res.Value.Record()}, res.Replayed, err
		},
	}),
	newOperation(opSpec[pipeline.MessageRetry, data[pipeline.MessageRecord]]{
		op:     pipeline.OpRetryMessage,
		params: []param[pipeline.MessageRetry]{jobID[pipeline.MessageRetry](), candidateID[pipeline.MessageRetry](), messageID[pipeline.MessageRetry]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.MessageRetry]) (data[pipeline.MessageRecord], bool, error) {
			res, err := svc.RetryMessage(ctx, in.ref.Job, in.ref.Candidate, in.ref.Message, in.domain())
			return data[pipeline.MessageRecord]{Data: res.Value.Record()}, res.Replayed, err
		},
	}),
}
