package pipeline_test

import (
	"context"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// ratingProbes call the operations of this file's resource for the tables of
// operations (see probe).
var ratingProbes = []operation{
	{pipeline.OpRateCandidate, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.RateCandidate(ctx, p.ref.Job, p.ref.Candidate, pipeline.NewRating{Value: pick(p, pipeline.GoodFit, "GOOD_FIT"), Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
}
