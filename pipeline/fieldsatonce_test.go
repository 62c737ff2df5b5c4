package pipeline_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// A 422 names every offending field of the request at once: the checks
// that consult the database (a stage of another job, a taken email, an
// interviewer or a user who is no member of the team, a webhook URL's
// host) answer with the fields' own checks, and with what a face could
// not read.
func TestService_EveryOffendingFieldAtOnce(t *testing.T) {
	unknown := pipeline.Invalid("referrer", "The referrer field is not allowed.")
	assertFields := func(t *testing.T, err error, want pipeline.FieldErrors) {
		t.Helper()
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Equal(t, want, pipeline.Fields(err))
	}
	eachWorld(t, "add_candidate", func(t *testing.T, w world) {
		ctx, job := w.As(t, "olivia"), w.Job("backend")
		other := w.Res.Stages["frontend"]["Applied"]
		_, err := w.Svc.AddCandidate(ctx, job, pipeline.NewCandidate{Name: " ", Email: "not-an-email", StageID: other})
		assertFields(t, err, pipeline.FieldErrors{
			"name":  {"The name field is required."},
			"email": {"The email must be a valid email address."},
			"stage": {"The stage must be the id of a stage of this job."},
		})
		_, err = w.Svc.AddCandidate(ctx, job, pipeline.NewCandidate{Name: " ", Email: "GRACE@example.test", StageID: other})
		assertFields(t, err, pipeline.FieldErrors{
			"name":  {"The name field is required."},
			"email": {"The email has already been taken."},
			"stage": {"The stage must be the id of a stage of this job."},
		})
		_, err = w.Svc.AddCandidate(ctx, job, pipeline.NewCandidate{Name: "New One", Email: "grace@example.test", StageID: other, Unread: unknown})
		assertFields(t, err, pipeline.FieldErrors{
			"referrer": {"The referrer field is not allowed."},
			"email":    {"The email has already been taken."},
			"stage":    {"The stage must be the id of a stage of this job."},
		})
		assert.Empty(t, w.Activity(t))
	})
	eachWorld(t, "update_candidate", func(t *testing.T, w world) {
		ctx, job, ada := w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"]
		_, err := w.Svc.UpdateCandidate(ctx, job, ada, pipeline.CandidatePatch{Name: new(" "), Email: new("Grace@example.test")})
		assertFields(t, err, pipeline.FieldErrors{
			"name":  {"The name field is required."},
			"email": {"The email has already been taken."},
		})
		_, err = w.Svc.UpdateCandidate(ctx, job, ada, pipeline.CandidatePatch{Email: new("grace@example.test"), Unread: unknown})
		assertFields(t, err, pipeline.FieldErrors{
			"referrer": {"The referrer field is not allowed."},
			"email":    {"The email has already been taken."},
		})
		_, err = w.Svc.UpdateCandidate(ctx, job, ada, pipeline.CandidatePatch{Name: new(" "), Email: new("ADA@example.test")})
		assertFields(t, err, pipeline.FieldErrors{"name": {"The name field is required."}}) // its own email is not taken
		assert.Empty(t, w.Activity(t))
	})
	eachWorld(t, "move_candidate", func(t *testing.T, w world) {
		_, err := w.Svc.MoveCandidate(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"],
			pipeline.CandidateMove{StageID: w.Res.Stages["frontend"]["Offer"], Unread: unknown})
		assertFields(t, err, pipeline.FieldErrors{
			"referrer": {"The referrer field is not allowed."},
			"stage":    {"The stage must be the id of a stage of this job."},
		})
	})
	eachWorld(t, "list_candidates", func(t *testing.T, w world) {
		_, err := w.Svc.ListCandidates(w.As(t, "olivia"), w.Job("backend"),
			pipeline.CandidateFilter{Status: "hiring", StageID: w.Res.Stages["frontend"]["Offer"]})
		assertFields(t, err, pipeline.FieldErrors{
			"status": {"The status must be one of active, hired, rejected, withdrawn."},
			"stage":  {"The stage must be the id of a stage of this job."},
		})
	})
	eachWorld(t, "schedule_interview and reschedule_interview", func(t *testing.T, w world) {
		ctx, job, ada := w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"]
		in := interviewAt(w, 1, "olivia", "gary") // gary is on globex
		in.End = in.Start
		_, err := w.Svc.ScheduleInterview(ctx, job, ada, in)
		assertFields(t, err, pipeline.FieldErrors{
			"end":             {"The end must be after the start."},
			"interviewer_ids": {"Each interviewer must be a member of the job's team."},
		})
		iv := schedule(t, w, 3, "olivia")
		start, end := time.Now().Add(-2*time.Hour).UTC().Format(time.RFC3339), time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
		_, err = w.Svc.RescheduleInterview(ctx, job, ada, iv.ID, pipeline.InterviewPatch{
			Start: &start, End: &end, InterviewerIDs: &[]int64{w.User("gary")}, Unread: unknown})
		assertFields(t, err, pipeline.FieldErrors{
			"referrer":        {"The referrer field is not allowed."},
			"start":           {"The start may not be in the past."},
			"interviewer_ids": {"Each interviewer must be a member of the job's team."},
		})
		assert.Len(t, w.Activity(t), 1, "the one interview scheduled")
	})
	eachWorld(t, "get_availability", func(t *testing.T, w world) {
		from := time.Now().UTC().Truncate(time.Hour)
		_, err := w.Svc.GetAvailability(w.As(t, "olivia"), pipeline.AvailabilityQuery{UserIDs: []int64{w.User("gary")},
			From: from.Format(time.RFC3339), To: from.Add(-time.Hour).Format(time.RFC3339)})
		assertFields(t, err, pipeline.FieldErrors{
			"user_ids": {"Each user must be a member of the token's current team."},
			"to":       {"The to must be after the from."},
		})
	})
	eachWorld(t, "create_webhook", func(t *testing.T, w world) {
		_, err := w.Svc.CreateWebhook(w.As(t, "olivia"), pipeline.NewWebhook{URL: "ftp://hooks.example.test/x", Events: []string{"job.opened"}})
		assertFields(t, err, pipeline.FieldErrors{
			"url":    {"The url must use https or http."},
			"events": {"The selected event job.opened is not an action."},
		})
	})
}
