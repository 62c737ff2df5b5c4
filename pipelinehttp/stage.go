package pipelinehttp

import (
	"net/http"

	"github.com/gin-gonic/gin"

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

// stages serves GET /jobs/{job}/stages, in pipeline order.
func (a *api) stages(c *gin.Context) {
	st, err := a.svc.Stages(c.Request.Context(), pathID(c, "job"))
	if err != nil {
		fail(c, err)
		return
	}
	respond(c, http.StatusOK, data[[]stageItem]{Data: newStageItems(st)})
}
