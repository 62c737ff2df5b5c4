package pipeline_test

import (
	"context"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// meProbes call the operations of this file's resource for the tables of
// operations (see probe).
var meProbes = []operation{
	{pipeline.OpGetMe, func(ctx context.Context, svc *pipeline.Service, _ probe) error {
		_, err := svc.GetMe(ctx)
		return err
	}},
}
