package pipelinehttp

import (
	"context"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// identity is the token's user, current team, scopes and approval policy.
type identity struct {
	ID    int64  `json:"id" schema:"ref: Id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	// The user's current team, where `POST /api/v1/jobs` creates jobs.
	Team pipeline.Named `json:"team"`
	// The token's scopes, in the order of the scope table.
	Scopes []pipeline.Scope `json:"scopes" schema:"uniqueItems: true"`
	// The token's approval policy: the write operations it may only
	// propose, for a person to approve. The names are kept as the token's
	// creator gave them, sorted, each once; `*` (every write the token's
	// scopes allow) is shown as `*`, not expanded, so that the policy
	// reads the same as operations are added. `[]` when the token makes
	// every write its scopes allow.
	ApprovalRequired []pipeline.Op `json:"approval_required" schema:"uniqueItems: true, example: [move_candidate, send_message]"`
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
