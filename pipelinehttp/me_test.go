package pipelinehttp

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

func TestAPI_Me(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		t.Run("all scopes", func(t *testing.T) {
			r := e.do(t, "GET", "/api/v1/me", e.token("olivia"), nil)
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			require.Equal(t, []string{"data"}, keys(r.Object(t)))
			d := r.Data(t)
			assert.Equal(t, sorted("id", "name", "email", "team", "scopes", "approval_required"), keys(d))
			assert.Equal(t, e.Res.Users["olivia"], num(t, d["id"]))
			assert.Equal(t, "Olivia Owner", d["name"])
			assert.Equal(t, "olivia@acme.test", d["email"])
			assert.Equal(t, map[string]any{"id": float64(e.Res.Teams["acme"]), "name": "Acme"}, d["team"])
			assert.Equal(t, []any{"jobs:read", "jobs:write", "candidates:read", "candidates:write", "messages:send", "scheduling:write", "activity:read", "webhooks:write", "proposals:review", "privacy:manage", "team:manage"}, d["scopes"])
			assert.Equal(t, []any{}, d["approval_required"], "[] when the token has no policy")
		})
		t.Run("an approval policy, sorted, * as itself", func(t *testing.T) {
			_, value, err := e.Op.IssueToken(context.Background(), pipeline.TokenRequest{UserEmail: "mia@acme.test", Name: "agent",
				Scopes: []pipeline.Scope{pipeline.ScopeCandidatesWrite}, Approval: []pipeline.Op{pipeline.OpMoveCandidate, pipeline.EveryWrite}})
			require.NoError(t, err)
			r := e.do(t, "GET", "/api/v1/me", value, nil)
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			assert.Equal(t, []any{"*", "move_candidate"}, r.Data(t)["approval_required"])
		})
		t.Run("no particular scope needed", func(t *testing.T) {
			r := e.do(t, "GET", "/api/v1/me", e.token("olivia_messages"), nil)
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			assert.Equal(t, []any{"messages:send"}, r.Data(t)["scopes"])
		})
		t.Run("other team", func(t *testing.T) {
			r := e.do(t, "GET", "/api/v1/me", e.token("gary"), nil)
			require.Equal(t, http.StatusOK, r.Code)
			assert.Equal(t, "Globex", r.Data(t)["team"].(map[string]any)["name"])
		})
	})
}
