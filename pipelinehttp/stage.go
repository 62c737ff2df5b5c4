package pipelinehttp

import (
	"github.com/pipeline-dev/pipeline/pipeline"
)

// stageItem is a stage of a job's pipeline.
type stageItem struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

func newStageItems(st []pipeline.Stage) []stageItem {
	out := make([]stageItem, 0, len(st))
	for _, s := range st {
		out = append(out, stageItem{ID: s.ID, Name: s.Name})
	}
	return out
}
