package pipelinehttp

import (
	"context"
	"net/url"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// pageSchema is a list's page parameter's.
var pageSchema = described(idSchema(), "Page number, from 1; 1 when absent.")

// operations is the API: every operation, in the order of the document's
// endpoint table, each declared beside its resource's rendering. Both faces
// are registered from it.
var operations = slices.Concat(meOperations, jobOperations, stageOperations, candidateOperations,
	noteOperations, ratingOperations, activityOperations, webhookOperations, interviewOperations, messageOperations,
	privacyOperations, documentOperations)

// onCandidate is the call of a write on a candidate: method, given the
// path's ids and the input, its value rendered by render.
func onCandidate[In, T, U any](method func(*pipeline.Service, context.Context, int64, int64, In) (pipeline.Result[T], error),
	render func(T) U) func(context.Context, *pipeline.Service, *input[In]) (data[U], bool, error) {
	return func(ctx context.Context, svc *pipeline.Service, in *input[In]) (data[U], bool, error) {
		res, err := method(svc, ctx, in.ref.Job, in.ref.Candidate, in.domain())
		return data[U]{Data: render(res.Value)}, res.Replayed, err
	}
}

// The path ids.
func jobID[In any]() param[In] { return pathID[In]("job", "Id of a job the token can reach.") }
func candidateID[In any]() param[In] {
	return pathID[In]("candidate", "Id of a candidate of that job.")
}
func webhookID[In any]() param[In] {
	return pathID[In]("webhook", "Id of a webhook of the token's current team.")
}

func setFilter(q url.Values, name, value string) {
	if value != "" {
		q.Set(name, value)
	}
}

// idSchema is a positive integer's.
func idSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "integer", Minimum: jsonschema.Ptr(1.0)}
}

// textSchema is a string's of minLen to maxLen characters (0: no bound)
// matching pattern.
func textSchema(minLen, maxLen int, pattern string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string", Pattern: pattern}
	if maxLen > 0 {
		s.MaxLength = jsonschema.Ptr(maxLen)
	}
	if minLen > 0 {
		s.MinLength = jsonschema.Ptr(minLen)
	}
	return s
}

// enumSchema is a string's of one of values.
func enumSchema(values ...string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string"}
	for _, v := range values {
		s.Enum = append(s.Enum, v)
	}
	return s
}

// described is s with a description, for a tool's argument.
func described(s *jsonschema.Schema, doc string) *jsonschema.Schema {
	c := *s
	c.Description = doc
	return &c
}
