package pipelinehttp

import (
	"context"
	"net/url"
	"slices"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// pageSchema is a list's page parameter's.
var pageSchema = described(idSchema(), "Page number, from 1; 1 when absent.")

// operations is how each face reads and renders every operation of the
// domain's table, each declared beside its resource's rendering, in the
// table's order (pipeline.Ops), which is the document's. Both faces are
// registered from it.
var operations = inTableOrder(slices.Concat(meOperations, jobOperations, stageOperations, candidateOperations,
	noteOperations, ratingOperations, activityOperations, webhookOperations, interviewOperations, messageOperations,
	privacyOperations, proposalOperations, documentOperations, tagOperations))

// inTableOrder is ops in the order of the domain's table; each operation of
// the table must have exactly one.
func inTableOrder(ops []operation) []operation {
	out := make([]operation, 0, len(ops))
	for _, op := range pipeline.Ops() {
		i := slices.IndexFunc(ops, func(o operation) bool { return o.op == op })
		if i < 0 {
			panic("pipelinehttp: no face reads " + string(op))
		}
		out = append(out, ops[i])
	}
	if len(out) != len(ops) {
		panic("pipelinehttp: an operation is declared twice, or is not the domain's")
	}
	return out
}

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
