package pipelinestore_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// interviewFeed is the feed's interview.rescheduled and interview.cancelled
// entries about ada's interviews, each as "action past" or "action future",
// in feed order, once n of them are final: an entry appears only once every
// transaction that began before it ended, some of other tests perhaps.
func (r erasureRace) interviewFeed(t *testing.T, n int) []string {
	t.Helper()
	var got []string
	var err error
	after := ""
	names := map[int64]string{r.past.ID: "past", r.future.ID: "future"}
	require.Eventually(t, func() bool {
		var page pipeline.FeedPage
		page, err = r.f.Svc.ListActivity(r.olivia, pipeline.FeedFilter{After: after, Limit: 100,
			Actions: []string{pipeline.ActionInterviewRescheduled, pipeline.ActionInterviewCancelled}})
		if err != nil {
			return true
		}
		for _, e := range page.Entries {
			if name, ok := names[e.SubjectID]; ok && e.SubjectType == pipeline.SubjectInterview {
				got = append(got, e.Action+" "+name)
			}
		}
		after = page.Next
		return len(got) >= n
	}, 20*time.Second, 2*time.Millisecond, "%d entries about ada's interviews in the feed", n)
	require.NoError(t, err)
	return got
}

// sweep runs the retention pass in a goroutine; its error comes on the
// channel.
func (r erasureRace) sweep() <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := r.f.Svc.SweepRetention(context.Background(), false)
		done <- err
	}()
	return done
}

// expire has ada's candidacy expire: her future interview is now a new
// one, two months on; the team keeps candidates the least it may; the job
// closes; the clock goes past that period, which is in effect by then.
func (r *erasureRace) expire(t *testing.T) {
	t.Helper()
	start := r.clock.Add(60 * 24 * time.Hour)
	iv, err := r.f.Svc.ScheduleInterview(r.olivia, r.job, r.ada, pipeline.NewInterview{Start: start.Format(time.RFC3339),
		End: start.Add(time.Hour).Format(time.RFC3339), InterviewerIDs: []int64{r.f.User("mia")}})
	require.NoError(t, err)
	r.future = iv.Value
	_, err = r.f.Op.SetRetention(context.Background(), r.f.Res.Teams["acme"], pipeline.MinRetentionDays)
	require.NoError(t, err)
	closed := pipeline.JobClosed
	_, err = r.f.Svc.UpdateJob(r.olivia, r.job, pipeline.JobPatch{Status: &closed})
	require.NoError(t, err)
	*r.clock = r.clock.Add(pipeline.RetentionDelay + (pipeline.MinRetentionDays+1)*24*time.Hour)
}

// leavers are the writes that cancel ada's interviews to come: her status
// leaving active, her erasure, and the retention pass that erases her once
// her job is closed (prepared by expire).
var leavers = []leaver{
	{name: "status change", leave: erasureRace.withdraw},
	{name: "erasure", erases: true, leave: erasureRace.erase},
	{name: "retention", erases: true, prepare: (*erasureRace).expire, leave: erasureRace.sweep},
}

// leaver is a write that cancels ada's interviews to come.
type leaver struct {
	name    string
	erases  bool
	prepare func(r *erasureRace, t *testing.T)
	leave   func(r erasureRace) <-chan error
}

// eachLeaver runs body for each leaver, as text and prepared, once the
// leaver is on its way and waits at ada's interview that heldAt names,
// which a transaction on a connection of its own (held) locks; left
// brings the leaver's error, waiting is its backend.
func eachLeaver(t *testing.T, heldAt func(erasureRace) pipeline.Interview,
	body func(t *testing.T, r erasureRace, l leaver, held *sql.Tx, left <-chan error, waiting int)) {
	for _, l := range leavers {
		t.Run(l.name, func(t *testing.T) {
			textAndPrepared(t, func(t *testing.T, opts ...pipelinestore.Option) {
				r := newErasureRace(t, opts)
				if l.prepare != nil {
					l.prepare(&r, t)
				}
				iv := heldAt(r)
				held, pid := r.hold(t, iv.ID)
				left := l.leave(r)
				name := map[int64]string{r.past.ID: "past", r.future.ID: "future"}[iv.ID]
				waiting := r.waitFor(t, pid, "the "+l.name+" waits for the "+name+" interview")
				body(t, r, l, held, left, waiting)
			})
		})
	}
}

// TestStore_FeedInterviewChangeBeforeLeaving: a reschedule of ada's
// future interview that takes effect while her status change, her erasure
// or the retention pass is on its way (held at her past interview, which
// a transaction on a connection of its own locks), before that write
// cancels the interview, comes before the cancellation in the feed, as it
// did in effect. Before the mend those writes took their transaction ids
// with ada's row, before they waited for her interviews, and the feed
// listed the cancellation first: a consumer then held the interview for
// scheduled.
func TestStore_FeedInterviewChangeBeforeLeaving(t *testing.T) {
	eachLeaver(t, func(r erasureRace) pipeline.Interview { return r.past },
		func(t *testing.T, r erasureRace, l leaver, held *sql.Tx, left <-chan error, _ int) {
			_, err := r.f.Svc.RescheduleInterview(r.olivia, r.job, r.ada, r.future.ID, pipeline.InterviewPatch{Location: new("Room 2")})
			require.NoError(t, err, "the reschedule does not wait")
			require.NoError(t, held.Rollback())
			require.NoError(t, <-left)

			assert.Equal(t, []string{pipeline.ActionInterviewRescheduled + " future", pipeline.ActionInterviewCancelled + " future"},
				r.interviewFeed(t, 2), "the feed, in the order the writes took effect")
		})
}

// TestStore_FeedInterviewChangeAfterLeaving: a cancellation of ada's
// past interview that waits for her status change, her erasure or the
// retention pass (held on its way at her future interview, once it holds
// the past one) comes after it: after its cancellation of the future
// interview in the feed, or, after an erasure, refused and nowhere in the
// feed.
func TestStore_FeedInterviewChangeAfterLeaving(t *testing.T) {
	eachLeaver(t, func(r erasureRace) pipeline.Interview { return r.future },
		func(t *testing.T, r erasureRace, l leaver, held *sql.Tx, left <-chan error, leaving int) {
			cancelled := make(chan error, 1)
			go func() {
				_, err := r.f.Svc.CancelInterview(r.olivia, r.job, r.ada, r.past.ID, pipeline.InterviewCancellation{})
				cancelled <- err
			}()
			err, ended := r.waitOrEnd(t, leaving, cancelled, "the cancellation waits for the "+l.name+", or ends")
			require.False(t, ended, "the cancellation ended before the %s: %v", l.name, err)
			require.NoError(t, held.Rollback())
			require.NoError(t, <-left)
			err = <-cancelled

			want := []string{pipeline.ActionInterviewCancelled + " future", pipeline.ActionInterviewCancelled + " past"}
			if l.erases {
				var perr *pipeline.Error
				require.True(t, errors.As(err, &perr), "the cancellation is refused: %v", err)
				assert.Equal(t, "The candidate was erased.", perr.Message)
				want = want[:1]
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, want, r.interviewFeed(t, len(want)), "the feed, in the order the writes took effect")
		})
}
