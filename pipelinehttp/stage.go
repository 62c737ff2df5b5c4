package pipelinehttp

import (
	"context"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// stageItem is a stage of a job's pipeline.
type stageItem struct {
	ID   int64  `json:"id" schema:"ref: Id"`
	Name string `json:"name" schema:"minLength: 1"`
}

func newStageItems(st []pipeline.Stage) []stageItem {
	out := make([]stageItem, 0, len(st))
	for _, s := range st {
		out = append(out, stageItem{ID: s.ID, Name: s.Name})
	}
	return out
}

// stageOperations are the operations on a job's stages, in the order of the
// document.
var stageOperations = []operation{
	newOperation(opSpec[struct{}, data[[]stageItem]]{
		op:     pipeline.OpListStages,
		params: []param[struct{}]{jobID[struct{}]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[struct{}]) (data[[]stageItem], bool, error) {
			st, err := svc.ListStages(ctx, in.ref.Job)
			return data[[]stageItem]{Data: newStageItems(st)}, false, err
		},
	}),
}
