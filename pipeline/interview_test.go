package pipeline_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// slotAt is the RFC 3339 text of a time h hours (and m minutes) after
// 06:00 UTC two days from now: in the future, and for the hours the tests
// use on one day in UTC and in Paris, whatever the time of the run (an
// invitation writes an interview that crosses midnight with its dates).
func slotAt(h, m int) string {
	base := time.Now().UTC().Truncate(24 * time.Hour).Add(48*time.Hour + 6*time.Hour)
	return base.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute).Format(time.RFC3339)
}

// slotTime is slotAt as a time.
func slotTime(t *testing.T, h, m int) time.Time {
	v, err := time.Parse(time.RFC3339, slotAt(h, m))
	require.NoError(t, err)
	return v
}

// schedule schedules an interview of ada on backend as olivia, from hour h
// for an hour, with the interviewers of the fixture user keys.
func schedule(t *testing.T, w world, h int, interviewers ...string) pipeline.Interview {
	t.Helper()
	res, err := w.Svc.ScheduleInterview(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], interviewAt(w, h, interviewers...))
	require.NoError(t, err)
	return res.Value
}

// interviewAt is the input of an hour's interview from hour h with the
// interviewers of the fixture user keys.
func interviewAt(w world, h int, interviewers ...string) pipeline.NewInterview {
	in := pipeline.NewInterview{Start: slotAt(h, 0), End: slotAt(h+1, 0)}
	for _, u := range interviewers {
		in.InterviewerIDs = append(in.InterviewerIDs, w.User(u))
	}
	return in
}

// busyOf is the busy times of a conflict's details.
func busyOf(t *testing.T, err error) []pipeline.Busy {
	t.Helper()
	require.ErrorIs(t, err, pipeline.ErrConflict)
	var e *pipeline.Error
	require.ErrorAs(t, err, &e)
	d, ok := e.Details.(pipeline.BusyDetails)
	require.True(t, ok, "the details are the busy times: %#v", e.Details)
	return d.Busy
}

func TestService_ScheduleInterview(t *testing.T) {
	eachWorld(t, "ok", func(t *testing.T, w world) {
		in := pipeline.NewInterview{
			Start: strings.Replace(slotAt(2, 0), "Z", "+00:00", 1), End: slotAt(3, 30), Timezone: "Europe/Paris",
			InterviewerIDs: []int64{w.User("mia"), w.User("olivia")}, Location: "Room 1", VideoURL: "https://meet.example.test/x",
		}
		res, err := w.Svc.ScheduleInterview(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], in)
		require.NoError(t, err)
		iv := res.Value
		assert.Equal(t, slotTime(t, 2, 0), iv.Start)
		assert.Equal(t, time.UTC, iv.Start.Location())
		assert.Equal(t, slotTime(t, 3, 30), iv.End)
		assert.Equal(t, "Europe/Paris", iv.Timezone)
		assert.Equal(t, pipeline.InterviewScheduled, iv.Status)
		assert.Equal(t, 0, iv.Sequence)
		assert.Equal(t, []pipeline.User{
			{ID: w.User("mia"), Name: "Mia Member", Email: "mia@acme.test"},
			{ID: w.User("olivia"), Name: "Olivia Owner", Email: "olivia@acme.test"},
		}, iv.Interviewers, "in the order given")
		assert.Equal(t, w.User("olivia"), iv.CreatedBy.ID)
		read, err := w.Svc.GetInterview(w.As(t, "mia"), w.Job("backend"), w.Res.Candidates["ada"], iv.ID)
		require.NoError(t, err)
		assert.Equal(t, iv.Start, read.Start)
		assert.Equal(t, iv.Interviewers, read.Interviewers)
		assert.Equal(t, iv.CreatedAt, read.CreatedAt)
		log := w.Activity(t)
		require.Len(t, log, 1)
		assert.Equal(t, pipeline.ActionInterviewScheduled, log[0].Action)
		assert.Equal(t, pipeline.SubjectInterview, log[0].SubjectType)
		assert.Equal(t, iv.ID, log[0].SubjectID)
		assert.Equal(t, w.Job("backend"), log[0].JobID)
		ch := changesOf(t, log[0])
		assert.Equal(t, map[string]any{"before": nil, "after": slotAt(2, 0)}, ch["start"])
		assert.Equal(t, map[string]any{"before": nil, "after": []any{float64(w.User("mia")), float64(w.User("olivia"))}}, ch["interviewer_ids"])
	})
	eachWorld(t, "the time zone defaults to UTC", func(t *testing.T, w world) {
		assert.Equal(t, "UTC", schedule(t, w, 1, "olivia").Timezone)
	})
	eachWorld(t, "a candidate of another job, or beyond reach, is not found", func(t *testing.T, w world) {
		_, err := w.Svc.ScheduleInterview(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ken"], interviewAt(w, 1, "olivia"))
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
		_, err = w.Svc.ScheduleInterview(w.As(t, "mia"), w.Job("frontend"), w.Res.Candidates["ken"], interviewAt(w, 1, "mia"))
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
	})
}

// TestService_ScheduleInterview_Rules: each rule of an interview's fields,
// then the candidate's status, in the API's check order.
func TestService_ScheduleInterview_Rules(t *testing.T) {
	eachWorld(t, "every rule", func(t *testing.T, w world) {
		ids := func(keys ...string) []int64 {
			var out []int64
			for _, k := range keys {
				out = append(out, w.User(k))
			}
			return out
		}
		eleven := make([]int64, 11)
		for i := range eleven {
			eleven[i] = int64(i + 1)
		}
		valid := func() pipeline.NewInterview { return interviewAt(w, 1, "olivia") }
		cases := []struct {
			name  string
			edit  func(*pipeline.NewInterview)
			field string
		}{
			{"an unknown time zone", func(in *pipeline.NewInterview) { in.Timezone = "Mars/Olympus" }, "timezone"},
			{"Local is no IANA name", func(in *pipeline.NewInterview) { in.Timezone = "Local" }, "timezone"},
			{"shorter than 15 minutes", func(in *pipeline.NewInterview) { in.End = slotAt(1, 14) }, "end"},
			{"longer than 8 hours", func(in *pipeline.NewInterview) { in.End = slotAt(9, 1) }, "end"},
			{"the end before the start", func(in *pipeline.NewInterview) { in.End = slotAt(0, 30) }, "end"},
			{"the end at the start", func(in *pipeline.NewInterview) { in.End = in.Start }, "end"},
			{"no offset", func(in *pipeline.NewInterview) { in.Start = strings.TrimSuffix(in.Start, "Z") }, "start"},
			{"in the past", func(in *pipeline.NewInterview) {
				in.Start = time.Now().Add(-2 * time.Hour).Format(time.RFC3339)
				in.End = time.Now().Add(-time.Hour).Format(time.RFC3339)
			}, "start"},
			{"more than 365 days ahead", func(in *pipeline.NewInterview) {
				in.Start = time.Now().Add(366 * 24 * time.Hour).Format(time.RFC3339)
				in.End = time.Now().Add(366*24*time.Hour + time.Hour).Format(time.RFC3339)
			}, "start"},
			{"an interviewer of another team", func(in *pipeline.NewInterview) { in.InterviewerIDs = ids("olivia", "gary") }, "interviewer_ids"},
			{"no such user", func(in *pipeline.NewInterview) { in.InterviewerIDs = []int64{missing} }, "interviewer_ids"},
			{"an interviewer twice", func(in *pipeline.NewInterview) { in.InterviewerIDs = ids("olivia", "mia", "olivia") }, "interviewer_ids"},
			{"no interviewer", func(in *pipeline.NewInterview) { in.InterviewerIDs = nil }, "interviewer_ids"},
			{"more than 10 interviewers", func(in *pipeline.NewInterview) { in.InterviewerIDs = eleven }, "interviewer_ids"},
			{"a location over 255 characters", func(in *pipeline.NewInterview) { in.Location = strings.Repeat("é", 256) }, "location"},
			{"a video url over http", func(in *pipeline.NewInterview) { in.VideoURL = "http://meet.example.test/x" }, "video_url"},
			{"a video url over 2,048 characters", func(in *pipeline.NewInterview) {
				in.VideoURL = "https://meet.example.test/" + strings.Repeat("x", 2048)
			}, "video_url"},
			{"a video url that is no URL", func(in *pipeline.NewInterview) { in.VideoURL = "https://" }, "video_url"},
		}
		for _, c := range cases {
			in := valid()
			c.edit(&in)
			_, err := w.Svc.ScheduleInterview(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], in)
			require.ErrorIs(t, err, pipeline.ErrValidation, c.name)
			assert.Equal(t, []string{c.field}, fieldNames(err), c.name)
			// The same input for a candidate who is not active: the input first.
			_, err = w.Svc.ScheduleInterview(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["linus"], in)
			assert.ErrorIs(t, err, pipeline.ErrValidation, c.name)
		}
		in := valid()
		in.Location, in.VideoURL = strings.Repeat("é", 255), "https://meet.example.test/"+strings.Repeat("x", 2048-26)
		in.InterviewerIDs = ids("olivia", "adam", "mia", "nina")
		_, err := w.Svc.ScheduleInterview(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], in)
		require.NoError(t, err, "the limits themselves, and team members who are not on the job")
		assert.Len(t, w.Activity(t), 1, "only the valid one is logged")
	})
	eachWorld(t, "a candidate who is not active is forbidden", func(t *testing.T, w world) {
		_, err := w.Svc.ScheduleInterview(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["linus"], interviewAt(w, 1, "olivia"))
		assert.ErrorIs(t, err, pipeline.ErrForbidden)
		assert.Empty(t, w.Activity(t))
	})
	eachWorld(t, "several fields are reported together", func(t *testing.T, w world) {
		in := pipeline.NewInterview{Start: "soon", Timezone: "Nowhere", Location: strings.Repeat("x", 256)}
		_, err := w.Svc.ScheduleInterview(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], in)
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Equal(t, []string{"end", "interviewer_ids", "location", "start", "timezone"}, fieldNames(err))
	})
}

// TestService_ScheduleInterview_NoDoubleBooking: an interviewer or the
// candidate booked at an overlapping time is a conflict that tells the busy
// times and nothing of the interview they belong to.
func TestService_ScheduleInterview_NoDoubleBooking(t *testing.T) {
	eachWorld(t, "an interviewer busy", func(t *testing.T, w world) {
		first := schedule(t, w, 1, "olivia", "mia")
		in := pipeline.NewInterview{Start: slotAt(1, 30), End: slotAt(2, 30), InterviewerIDs: []int64{w.User("adam"), w.User("mia")}}
		_, err := w.Svc.ScheduleInterview(w.As(t, "adam"), w.Job("backend"), w.Res.Candidates["grace"], in)
		assert.Equal(t, []pipeline.Busy{{UserID: w.User("mia"), Start: first.Start, End: first.End}}, busyOf(t, err))
		assert.Len(t, w.Activity(t), 1)
	})
	eachWorld(t, "the candidate busy", func(t *testing.T, w world) {
		first := schedule(t, w, 1, "olivia")
		in := pipeline.NewInterview{Start: slotAt(0, 30), End: slotAt(1, 15), InterviewerIDs: []int64{w.User("adam")}}
		_, err := w.Svc.ScheduleInterview(w.As(t, "adam"), w.Job("backend"), w.Res.Candidates["ada"], in)
		assert.Equal(t, []pipeline.Busy{{CandidateID: w.Res.Candidates["ada"], Start: first.Start, End: first.End}}, busyOf(t, err))
	})
	eachWorld(t, "back to back, and apart, do not clash", func(t *testing.T, w world) {
		schedule(t, w, 1, "olivia")
		schedule(t, w, 2, "olivia")
		schedule(t, w, 0, "olivia")
		schedule(t, w, 5, "olivia")
		assert.Len(t, w.Activity(t), 4)
	})
	eachWorld(t, "a cancelled interview frees its time", func(t *testing.T, w world) {
		first := schedule(t, w, 1, "olivia")
		_, err := w.Svc.CancelInterview(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], first.ID, pipeline.InterviewCancellation{})
		require.NoError(t, err)
		schedule(t, w, 1, "olivia")
	})
	eachWorld(t, "the input and the candidate's status before the conflict", func(t *testing.T, w world) {
		schedule(t, w, 1, "olivia")
		in := interviewAt(w, 1, "olivia")
		in.Timezone = "Nowhere"
		_, err := w.Svc.ScheduleInterview(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["grace"], in)
		assert.ErrorIs(t, err, pipeline.ErrValidation)
		_, err = w.Svc.ScheduleInterview(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["linus"], interviewAt(w, 1, "olivia"))
		assert.ErrorIs(t, err, pipeline.ErrForbidden)
	})
}

// TestService_ScheduleInterview_Concurrent: of overlapping bookings made at
// once on two replicas, exactly one succeeds.
func TestService_ScheduleInterview_Concurrent(t *testing.T) {
	const n = 20
	// candidates adds n active candidates to backend.
	candidates := func(t *testing.T, w world) []int64 {
		ids := make([]int64, n)
		for i := range ids {
			res, err := w.Svc.AddCandidate(w.As(t, "olivia"), w.Job("backend"),
				pipeline.NewCandidate{Name: "Twin", Email: fmt.Sprintf("twin%d@example.test", i)})
			require.NoError(t, err)
			ids[i] = res.Value.ID
		}
		return ids
	}
	// race schedules, on the two Services by turns, interview i of
	// candidate i with olivia, at once.
	race := func(t *testing.T, w world, other *pipeline.Service, cands []int64, at func(i int) (string, string)) []error {
		errs := make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			svc := []*pipeline.Service{w.Svc, other}[i%2]
			ctx := w.As(t, "olivia")
			from, to := at(i)
			in := pipeline.NewInterview{Start: from, End: to, InterviewerIDs: []int64{w.User("olivia")}}
			wg.Go(func() {
				<-start
				_, errs[i] = svc.ScheduleInterview(ctx, w.Job("backend"), cands[i], in)
			})
		}
		close(start)
		wg.Wait()
		return errs
	}
	eachReplicated(t, "overlapping: one 201, 19 conflicts", func(t *testing.T, w world, other *pipeline.Service) {
		errs := race(t, w, other, candidates(t, w), func(i int) (string, string) { return slotAt(1, i), slotAt(2, i) })
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
				continue
			}
			assert.NotEmpty(t, busyOf(t, err), "a conflict names the busy time")
		}
		assert.Equal(t, 1, ok)
		scheduled := 0
		for _, a := range w.Activity(t) {
			if a.Action == pipeline.ActionInterviewScheduled {
				scheduled++
			}
		}
		assert.Equal(t, 1, scheduled)
	})
	eachReplicated(t, "back to back: all succeed", func(t *testing.T, w world, other *pipeline.Service) {
		errs := race(t, w, other, candidates(t, w), func(i int) (string, string) { return slotAt(0, 30*i), slotAt(0, 30*(i+1)) })
		for _, err := range errs {
			assert.NoError(t, err)
		}
	})
}

func TestService_RescheduleInterview(t *testing.T) {
	reschedule := func(t *testing.T, w world, id int64, p pipeline.InterviewPatch) (pipeline.Interview, error) {
		res, err := w.Svc.RescheduleInterview(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], id, p)
		return res.Value, err
	}
	eachWorld(t, "a change adds 1 to the sequence and logs before and after", func(t *testing.T, w world) {
		iv := schedule(t, w, 1, "olivia")
		moved, err := reschedule(t, w, iv.ID, pipeline.InterviewPatch{Start: new(slotAt(1, 30)), End: new(slotAt(2, 30))})
		require.NoError(t, err, "onto a time that overlaps its own old one")
		assert.Equal(t, 1, moved.Sequence)
		assert.Equal(t, slotTime(t, 1, 30), moved.Start)
		again, err := reschedule(t, w, iv.ID, pipeline.InterviewPatch{Location: new("Room 2"), InterviewerIDs: &[]int64{w.User("mia")}})
		require.NoError(t, err)
		assert.Equal(t, 2, again.Sequence)
		assert.Equal(t, "Mia Member", again.Interviewers[0].Name)
		log := w.Activity(t)
		require.Len(t, log, 3)
		assert.Equal(t, pipeline.ActionInterviewRescheduled, log[1].Action)
		assert.Equal(t, map[string]any{
			"start": map[string]any{"before": slotAt(1, 0), "after": slotAt(1, 30)},
			"end":   map[string]any{"before": slotAt(2, 0), "after": slotAt(2, 30)},
		}, changesOf(t, log[1]))
		assert.Equal(t, map[string]any{
			"location":        map[string]any{"before": nil, "after": "Room 2"},
			"interviewer_ids": map[string]any{"before": []any{float64(w.User("olivia"))}, "after": []any{float64(w.User("mia"))}},
		}, changesOf(t, log[2]))
		read, err := w.Svc.GetInterview(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], iv.ID)
		require.NoError(t, err)
		assert.Equal(t, again.Interviewers, read.Interviewers)
		assert.Equal(t, 2, read.Sequence)
	})
	eachWorld(t, "nothing changed: no entry, the same sequence", func(t *testing.T, w world) {
		iv := schedule(t, w, 1, "olivia")
		same, err := reschedule(t, w, iv.ID, pipeline.InterviewPatch{Start: new(slotAt(1, 0)), Timezone: new("UTC"),
			InterviewerIDs: &[]int64{w.User("olivia")}})
		require.NoError(t, err)
		assert.Equal(t, 0, same.Sequence)
		assert.Len(t, w.Activity(t), 1)
	})
	eachWorld(t, "onto a busy time is a conflict", func(t *testing.T, w world) {
		iv := schedule(t, w, 1, "olivia")
		res, err := w.Svc.ScheduleInterview(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["grace"], interviewAt(w, 3, "mia"))
		require.NoError(t, err)
		_, err = reschedule(t, w, iv.ID, pipeline.InterviewPatch{InterviewerIDs: &[]int64{w.User("olivia"), w.User("mia")},
			Start: new(slotAt(3, 0)), End: new(slotAt(4, 0))})
		assert.Equal(t, []pipeline.Busy{{UserID: w.User("mia"), Start: res.Value.Start, End: res.Value.End}}, busyOf(t, err))
		read, err := w.Svc.GetInterview(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], iv.ID)
		require.NoError(t, err)
		assert.Equal(t, 0, read.Sequence, "unchanged")
	})
	eachWorld(t, "the rules of scheduling hold", func(t *testing.T, w world) {
		iv := schedule(t, w, 1, "olivia")
		_, err := reschedule(t, w, iv.ID, pipeline.InterviewPatch{End: new(slotAt(10, 0))})
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Equal(t, []string{"end"}, fieldNames(err))
		_, err = reschedule(t, w, iv.ID, pipeline.InterviewPatch{InterviewerIDs: &[]int64{w.User("gary")}})
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Equal(t, []string{"interviewer_ids"}, fieldNames(err))
		_, err = reschedule(t, w, iv.ID, pipeline.InterviewPatch{})
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Equal(t, []string{"body"}, fieldNames(err))
	})
	eachWorld(t, "a cancelled interview is forbidden, after the input", func(t *testing.T, w world) {
		iv := schedule(t, w, 1, "olivia")
		_, err := w.Svc.CancelInterview(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], iv.ID, pipeline.InterviewCancellation{})
		require.NoError(t, err)
		_, err = reschedule(t, w, iv.ID, pipeline.InterviewPatch{Location: new("Room 3")})
		assert.ErrorIs(t, err, pipeline.ErrForbidden)
		_, err = reschedule(t, w, iv.ID, pipeline.InterviewPatch{Timezone: new("Nowhere")})
		assert.ErrorIs(t, err, pipeline.ErrValidation)
	})
	eachWorld(t, "an interview of another candidate is not found", func(t *testing.T, w world) {
		iv := schedule(t, w, 1, "olivia")
		_, err := w.Svc.RescheduleInterview(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["grace"], iv.ID,
			pipeline.InterviewPatch{Location: new("x")})
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
		_, err = w.Svc.GetInterview(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["grace"], iv.ID)
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
	})
}

func TestService_CancelInterview(t *testing.T) {
	eachWorld(t, "cancelled once, then unchanged", func(t *testing.T, w world) {
		iv := schedule(t, w, 1, "olivia")
		cancel := func() pipeline.Interview {
			res, err := w.Svc.CancelInterview(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], iv.ID, pipeline.InterviewCancellation{})
			require.NoError(t, err)
			return res.Value
		}
		first := cancel()
		assert.Equal(t, pipeline.InterviewCancelled, first.Status)
		assert.Equal(t, 1, first.Sequence)
		again := cancel()
		assert.Equal(t, 1, again.Sequence)
		log := w.Activity(t)
		require.Len(t, log, 2)
		assert.Equal(t, pipeline.ActionInterviewCancelled, log[1].Action)
		assert.Equal(t, map[string]any{"status": map[string]any{"before": "scheduled", "after": "cancelled"}}, changesOf(t, log[1]))
	})
}

func TestService_ListInterviews(t *testing.T) {
	eachWorld(t, "by start, with interviewers, paged", func(t *testing.T, w world) {
		late := schedule(t, w, 5, "olivia", "mia")
		early := schedule(t, w, 1, "adam")
		l, err := w.Svc.ListInterviews(w.As(t, "mia"), w.Job("backend"), w.Res.Candidates["ada"], pipeline.InterviewFilter{})
		require.NoError(t, err)
		require.Len(t, l.Items, 2)
		assert.Equal(t, 2, l.Total)
		assert.Equal(t, []int64{early.ID, late.ID}, []int64{l.Items[0].ID, l.Items[1].ID})
		assert.Len(t, l.Items[1].Interviewers, 2)
		past, err := w.Svc.ListInterviews(w.As(t, "mia"), w.Job("backend"), w.Res.Candidates["ada"], pipeline.InterviewFilter{Page: 2})
		require.NoError(t, err)
		assert.Empty(t, past.Items)
		assert.Equal(t, 2, past.Total)
		none, err := w.Svc.ListInterviews(w.As(t, "mia"), w.Job("backend"), w.Res.Candidates["grace"], pipeline.InterviewFilter{})
		require.NoError(t, err)
		assert.Empty(t, none.Items)
		_, err = w.Svc.ListInterviews(w.As(t, "gary"), w.Job("backend"), w.Res.Candidates["ada"], pipeline.InterviewFilter{Page: -1})
		assert.ErrorIs(t, err, pipeline.ErrNotFound, "not found before invalid")
		_, err = w.Svc.ListInterviews(w.As(t, "mia"), w.Job("backend"), w.Res.Candidates["ada"], pipeline.InterviewFilter{Page: -1})
		assert.ErrorIs(t, err, pipeline.ErrValidation)
	})
}

func TestService_Availability(t *testing.T) {
	eachWorld(t, "busy times only", func(t *testing.T, w world) {
		a := schedule(t, w, 1, "olivia", "mia")
		b := schedule(t, w, 3, "olivia")
		c := schedule(t, w, 5, "olivia")
		_, err := w.Svc.CancelInterview(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], c.ID, pipeline.InterviewCancellation{})
		require.NoError(t, err)
		got, err := w.Svc.GetAvailability(w.As(t, "mia"), pipeline.AvailabilityQuery{
			UserIDs: []int64{w.User("mia"), w.User("olivia"), w.User("nina"), w.User("mia")}, From: slotAt(0, 0), To: slotAt(24, 0)})
		require.NoError(t, err)
		assert.Equal(t, []pipeline.UserBusy{
			{UserID: w.User("mia"), Busy: []pipeline.Busy{{Start: a.Start, End: a.End}}},
			{UserID: w.User("olivia"), Busy: []pipeline.Busy{{Start: a.Start, End: a.End}, {Start: b.Start, End: b.End}}},
			{UserID: w.User("nina"), Busy: []pipeline.Busy{}},
		}, got, "each user once, in the order asked; a cancelled interview is no busy time")
		got, err = w.Svc.GetAvailability(w.As(t, "mia"), pipeline.AvailabilityQuery{UserIDs: []int64{w.User("olivia")}, From: slotAt(2, 0), To: slotAt(3, 0)})
		require.NoError(t, err)
		assert.Equal(t, []pipeline.Busy{}, got[0].Busy, "the window is half-open as the interviews are")
	})
	eachWorld(t, "the input", func(t *testing.T, w world) {
		ask := func(q pipeline.AvailabilityQuery) []string {
			_, err := w.Svc.GetAvailability(w.As(t, "olivia"), q)
			require.ErrorIs(t, err, pipeline.ErrValidation)
			return fieldNames(err)
		}
		team := []int64{w.User("olivia")}
		assert.Equal(t, []string{"user_ids"}, ask(pipeline.AvailabilityQuery{UserIDs: []int64{w.User("gary")}, From: slotAt(0, 0), To: slotAt(1, 0)}))
		assert.Equal(t, []string{"user_ids"}, ask(pipeline.AvailabilityQuery{From: slotAt(0, 0), To: slotAt(1, 0)}))
		assert.Equal(t, []string{"to"}, ask(pipeline.AvailabilityQuery{UserIDs: team, From: slotAt(0, 0), To: slotAt(31*24, 1)}))
		assert.Equal(t, []string{"to"}, ask(pipeline.AvailabilityQuery{UserIDs: team, From: slotAt(1, 0), To: slotAt(1, 0)}))
		assert.Equal(t, []string{"from", "to"}, ask(pipeline.AvailabilityQuery{UserIDs: team, From: "today", To: ""}))
		_, err := w.Svc.GetAvailability(w.As(t, "olivia"), pipeline.AvailabilityQuery{UserIDs: team, From: slotAt(0, 0), To: slotAt(31*24, 0)})
		assert.NoError(t, err, "31 days")
	})
}

func TestService_InterviewInvite(t *testing.T) {
	eachWorld(t, "a request while scheduled, a cancellation once cancelled, one UID", func(t *testing.T, w world) {
		svc := pipeline.NewService(w.DB, pipeline.WithCalendar(pipeline.Calendar{Domain: "Hiring.Example.Test"}))
		ctx := w.As(t, "olivia")
		res, err := svc.ScheduleInterview(ctx, w.Job("backend"), w.Res.Candidates["ada"], interviewAt(w, 1, "mia"))
		require.NoError(t, err)
		iv := res.Value
		inv, err := svc.GetInterviewInvite(ctx, w.Job("backend"), w.Res.Candidates["ada"], iv.ID)
		require.NoError(t, err)
		assert.Regexp(t, fmt.Sprintf(`^interview-%d-[0-9a-f]{16}@hiring\.example\.test$`, iv.ID), inv.UID)
		assert.Equal(t, iv.UID, inv.UID)
		assert.Equal(t, pipeline.MethodRequest, inv.Method)
		assert.Equal(t, "noreply@hiring.example.test", inv.Organizer.Email, "without mail, noreply at the domain")
		assert.Equal(t, "ada@example.test", inv.Interview.CandidateEmail)
		_, err = svc.CancelInterview(ctx, w.Job("backend"), w.Res.Candidates["ada"], iv.ID, pipeline.InterviewCancellation{})
		require.NoError(t, err)
		inv2, err := svc.GetInterviewInvite(ctx, w.Job("backend"), w.Res.Candidates["ada"], iv.ID)
		require.NoError(t, err)
		assert.Equal(t, inv.UID, inv2.UID)
		assert.Equal(t, pipeline.MethodCancel, inv2.Method)
		_, err = svc.GetInterviewInvite(w.As(t, "gary"), w.Job("backend"), w.Res.Candidates["ada"], iv.ID)
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
	})
	eachWorld(t, "the UID and organizer are stored: other settings later change neither", func(t *testing.T, w world) {
		ctx, job, ada := w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"]
		without := pipeline.NewService(w.DB)
		res, err := without.ScheduleInterview(ctx, job, ada, interviewAt(w, 1, "mia"))
		require.NoError(t, err)
		first := res.Value
		assert.Regexp(t, fmt.Sprintf(`^interview-%d-[0-9a-f]{16}@localhost$`, first.ID), first.UID)
		assert.Equal(t, "noreply@localhost", first.Organizer.Email)
		second := schedule(t, w, 3, "mia") // with mail: the From address
		assert.Regexp(t, fmt.Sprintf(`^interview-%d-[0-9a-f]{16}@acme\.example$`, second.ID), second.UID)
		assert.NotEqual(t, strings.Split(first.UID, "@")[0][len(fmt.Sprint("interview-", first.ID)):],
			strings.Split(second.UID, "@")[0][len(fmt.Sprint("interview-", second.ID)):], "random digits")

		for _, svc := range []*pipeline.Service{w.Svc, without,
			pipeline.NewService(w.DB, pipeline.WithCalendar(pipeline.Calendar{Domain: "elsewhere.example.test"}))} {
			inv, err := svc.GetInterviewInvite(ctx, job, ada, first.ID)
			require.NoError(t, err)
			assert.Equal(t, first.UID, inv.UID)
			assert.Equal(t, pipeline.User{Email: "noreply@localhost"}, inv.Organizer)
			inv, err = svc.GetInterviewInvite(ctx, job, ada, second.ID)
			require.NoError(t, err)
			assert.Equal(t, second.UID, inv.UID)
			assert.Equal(t, pipeline.User{Name: "Acme Hiring", Email: "jobs@acme.example"}, inv.Organizer)
		}
		res, err = w.Svc.RescheduleInterview(ctx, job, ada, first.ID, pipeline.InterviewPatch{Location: new("Room 2")})
		require.NoError(t, err)
		assert.Equal(t, first.UID, res.Value.UID, "a change keeps it")
		assert.Equal(t, "noreply@localhost", res.Value.Organizer.Email)
	})
}

// interviewProbes call the operations of this file's resource for the tables of
// operations (see probe).
var interviewProbes = []operation{
	{pipeline.OpScheduleInterview, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		in := probeInterview(p.user)
		in.Timezone = pick(p, "UTC", "Nowhere")
		in.Idempotency = p.idem
		in.Reason = p.reason
		_, err := svc.ScheduleInterview(ctx, p.ref.Job, p.ref.Candidate, in)
		return err
	}},
	{pipeline.OpRescheduleInterview, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		patch := pipeline.InterviewPatch{Location: new("Room " + strconv.FormatInt(probeSlots.Add(1), 10)), Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}}
		if !p.valid {
			patch.Timezone = new("Nowhere")
		}
		_, err := svc.RescheduleInterview(ctx, p.ref.Job, p.ref.Candidate, p.ref.Interview, patch)
		return err
	}},
	{pipeline.OpCancelInterview, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.CancelInterview(ctx, p.ref.Job, p.ref.Candidate, p.ref.Interview, pipeline.InterviewCancellation{Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
	{pipeline.OpListInterviews, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.ListInterviews(ctx, p.ref.Job, p.ref.Candidate, pipeline.InterviewFilter{Page: pick(p, 1, -1)})
		return err
	}},
	{pipeline.OpGetInterview, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.GetInterview(ctx, p.ref.Job, p.ref.Candidate, p.ref.Interview)
		return err
	}},
	{pipeline.OpGetInterviewInvite, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.GetInterviewInvite(ctx, p.ref.Job, p.ref.Candidate, p.ref.Interview)
		return err
	}},
	{pipeline.OpGetAvailability, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		from := time.Now().UTC().Truncate(time.Second)
		_, err := svc.GetAvailability(ctx, pipeline.AvailabilityQuery{UserIDs: []int64{p.user},
			From: from.Format(time.RFC3339), To: from.Add(pick(p, time.Hour, 32*24*time.Hour)).Format(time.RFC3339)})
		return err
	}},
}

// probeSlots numbers the probes' interviews, each an hour of its own, and
// their changes.
var probeSlots atomic.Int64

// probeInterview is an hour's interview with the interviewer user, at a
// time no other probe's takes.
func probeInterview(user int64) pipeline.NewInterview {
	start := time.Now().UTC().Truncate(time.Hour).Add(time.Duration(24+probeSlots.Add(1)) * time.Hour)
	return pipeline.NewInterview{Start: start.Format(time.RFC3339), End: start.Add(time.Hour).Format(time.RFC3339),
		InterviewerIDs: []int64{user}}
}
