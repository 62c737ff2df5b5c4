package pipelinehttp

import (
	"github.com/pipeline-dev/pipeline/pipeline"
)

// ratingSchema is a rating's: one of the verdicts.
var ratingSchema = enumSchema(string(pipeline.GoodFit), string(pipeline.Maybe), string(pipeline.NotAFit))

// ratingOperations are the operations on ratings of candidates, in the order of the
// document.
var ratingOperations = []operation{
	newOperation(opSpec[pipeline.NewRating, data[pipeline.RatingRecord]]{
		op: pipeline.OpRateCandidate,
		params: []param[pipeline.NewRating]{
			jobID[pipeline.NewRating](), candidateID[pipeline.NewRating](),
			textField("rating", true, described(ratingSchema, "The verdict."), func(in *pipeline.NewRating) *pipeline.RatingValue { return &in.Value }),
		},
		call: onCandidate((*pipeline.Service).RateCandidate, pipeline.Rating.Record),
	}),
}
