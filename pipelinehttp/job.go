package pipelinehttp

import (
	"context"
	"net/url"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// Schemas of a job's fields: the API's limits.
var (
	titleSchema       = textSchema(1, pipeline.MaxTitleLength, `\S`)
	descriptionSchema = textSchema(0, pipeline.MaxDescriptionLength, "")
	statusSchema      = enumSchema(string(pipeline.JobOpen), string(pipeline.JobDraft), string(pipeline.JobClosed))
)

// jobOperations are the operations on jobs, in the order of the
// document.
var jobOperations = []operation{
	newOperation(opSpec[pipeline.JobFilter, list[pipeline.JobSummary]]{
		op: pipeline.OpListJobs,
		params: []param[pipeline.JobFilter]{
			statusParam(described(statusSchema, "Jobs of this status; open when absent."), func(in *pipeline.JobFilter) *pipeline.JobStatus { return &in.Status }),
			searchParam(described(&jsonschema.Schema{Type: "string"}, "Case-insensitive substring of the title; empty does not filter."), func(in *pipeline.JobFilter) *string { return &in.Search }),
			pageParam(pageSchema, func(in *pipeline.JobFilter) *int { return &in.Page }),
		},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.JobFilter]) (list[pipeline.JobSummary], bool, error) {
			f := in.domain()
			l, err := svc.ListJobs(ctx, f)
			filters := url.Values{}
			setFilter(filters, "status", string(f.Status))
			setFilter(filters, "search", f.Search)
			return listOf(in.self, filters, l, pipeline.Job.Summary), false, err
		},
	}),
	newOperation(opSpec[pipeline.NewJob, data[pipeline.JobRecord]]{
		op: pipeline.OpCreateJob,
		params: []param[pipeline.NewJob]{
			textField("title", true, described(titleSchema, "Up to 255 characters, not blank."), func(in *pipeline.NewJob) *string { return &in.Title }),
			textField("description", false, described(descriptionSchema, "HTML, up to 65,535 characters."), func(in *pipeline.NewJob) *string { return &in.Description }),
		},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.NewJob]) (data[pipeline.JobRecord], bool, error) {
			res, err := svc.CreateJob(ctx, in.domain())
			return data[pipeline.JobRecord]{Data: res.Value.Record()}, res.Replayed, err
		},
		created: func(out data[pipeline.JobRecord]) int64 { return out.Data.ID },
	}),
	newOperation(opSpec[struct{}, data[pipeline.JobRecord]]{
		op:     pipeline.OpGetJob,
		params: []param[struct{}]{jobID[struct{}]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[struct{}]) (data[pipeline.JobRecord], bool, error) {
			j, err := svc.GetJob(ctx, in.ref.Job)
			return data[pipeline.JobRecord]{Data: j.Record()}, false, err
		},
	}),
	newOperation(opSpec[pipeline.JobPatch, data[pipeline.JobRecord]]{
		op: pipeline.OpUpdateJob,
		params: []param[pipeline.JobPatch]{
			jobID[pipeline.JobPatch](),
			optionalField("title", described(titleSchema, "Up to 255 characters, not blank."), func(in *pipeline.JobPatch) **string { return &in.Title }),
			optionalField("description", described(descriptionSchema, "HTML, up to 65,535 characters."), func(in *pipeline.JobPatch) **string { return &in.Description }),
			optionalField("status", described(statusSchema, "Any status may follow any; reopening a closed job counts against the plan's job limit."), func(in *pipeline.JobPatch) **pipeline.JobStatus { return &in.Status }),
		},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.JobPatch]) (data[pipeline.JobRecord], bool, error) {
			res, err := svc.UpdateJob(ctx, in.ref.Job, in.domain())
			return data[pipeline.JobRecord]{Data: res.Value.Record()}, res.Replayed, err
		},
	}),
}
