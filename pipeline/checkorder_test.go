package pipeline_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// TestService_CheckOrder: a call that fails several checks answers the first
// of them in the API's order: authentication, scope, the record (not
// found), the idempotency key, the input, then the business rules. The
// scope and authentication are in TestService_ScopeCheck.
func TestService_CheckOrder(t *testing.T) {
	eachWorld(t, "the record before the key and the input", func(t *testing.T, w world) {
		gary := newHook(t, w, "gary", "https://hooks.example.test/globex")
		garyTag, err := w.Svc.CreateTag(w.As(t, "gary"), pipeline.NewTag{Name: "Globex"})
		require.NoError(t, err)
		unreachable := []struct {
			name string
			p    probe
		}{
			{"missing records", nowhere()},
			{"a job and a candidate of another team, another team's webhook and tag", probe{ref: pipeline.Ref{
				Job: w.Job("ops"), Candidate: w.Res.Candidates["ola"], Webhook: gary.ID, Tag: garyTag.Value.ID}}},
			{"a candidate of another job", probe{ref: pipeline.Ref{
				Job: w.Job("backend"), Candidate: w.Res.Candidates["ken"], Webhook: missing}}},
		}
		for _, u := range unreachable {
			for _, o := range operations {
				records := o.op.Records()
				if len(records) == 0 {
					continue // it names no record
				}
				if u.p.ref.Job == w.Job("backend") && slices.Equal(records, []string{"job"}) {
					continue // the job is reachable: only its candidate is not
				}
				p := u.p
				p.idem = &pipeline.Idempotency{Key: "bad\tkey"}
				err := o.call(w.As(t, "olivia"), w.Svc, p)
				assert.ErrorIs(t, err, pipeline.ErrNotFound, "%s: %s", u.name, o.op)
			}
		}
		assert.Len(t, w.Activity(t), 2, "only the webhook and the tag of the set-up")
	})
	eachWorld(t, "a member managing privacy is forbidden before the input is read", func(t *testing.T, w world) {
		for _, o := range operations {
			if o.op.Scope() != pipeline.ScopePrivacyManage {
				continue
			}
			p := nowhere() // an invalid input
			p.idem = &pipeline.Idempotency{Key: "bad\tkey"}
			err := o.call(w.As(t, "mia"), w.Svc, p)
			assert.ErrorIs(t, err, pipeline.ErrForbidden, o.op)
			err = o.call(w.As(t, "olivia"), w.Svc, p)
			assert.Equal(t, pipeline.EValidation, pipeline.ErrorCode(err), o.op)
		}
	})
	eachWorld(t, "a member managing webhooks or the team is forbidden before the record is looked up", func(t *testing.T, w world) {
		for _, o := range operations {
			if s := o.op.Scope(); s != pipeline.ScopeWebhooksWrite && s != pipeline.ScopeTeamManage {
				continue
			}
			p := nowhere()
			p.idem = &pipeline.Idempotency{Key: "bad\tkey"}
			err := o.call(w.As(t, "mia"), w.Svc, p)
			assert.ErrorIs(t, err, pipeline.ErrForbidden, o.op)
		}
	})
	eachWorld(t, "an invalid key before the input", func(t *testing.T, w world) {
		for _, o := range keyedWrites() {
			p := reachable(t, w, newHook(t, w, "olivia", "https://hooks.example.test/"+string(o.op)).ID)
			p.valid = false
			p.idem = &pipeline.Idempotency{Key: ""}
			err := o.call(w.As(t, "olivia"), w.Svc, p)
			require.ErrorIs(t, err, pipeline.ErrValidation, o.op)
			assert.Equal(t, []string{pipeline.IdempotencyField}, fieldNames(err), o.op)
		}
	})
	eachWorld(t, "a key used for another request before the input", func(t *testing.T, w world) {
		for i, o := range keyedWrites() {
			p := reachable(t, w, newHook(t, w, "olivia", fmt.Sprintf("https://hooks.example.test/%d", i)).ID)
			p.idem = &pipeline.Idempotency{Key: "used-" + string(o.op)}
			require.NoError(t, o.call(w.As(t, "olivia"), w.Svc, p), o.op)
			p.valid = false
			err := o.call(w.As(t, "olivia"), w.Svc, p)
			require.ErrorIs(t, err, pipeline.ErrValidation, o.op)
			assert.Equal(t, []string{pipeline.IdempotencyField}, fieldNames(err), "the same key and an invalid input: %s", o.op)
			err = o.call(w.As(t, "adam"), w.Svc, p)
			require.ErrorIs(t, err, pipeline.ErrValidation, o.op)
			assert.Equal(t, []string{pipeline.IdempotencyField}, fieldNames(err), "another user's key and an invalid input: %s", o.op)
		}
	})
	eachWorld(t, "the input before the plan's job limit", func(t *testing.T, w world) {
		fillToLimit(t, w, acmeActiveJobs)
		ctx := w.As(t, "olivia")
		_, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: " "})
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Equal(t, []string{"title"}, fieldNames(err))
		open := pipeline.JobOpen
		_, err = w.Svc.UpdateJob(ctx, w.Job("archive"), pipeline.JobPatch{Status: &open, Title: new("")})
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Equal(t, []string{"title"}, fieldNames(err))
		_, err = w.Svc.UpdateJob(ctx, w.Job("archive"), pipeline.JobPatch{Status: &open})
		assert.ErrorIs(t, err, pipeline.ErrForbidden, "the same reopening with a valid input")
	})
	eachWorld(t, "the input before the missing secret key", func(t *testing.T, w world) {
		svc := pipeline.NewService(w.DB)
		ctx := w.As(t, "olivia")
		_, err := svc.CreateWebhook(ctx, pipeline.NewWebhook{URL: "https://93.184.216.34/hook", Events: []string{"job.deleted"}})
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Equal(t, []string{"events"}, fieldNames(err))
		_, err = svc.CreateWebhook(ctx, pipeline.NewWebhook{URL: "https://93.184.216.34/hook"})
		assert.ErrorIs(t, err, pipeline.ErrForbidden, "a valid input")
	})
	eachWorld(t, "a replay before the plan's job limit", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		in := func() pipeline.NewJob {
			return pipeline.NewJob{Title: "Kept", Idempotency: &pipeline.Idempotency{Key: "kept"}}
		}
		first, err := w.Svc.CreateJob(ctx, in())
		require.NoError(t, err)
		fillToLimit(t, w, acmeActiveJobs+1)
		again, err := w.Svc.CreateJob(ctx, in())
		require.NoError(t, err, "the stored result, not a new job over the limit")
		assert.True(t, again.Replayed)
		assert.Equal(t, first.Value.ID, again.Value.ID)
	})
	eachWorld(t, "reads: the record before the filter", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		_, err := w.Svc.ListCandidates(ctx, w.Job("ops"), pipeline.CandidateFilter{Page: -1, StageID: -1})
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
		_, err = w.Svc.ListWebhookDeliveries(ctx, missing, -1)
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
		_, err = w.Svc.ListCandidates(ctx, w.Job("backend"), pipeline.CandidateFilter{Page: -1, StageID: -1})
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Equal(t, []string{"page", "stage"}, fieldNames(err), "every field of the filter is reported")
	})
}

// keyedWrites are the writes that take an input besides their key.
func keyedWrites() []operation {
	var out []operation
	for _, o := range operations {
		if o.op.Writes() && hasInput(o.op) && !requesterOnly(o.op) {
			out = append(out, o)
		}
	}
	return out
}
