package pipelinehttp

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lastFeedEntry is the newest entry of olivia's feed, once n are there.
func lastFeedEntry(t *testing.T, e *env, n int) map[string]any {
	t.Helper()
	awaitFeed(t, e.h, e.token("olivia"), n)
	items := e.do(t, "GET", "/api/v1/activity?limit=100", e.token("olivia"), nil).Items(t)
	return items[len(items)-1]
}

func TestAPI_Reason(t *testing.T) {
	each(t, "a write's body takes a reason, which the feed and the webhook payload show", func(t *testing.T, e *env) {
		rc := newReceiver(t)
		createWebhook(t, e, "olivia", map[string]any{"url": rc.URL, "events": []string{"candidate.stage_changed"}})
		e.deliver(t, true)
		reason := "Passed the phone screen.\nStrong on Go."
		r := e.do(t, "POST", adaStage(e), e.token("adam"), map[string]any{"stage": e.Res.Stages["backend"]["Interview"], "reason": reason})
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		entry := lastFeedEntry(t, e, 2)
		assert.Equal(t, "candidate.stage_changed", entry["action"])
		assert.Equal(t, reason, entry["reason"])

		var msg struct {
			Data map[string]any `json:"data"`
		}
		require.NoError(t, json.Unmarshal(rc.wait(t, 1)[0].body, &msg))
		assert.Equal(t, reason, msg.Data["reason"], "the webhook payload carries it")
	})
	each(t, "no reason reads null", func(t *testing.T, e *env) {
		moveAda(t, e, "adam", "Interview")
		entry := lastFeedEntry(t, e, 1)
		assert.Contains(t, entry, "reason")
		assert.Nil(t, entry["reason"])
	})
	each(t, "a bad reason is named with the other bad fields", func(t *testing.T, e *env) {
		r := e.do(t, "POST", adaStage(e), e.token("adam"), map[string]any{"stage": e.Res.Stages["frontend"]["Applied"], "reason": "  "})
		requireValidation(t, r, "reason", "stage")
		r = e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), map[string]any{"title": "", "reason": strings.Repeat("x", 1001)})
		requireValidation(t, r, "reason", "title")
		r = e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), map[string]any{"title": "Ok", "reason": 7})
		requireValidation(t, r, "reason")
	})
	each(t, "a delete takes a reason as its body", func(t *testing.T, e *env) {
		h := createWebhook(t, e, "olivia", map[string]any{"url": "https://hooks.example.test/gone"})
		r := e.do(t, "DELETE", "/api/v1/webhooks/"+itoa(h.id), e.token("olivia"), map[string]any{"reason": " "})
		requireValidation(t, r, "reason")
		r = e.do(t, "DELETE", "/api/v1/webhooks/"+itoa(h.id), e.token("olivia"), map[string]any{"reason": "The board sync is retired."})
		require.Equal(t, http.StatusNoContent, r.Code, "%s", r.Body)
		entry := lastFeedEntry(t, e, 2)
		assert.Equal(t, "webhook.deleted", entry["action"])
		assert.Equal(t, "The board sync is retired.", entry["reason"])
	})
	each(t, "the key binds the reason", func(t *testing.T, e *env) {
		body := map[string]any{"stage": e.Res.Stages["backend"]["Interview"], "reason": "First."}
		r := e.do(t, "POST", adaStage(e), e.token("adam"), body, IdempotencyKeyHeader, "move-1")
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		body["reason"] = "Second."
		r = e.do(t, "POST", adaStage(e), e.token("adam"), body, IdempotencyKeyHeader, "move-1")
		requireValidation(t, r, IdempotencyKeyHeader)
	})
}

func TestMCP_Reason(t *testing.T) {
	each(t, "every write tool takes a reason", func(t *testing.T, e *env) {
		cs := e.mcpSession(t, "olivia")
		writes := 0
		for tool, err := range cs.Tools(context.Background(), nil) {
			require.NoError(t, err)
			if tool.Annotations.ReadOnlyHint {
				continue
			}
			writes++
			b, err := json.Marshal(tool.InputSchema)
			require.NoError(t, err)
			var in jsonschema.Schema
			require.NoError(t, json.Unmarshal(b, &in))
			assert.Contains(t, in.Properties, "reason", tool.Name)
			// An erasure must say why; any other write may.
			if pipeline.Op(tool.Name) != pipeline.OpErasePerson {
				assert.NotContains(t, in.Required, "reason", tool.Name)
			}
		}
		assert.Greater(t, writes, 5)
	})
	each(t, "a tool's reason is kept on its entry; a bad one is named", func(t *testing.T, e *env) {
		cs := e.mcpSession(t, "adam")
		args := map[string]any{"job_id": e.Res.Jobs["backend"], "candidate_id": e.Res.Candidates["ada"],
			"stage": e.Res.Stages["backend"]["Interview"], "reason": "\n"}
		body, code := toolError(t, callTool(t, cs, "move_candidate", args))
		require.Equal(t, "validation_failed", code)
		assert.Equal(t, []string{"reason"}, keys(body.(map[string]any)["error"].(map[string]any)["details"].(map[string]any)))

		args["reason"] = "Scheduling the on-site."
		content(t, callTool(t, cs, "move_candidate", args))
		assert.Equal(t, "Scheduling the on-site.", lastFeedEntry(t, e, 1)["reason"])
	})
}
