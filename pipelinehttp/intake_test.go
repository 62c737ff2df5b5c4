package pipelinehttp

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

func TestAPI_AddCandidate(t *testing.T) {
	each(t, "201 with the candidate and its Location", func(t *testing.T, e *env) {
		backend := e.Res.Jobs["backend"]
		r := e.do(t, "POST", jobPath(backend)+"/candidates", e.token("mia"),
			map[string]any{"name": "Barbara Liskov", "email": "Barbara@Example.test", "applied": "2026-01-03"})
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		assert.Equal(t, []string{"data"}, keys(r.Object(t)))
		d := r.Data(t)
		id := num(t, d["id"])
		assert.Equal(t, candidatePath(backend, id), r.Header.Get("Location"))
		assert.Equal(t, map[string]any{"id": float64(id), "name": "Barbara Liskov", "email": "Barbara@Example.test",
			"applied": "2026-01-03", "stage": "Applied", "status": "active", "notes_count": 0.0}, d,
			"the single candidate, without a resume")
		assert.Equal(t, r.JSON, e.do(t, "GET", candidatePath(backend, id), e.token("mia"), nil).JSON)
	})
	each(t, "errors in the envelope", func(t *testing.T, e *env) {
		path := jobPath(e.Res.Jobs["backend"]) + "/candidates"
		r := e.do(t, "POST", path, e.token("olivia"), map[string]any{"name": "Ada", "email": "ADA@EXAMPLE.TEST"})
		requireValidation(t, r, "email")
		assert.Equal(t, map[string]any{"email": []any{"The email has already been taken."}}, r.Details(t))
		requireValidation(t, e.do(t, "POST", path, e.token("olivia"), map[string]any{"name": "Ada", "email": "a@b", "stage": "Applied"}), "stage")
		requireValidation(t, e.do(t, "POST", path, e.token("olivia"), map[string]any{"email": "a@b", "status": "hired"}), "name", "status")
		requireError(t, e.do(t, "POST", jobPath(e.Res.Jobs["archive"])+"/candidates", e.token("olivia"),
			map[string]any{"name": "Ada", "email": "a@b"}), http.StatusForbidden, pipeline.EForbidden)
		requireError(t, e.do(t, "POST", path, e.token("olivia_candidates_read"), map[string]any{}),
			http.StatusForbidden, pipeline.EInsufficientScope)
		assert.Empty(t, e.Activity(t))
	})
	each(t, "one 422 names every offending field, a stage of another job included", func(t *testing.T, e *env) {
		path := jobPath(e.Res.Jobs["backend"]) + "/candidates"
		r := e.do(t, "POST", path, e.token("olivia"),
			map[string]any{"name": " ", "email": "not an email", "stage": e.Res.Stages["frontend"]["Applied"]})
		requireValidation(t, r, "name", "email", "stage")
		r = e.do(t, "POST", path, e.token("olivia"),
			map[string]any{"name": "Ada", "email": "ada@example.test", "stage": e.Res.Stages["frontend"]["Applied"], "applied": "soon"})
		requireValidation(t, r, "email", "stage", "applied")
		assert.Equal(t, []any{"The email has already been taken."}, r.Details(t)["email"])
		assert.Empty(t, e.Activity(t))
	})
}

func TestAPI_UpdateCandidate(t *testing.T) {
	each(t, "null clears the resume; absent leaves it", func(t *testing.T, e *env) {
		path := candidatePath(e.Res.Jobs["backend"], e.Res.Candidates["ada"])
		r := e.do(t, "PATCH", path, e.token("olivia"), map[string]any{"status": "withdrawn"})
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.Equal(t, "https://files.example.test/ada.pdf", r.Data(t)["resume_url"])
		assert.Equal(t, "withdrawn", r.Data(t)["status"])
		r = e.do(t, "PATCH", path, e.token("olivia"), `{"resume_url": null}`)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.NotContains(t, r.Data(t), "resume_url", "a cleared resume is left out")
		assert.Equal(t, r.JSON, e.do(t, "GET", path, e.token("olivia"), nil).JSON)
		changes := map[string]any{}
		acts := e.Activity(t)
		require.Len(t, acts, 2)
		require.NoError(t, json.Unmarshal(acts[1].Changes, &changes))
		assert.Equal(t, map[string]any{"resume_url": map[string]any{"before": "https://files.example.test/ada.pdf", "after": nil}}, changes)
	})
	each(t, "errors in the envelope", func(t *testing.T, e *env) {
		path := candidatePath(e.Res.Jobs["backend"], e.Res.Candidates["ada"])
		requireValidation(t, e.do(t, "PATCH", path, e.token("olivia"), map[string]any{}), "body")
		requireValidation(t, e.do(t, "PATCH", path, e.token("olivia"), map[string]any{"name": nil}), "name")
		requireValidation(t, e.do(t, "PATCH", path, e.token("olivia"), map[string]any{"resume_url": 5}), "resume_url")
		requireValidation(t, e.do(t, "PATCH", path, e.token("olivia"), map[string]any{"stage": 1}), "stage")
		requireError(t, e.do(t, "PATCH", candidatePath(e.Res.Jobs["backend"], e.Res.Candidates["ken"]), e.token("olivia"),
			map[string]any{"status": "hired"}), http.StatusNotFound, pipeline.ENotFound)
		assert.Empty(t, e.Activity(t))
	})
}

func TestAPI_ListCandidates_Status(t *testing.T) {
	each(t, "filtered, the filter kept in the links", func(t *testing.T, e *env) {
		path := jobPath(e.Res.Jobs["backend"]) + "/candidates"
		r := e.do(t, "GET", path+"?status=rejected", e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.Equal(t, []int64{e.Res.Candidates["linus"]}, r.IDs(t))
		assert.Contains(t, r.Object(t)["links"].(map[string]any)["first"], "status=rejected")
		r = e.do(t, "GET", path+"?status=gone", e.token("olivia"), nil)
		requireValidation(t, r, "status")
		assert.Equal(t, map[string]any{"status": []any{"The status must be one of active, hired, rejected, withdrawn."}}, r.Details(t))
	})
}

func TestDeliveries_CandidateCreated(t *testing.T) {
	each(t, "a webhook selecting candidate.created receives the intake", func(t *testing.T, e *env) {
		rc := newReceiver(t)
		createWebhook(t, e, "olivia", map[string]any{"url": rc.URL + "/hook", "events": []string{"candidate.created"}})
		e.deliverInOrder(t, true)
		backend := e.Res.Jobs["backend"]
		add := func(name, email string) int64 {
			t.Helper()
			r := e.do(t, "POST", jobPath(backend)+"/candidates", e.token("olivia"), map[string]any{"name": name, "email": email})
			require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
			return num(t, r.Data(t)["id"])
		}
		alan := add("Alan Kay", "alan@example.test")
		r := e.do(t, "PATCH", candidatePath(backend, alan), e.token("olivia"), map[string]any{"status": "hired"})
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		// An update is not selected, so it is not sent: in order, it would
		// come before the next intake's message.
		next := add("Barbara Liskov", "barbara@example.test")
		got := rc.wait(t, 2)
		var msgs [2]struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		for i := range msgs {
			require.NoError(t, json.Unmarshal(got[i].body, &msgs[i]))
			assert.Equal(t, "candidate.created", msgs[i].Type)
		}
		assert.Equal(t, map[string]any{"type": "candidate", "id": float64(alan)}, msgs[0].Data["subject"])
		assert.Equal(t, map[string]any{"type": "candidate", "id": float64(next)}, msgs[1].Data["subject"],
			"the update was not delivered")
		awaitFeed(t, e.h, e.token("olivia"), 4)
		feed := e.do(t, "GET", "/api/v1/activity?action=candidate.created", e.token("olivia"), nil).Items(t)
		require.Len(t, feed, 2)
		assert.Contains(t, feed, msgs[0].Data, "the entry as in the feed")
	})
}
