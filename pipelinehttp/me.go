package pipelinehttp

import (
	"context"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// identity is the token's user, current team, scopes and approval policy.
type identity struct {
	ID     int64            `json:"id"`
	Name   string           `json:"name"`
	Email  string           `json:"email"`
	Team   pipeline.Named   `json:"team"`
	Scopes []pipeline.Scope `json:"scopes"`
	// ApprovalRequired: the names as given, sorted, "*" as itself.
	ApprovalRequired []pipeline.Op `json:"approval_required"`
}

func newIdentity(id pipeline.Identity) identity {
	return identity{
		ID:     id.User.ID,
		Name:   id.User.Name,
		Email:  id.User.Email,
		Team:   pipeline.Named{ID: id.Team.ID, Name: id.Team.Name},
		Scopes: id.Scopes,
		// [] when none, never null.
		ApprovalRequired: append([]pipeline.Op{}, id.ApprovalRequired...),
	}
}

// meOperations are the operations on the token's identity, in the order of the
// document.
var meOperations = []operation{
	newOperation(opSpec[struct{}, data[identity]]{
		op: pipeline.OpGetMe,
		call: func(ctx context.Context, svc *pipeline.Service, _ *input[struct{}]) (data[identity], bool, error) {
			id, err := svc.GetMe(ctx)
			return data[identity]{Data: newIdentity(id)}, false, err
		},
	}),
}
