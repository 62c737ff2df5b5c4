package pipelinehttp

import (
	"context"
	"net/url"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// Schemas of a candidate's fields: the API's limits.
var (
	candidateStatus = enumSchema(pipeline.CandidateStatuses...)
	nameSchema      = textSchema(1, pipeline.MaxCandidateNameLength, `\S`)
	emailSchema     = textSchema(3, pipeline.MaxEmailLength, `^[^@\s]+@[^@\s]+$`)
	resumeURLSchema = textSchema(0, pipeline.MaxResumeURLLength, "")
)

// candidateOperations are the operations on candidates, in the order of the
// document.
var candidateOperations = []operation{
	newOperation(opSpec[pipeline.CandidateFilter, list[pipeline.CandidateSummary]]{
		op: pipeline.OpListCandidates,
		params: []param[pipeline.CandidateFilter]{
			jobID[pipeline.CandidateFilter](),
			searchParam(described(&jsonschema.Schema{Type: "string"}, "Case-insensitive substring of name or email; empty does not filter."), func(in *pipeline.CandidateFilter) *string { return &in.Search }),
			stageParam(described(idSchema(), "Only candidates in this stage: an id from list_stages."), func(in *pipeline.CandidateFilter) *int64 { return &in.StageID }),
			statusParam(described(candidateStatus, "Only candidates of this status; any status when absent."), func(in *pipeline.CandidateFilter) *string { return &in.Status }),
			pageParam(pageSchema, func(in *pipeline.CandidateFilter) *int { return &in.Page }),
		},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.CandidateFilter]) (list[pipeline.CandidateSummary], bool, error) {
			f := in.domain()
			l, err := svc.ListCandidates(ctx, in.ref.Job, f)
			filters := url.Values{}
			setFilter(filters, "search", f.Search)
			if f.StageID > 0 {
				filters.Set("stage", strconv.FormatInt(f.StageID, 10))
			}
			setFilter(filters, "status", f.Status)
			return listOf(in.self, filters, l, pipeline.Candidate.Summary), false, err
		},
	}),
	newOperation(opSpec[pipeline.NewCandidate, data[pipeline.CandidateRecord]]{
		op: pipeline.OpAddCandidate,
		params: []param[pipeline.NewCandidate]{
			jobID[pipeline.NewCandidate](),
			textField("name", true, described(nameSchema, "Up to 255 characters once trimmed, not blank; stored trimmed."), func(in *pipeline.NewCandidate) *string { return &in.Name }),
			textField("email", true, described(emailSchema, "Up to 254 characters, one @ with something on each side, no white space; stored as sent."), func(in *pipeline.NewCandidate) *string { return &in.Email }),
			textField("applied", false, described(&jsonschema.Schema{Type: "string", Format: "date"}, "The date of application, YYYY-MM-DD, not after today; today (UTC) when absent."), func(in *pipeline.NewCandidate) *string { return &in.Applied }),
			integerField("stage", false, described(idSchema(), "Id of a stage of the job, from list_stages; its first stage when absent."), func(in *pipeline.NewCandidate) *int64 { return &in.StageID }),
			textField("resume_url", false, described(resumeURLSchema, "An absolute http or https URL, up to 2,048 characters."), func(in *pipeline.NewCandidate) *string { return &in.ResumeURL }),
		},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.NewCandidate]) (data[pipeline.CandidateRecord], bool, error) {
			res, err := svc.AddCandidate(ctx, in.ref.Job, in.domain())
			return data[pipeline.CandidateRecord]{Data: res.Value.Record()}, res.Replayed, err
		},
		created: func(out data[pipeline.CandidateRecord]) int64 { return out.Data.ID },
	}),
	newOperation(opSpec[struct{}, data[pipeline.CandidateRecord]]{
		op:     pipeline.OpGetCandidate,
		params: []param[struct{}]{jobID[struct{}](), candidateID[struct{}]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[struct{}]) (data[pipeline.CandidateRecord], bool, error) {
			k, err := svc.GetCandidate(ctx, in.ref.Job, in.ref.Candidate)
			return data[pipeline.CandidateRecord]{Data: k.Record()}, false, err
		},
	}),
	newOperation(opSpec[pipeline.CandidatePatch, data[pipeline.CandidateRecord]]{
		op: pipeline.OpUpdateCandidate,
		params: []param[pipeline.CandidatePatch]{
			jobID[pipeline.CandidatePatch](), candidateID[pipeline.CandidatePatch](),
			optionalField("name", described(nameSchema, "Up to 255 characters once trimmed, not blank; stored trimmed."), func(in *pipeline.CandidatePatch) **string { return &in.Name }),
			optionalField("email", described(emailSchema, "Up to 254 characters, one @ with something on each side, no white space; stored as sent."), func(in *pipeline.CandidatePatch) **string { return &in.Email }),
			nullableField("resume_url", described(resumeURLSchema, "An absolute http or https URL, up to 2,048 characters; null clears it."), func(in *pipeline.CandidatePatch) **string { return &in.ResumeURL }),
			optionalField("status", described(candidateStatus, "Any status may follow any."), func(in *pipeline.CandidatePatch) **string { return &in.Status }),
		},
		call: onCandidate((*pipeline.Service).UpdateCandidate, pipeline.Candidate.Record),
	}),
	newOperation(opSpec[pipeline.CandidateMove, data[pipeline.CandidateRecord]]{
		op: pipeline.OpMoveCandidate,
		params: []param[pipeline.CandidateMove]{
			jobID[pipeline.CandidateMove](), candidateID[pipeline.CandidateMove](),
			integerField("stage", true, described(idSchema(), "Id of a stage of the same job, from list_stages."), func(in *pipeline.CandidateMove) *int64 { return &in.StageID }),
		},
		call: onCandidate((*pipeline.Service).MoveCandidate, pipeline.Candidate.Record),
	}),
}
