package pipelinehttp

import (
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
