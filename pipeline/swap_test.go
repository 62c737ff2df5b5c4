package pipeline_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/mail/mailtest"
)

func TestInvitations_SwappedInterviewer(t *testing.T) {
	eachWorld(t, "the removed one is told the time they had, the added one is invited", func(t *testing.T, w world) {
		s := mailtest.Start(t, mailtest.Options{})
		sendQueue(t, w.DB, s)
		ctx, job, ada := w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"]
		res, err := w.Svc.ScheduleInterview(ctx, job, ada, pipeline.NewInterview{
			Start: slotAt(2, 0), End: slotAt(3, 0), InterviewerIDs: []int64{w.User("mia")}})
		require.NoError(t, err)
		waitInvitations(t, s, 0, 2)
		_, err = w.Svc.RescheduleInterview(ctx, job, ada, res.Value.ID, pipeline.InterviewPatch{
			Start: new(slotAt(5, 0)), End: new(slotAt(6, 0)), InterviewerIDs: &[]int64{w.User("adam")}})
		require.NoError(t, err)
		byTo := map[string]invitationMail{}
		for _, m := range waitInvitations(t, s, 2, 5) {
			byTo[m.To] = m
		}
		what := "Interview with Ada Lovelace for Backend Engineer"
		mia, adam, cand := byTo["mia@acme.test"], byTo["adam@acme.test"], byTo["ada@example.test"]
		assert.Equal(t, "No longer invited: "+what, mia.Subject)
		assert.Contains(t, mia.Text, slotTime(t, 2, 0).Format("15:04")+"–", "the time mia had")
		assert.NotContains(t, mia.Text, slotTime(t, 5, 0).Format("15:04")+"–")
		assert.Equal(t, slotTime(t, 2, 0).Format("20060102T150405Z"), prop(mia.Event, "DTSTART"))
		assert.Equal(t, "1", prop(mia.Event, "SEQUENCE"))
		assert.Equal(t, "Invitation: "+what, adam.Subject, "adam never had it")
		assert.NotContains(t, adam.Text, "has changed")
		assert.Equal(t, "REQUEST", adam.Method)
		assert.Equal(t, slotTime(t, 5, 0).Format("20060102T150405Z"), prop(adam.Event, "DTSTART"))
		assert.Equal(t, "Updated invitation: "+what, cand.Subject)
		assert.Contains(t, cand.Text, "This interview has changed.")
	})
}
