package pipelinehttp

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// identity is the token's user, current team and scopes.
type identity struct {
	ID     int64            `json:"id"`
	Name   string           `json:"name"`
	Email  string           `json:"email"`
	Team   named            `json:"team"`
	Scopes []pipeline.Scope `json:"scopes"`
}

func newIdentity(id pipeline.Identity) identity {
	return identity{
		ID:     id.User.ID,
		Name:   id.User.Name,
		Email:  id.User.Email,
		Team:   named{ID: id.Team.ID, Name: id.Team.Name},
		Scopes: id.Scopes,
	}
}

// me serves GET /me.
func (a *api) me(c *gin.Context) {
	id, err := a.svc.Me(c.Request.Context())
	if err != nil {
		fail(c, err)
		return
	}
	respond(c, http.StatusOK, data[identity]{Data: newIdentity(id)})
}
