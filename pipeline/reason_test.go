package pipeline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// lastEntry is the newest entry of the activity log.
func lastEntry(t *testing.T, w world) pipeline.Activity {
	t.Helper()
	entries, err := w.Op.ListActivity(context.Background(), pipeline.ActivityFilter{})
	require.NoError(t, err)
	require.NotEmpty(t, entries)
	return entries[len(entries)-1]
}

// TestService_Reason: every write takes a reason, judged with its input and
// kept on its activity entry.
func TestService_Reason(t *testing.T) {
	eachWorld(t, "every write keeps its reason on its entry, line breaks and all", func(t *testing.T, w world) {
		for _, o := range operations {
			// An erasure's reason is judged but kept nowhere: it may name
			// the person erased.
			if !o.op.Writes() || o.op == pipeline.OpErasePerson || requesterOnly(o.op) {
				continue
			}
			p := reachable(t, w, newHook(t, w, "olivia", "https://hooks.example.test/"+string(o.op)).ID)
			if o.op == pipeline.OpUntagCandidate {
				// Untagging logs only a tag the candidate carries.
				tagCandidate(t, w, p.ref.Candidate, p.ref.Tag)
			}
			p.reason = new("  Because of " + string(o.op) + ".\nSee the call notes.  ")
			require.NoError(t, o.call(w.As(t, "olivia"), w.Svc, p), o.op)
			e := lastEntry(t, w)
			require.NotNil(t, e.Reason, o.op)
			assert.Equal(t, *p.reason, *e.Reason, "%s: the reason as given", o.op)
		}
	})
	eachWorld(t, "a write without a reason has none; the seed's entries neither", func(t *testing.T, w world) {
		_, err := w.Svc.CreateJob(w.As(t, "olivia"), pipeline.NewJob{Title: "Plain"})
		require.NoError(t, err)
		assert.Nil(t, lastEntry(t, w).Reason)
	})
	eachWorld(t, "a blank or too long reason is refused with the input's other fields, and writes nothing", func(t *testing.T, w world) {
		for _, o := range operations {
			if !o.op.Writes() || requesterOnly(o.op) {
				continue
			}
			for _, valid := range []bool{true, false} {
				p := reachable(t, w, newHook(t, w, "olivia", "https://hooks.example.test/"+string(o.op)).ID)
				before := lastEntry(t, w).ID
				p.reason, p.valid = new(" \n\t "), valid
				err := o.call(w.As(t, "olivia"), w.Svc, p)
				require.Equal(t, pipeline.EValidation, pipeline.ErrorCode(err), "%s valid=%v: %v", o.op, valid, err)
				fields := fieldNames(err)
				assert.Contains(t, fields, pipeline.ReasonField, o.op)
				if valid || !hasInput(o.op) {
					assert.Equal(t, []string{pipeline.ReasonField}, fields, o.op)
				} else {
					assert.Greater(t, len(fields), 1, "%s: the input's own fields are named too", o.op)
				}
				assert.Equal(t, before, lastEntry(t, w).ID, "%s: nothing logged", o.op)
			}
		}
		for _, reason := range []string{"", strings.Repeat("é", pipeline.MaxReasonLength+1), "bad\x00"} {
			_, err := w.Svc.CreateJob(w.As(t, "olivia"), pipeline.NewJob{Title: " ", Reasoned: pipeline.Because(reason)})
			assert.Equal(t, []string{pipeline.ReasonField, "title"}, fieldNames(err), "%q", reason)
		}
	})
	eachWorld(t, "1,000 characters once trimmed are enough", func(t *testing.T, w world) {
		reason := "\n  " + strings.Repeat("é", pipeline.MaxReasonLength) + "  \n"
		_, err := w.Svc.CreateJob(w.As(t, "olivia"), pipeline.NewJob{Title: "Long reason", Reasoned: pipeline.Because(reason)})
		require.NoError(t, err)
		assert.Equal(t, reason, *lastEntry(t, w).Reason)
	})
	eachWorld(t, "a bad reason comes before the plan's job limit", func(t *testing.T, w world) {
		fillToLimit(t, w, acmeActiveJobs)
		_, err := w.Svc.CreateJob(w.As(t, "olivia"), pipeline.NewJob{Title: "One too many", Reasoned: pipeline.Because(" ")})
		assert.Equal(t, []string{pipeline.ReasonField}, fieldNames(err))
		_, err = w.Svc.CreateJob(w.As(t, "olivia"), pipeline.NewJob{Title: "One too many", Reasoned: pipeline.Because("Hiring")})
		assert.Equal(t, pipeline.EForbidden, pipeline.ErrorCode(err))
	})
	eachWorld(t, "the feed shows the reason", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		_, err := w.Svc.AddNote(ctx, w.Job("backend"), w.Res.Candidates["ada"],
			pipeline.NewNote{Content: "Strong.", Reasoned: pipeline.Because("Summing up the screening call.")})
		require.NoError(t, err)
		_, err = w.Svc.AddNote(ctx, w.Job("backend"), w.Res.Candidates["ada"], pipeline.NewNote{Content: "No reason."})
		require.NoError(t, err)
		settleFeed(t, w, ctx, 2)
		page, err := w.Svc.ListActivity(ctx, pipeline.FeedFilter{})
		require.NoError(t, err)
		require.Len(t, page.Entries, 2)
		require.NotNil(t, page.Entries[0].Reason)
		assert.Equal(t, "Summing up the screening call.", *page.Entries[0].Reason)
		assert.Nil(t, page.Entries[1].Reason)
	})
	eachWorld(t, "a key is bound to the reason", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		job, ada := w.Job("backend"), w.Res.Candidates["ada"]
		note := func(k string, r pipeline.Reasoned) error {
			_, err := w.Svc.AddNote(ctx, job, ada, pipeline.NewNote{Content: "Keyed.", Idempotency: key(k), Reasoned: r})
			return err
		}
		require.NoError(t, note("k1", pipeline.Because("First call.")))
		res, err := w.Svc.AddNote(ctx, job, ada, pipeline.NewNote{Content: "Keyed.", Idempotency: key("k1"), Reasoned: pipeline.Because("First call.")})
		require.NoError(t, err)
		assert.True(t, res.Replayed, "the same reason replays")
		for _, other := range []pipeline.Reasoned{pipeline.Because("Second call."), {}} {
			err := note("k1", other)
			assert.Equal(t, []string{pipeline.IdempotencyField}, fieldNames(err), "another reason is another request")
		}
		require.NoError(t, note("k2", pipeline.Reasoned{}))
		assert.Equal(t, []string{pipeline.IdempotencyField}, fieldNames(note("k2", pipeline.Because("Now with a reason."))))
	})
}

// hasInput reports whether a write of the probe table takes fields of its
// own, which its invalid probe gets wrong.
// requesterOnly reports whether only the token that made a proposal may
// call op, which a probe's caller never is: TestService_WithdrawProposal
// has its cases.
func requesterOnly(op pipeline.Op) bool { return op == pipeline.OpWithdrawProposal }

func hasInput(op pipeline.Op) bool {
	switch op {
	case pipeline.OpDeleteWebhook, pipeline.OpCancelMessage, pipeline.OpCancelInterview, pipeline.OpRetryMessage, pipeline.OpRemoveDocument,
		pipeline.OpWithdrawProposal, pipeline.OpDeleteTag, pipeline.OpUntagCandidate:
		return false
	}
	return true
}

// TestRequestDigest_NoReason: a write without a reason is the request it
// was before writes had one, so keys stored then still replay.
func TestRequestDigest_NoReason(t *testing.T) {
	ref := pipeline.Ref{Job: 3, Candidate: 7}
	assert.Equal(t, digestBeforeReasons, pipeline.RequestDigest(pipeline.OpAddNote, ref, &pipeline.NewNote{Content: "Hello."}))
	assert.NotEqual(t, digestBeforeReasons, pipeline.RequestDigest(pipeline.OpAddNote, ref,
		&pipeline.NewNote{Content: "Hello.", Reasoned: pipeline.Because("Why not.")}))
}

// digestBeforeReasons is the digest of add_note {"content": "Hello."} on
// job 3's candidate 7 as the Service computed it before writes took a
// reason.
const digestBeforeReasons = "afbefeae464a3fd7a74090992fc39ddefb19b1fe03e2d8ad21bc29625b2d5bc0"

// TestService_BadReasonBeforeClash: a bad reason is part of the input, so
// it is the answer to a schedule or a reschedule onto a booked time, on
// both databases, whether or not the write's statements waited to be sent
// together until the write ended (without mail nothing sends them
// earlier).
func TestService_BadReasonBeforeClash(t *testing.T) {
	check := func(t *testing.T, w world) {
		ctx, job := w.As(t, "olivia"), w.Job("backend")
		schedule(t, w, 1, "olivia")
		blank := pipeline.Reasoned{Reason: new("  ")}
		onto := interviewAt(w, 1, "olivia")
		onto.Reasoned = blank
		_, err := w.Svc.ScheduleInterview(ctx, job, w.Res.Candidates["grace"], onto)
		assert.Equal(t, []string{pipeline.ReasonField}, fieldNames(err), "schedule: %v", err)

		later, err := w.Svc.ScheduleInterview(ctx, job, w.Res.Candidates["grace"], interviewAt(w, 3, "olivia"))
		require.NoError(t, err)
		patch := pipeline.InterviewPatch{Start: new(slotAt(1, 0)), End: new(slotAt(2, 0)), Reasoned: blank}
		_, err = w.Svc.RescheduleInterview(ctx, job, w.Res.Candidates["grace"], later.Value.ID, patch)
		assert.Equal(t, []string{pipeline.ReasonField}, fieldNames(err), "reschedule: %v", err)
	}
	eachWorld(t, "with invitations", check)
	t.Run("without mail", func(t *testing.T) {
		t.Parallel()
		storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
			check(t, storetest.Seeded(t, db))
		})
	})
}
