package pipeline_test

import (
	"context"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// stageProbes call the operations of this file's resource for the tables of
// operations (see probe).
var stageProbes = []operation{
	{pipeline.OpListStages, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.ListStages(ctx, p.ref.Job)
		return err
	}},
}
