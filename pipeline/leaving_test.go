package pipeline_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/mail/mailtest"
)

func TestService_UpdateCandidate_LeavingCancelsInterviews(t *testing.T) {
	eachClockedWorld(t, "their future interviews are cancelled, as the same caller", func(t *testing.T, w world, clock *time.Time) {
		s := mailtest.Start(t, mailtest.Options{})
		sendQueue(t, w.DB, s)
		ctx, job, ada := w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"]
		soon := schedule(t, w, 1, "mia")
		later := schedule(t, w, 3, "olivia", "mia")
		gone := schedule(t, w, 5, "adam")
		_, err := w.Svc.CancelInterview(ctx, job, ada, gone.ID, pipeline.InterviewCancellation{})
		require.NoError(t, err)
		waitInvitations(t, s, 0, 9)

		*clock = soon.End.Add(time.Minute) // the first one is over
		status := pipeline.CandidateRejected
		_, err = w.Svc.UpdateCandidate(ctx, job, ada, pipeline.CandidatePatch{Status: &status})
		require.NoError(t, err)

		read := func(id int64) pipeline.Interview {
			iv, err := w.Svc.GetInterview(ctx, job, ada, id)
			require.NoError(t, err)
			return iv
		}
		assert.Equal(t, pipeline.InterviewScheduled, read(soon.ID).Status, "an interview that is over is left as it is")
		assert.Equal(t, 0, read(soon.ID).Sequence)
		assert.Equal(t, pipeline.InterviewCancelled, read(later.ID).Status)
		assert.Equal(t, 1, read(later.ID).Sequence)
		assert.Equal(t, 1, read(gone.ID).Sequence, "a cancelled interview is not cancelled again")

		log := w.Activity(t)
		require.Len(t, log, 6)
		updated, cancelled := log[4], log[5]
		assert.Equal(t, pipeline.ActionCandidateUpdated, updated.Action)
		assert.Equal(t, pipeline.ActionInterviewCancelled, cancelled.Action)
		assert.Equal(t, later.ID, cancelled.SubjectID)
		assert.Equal(t, map[string]any{"status": map[string]any{"before": "scheduled", "after": "cancelled"}}, changesOf(t, cancelled))
		assert.Equal(t, []any{updated.UserID, updated.TokenID, updated.IP}, []any{cancelled.UserID, cancelled.TokenID, cancelled.IP},
			"the same actor")

		mails := waitInvitations(t, s, 9, 12)
		var to []string
		for _, m := range mails {
			to = append(to, m.To)
			assert.Equal(t, "CANCEL", m.Method)
			assert.Equal(t, "1", prop(m.Event, "SEQUENCE"))
		}
		slices.Sort(to)
		assert.Equal(t, []string{"ada@example.test", "mia@acme.test", "olivia@acme.test"}, to)

		status = pipeline.CandidateHired
		_, err = w.Svc.UpdateCandidate(ctx, job, ada, pipeline.CandidatePatch{Status: &status})
		require.NoError(t, err)
		assert.Len(t, w.Activity(t), 7, "from one status out of the running to another, nothing more is cancelled")
	})
}
