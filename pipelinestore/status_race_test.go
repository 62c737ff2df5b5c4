package pipelinestore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// withdraw sets ada's status to withdrawn in a goroutine, which cancels
// her interviews to come; its error comes on the channel.
func (r erasureRace) withdraw() <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := r.f.Svc.UpdateCandidate(r.olivia, r.job, r.ada, pipeline.CandidatePatch{Status: new(pipeline.CandidateWithdrawn)})
		done <- err
	}()
	return done
}

// moved is a slot for the past interview a day after it, still to come
// at the time of the status change and clear of the future interview.
func (r erasureRace) moved() (time.Time, time.Time) {
	return r.past.Start.Add(23 * time.Hour), r.past.End.Add(23 * time.Hour)
}

// waitOrEnd polls until a backend waits for a lock the backend blocker
// holds, or until done delivers; it reports what done delivered, if it did.
func (r erasureRace) waitOrEnd(t *testing.T, blocker int, done <-chan error, msg string) (err error, ended bool) {
	t.Helper()
	require.Eventually(t, func() bool {
		select {
		case err = <-done:
			ended = true
			return true
		default:
			return r.waiter(blocker) != 0
		}
	}, 20*time.Second, 2*time.Millisecond, msg)
	return err, ended
}

// scheduledToCome counts ada's scheduled interviews that end after the
// time of the status change.
func (r erasureRace) scheduledToCome(t *testing.T) int {
	t.Helper()
	var n int
	require.NoError(t, r.pool.QueryRowContext(context.Background(), `SELECT count(*) FROM interviews
		WHERE candidate_id = $1 AND status = 'scheduled' AND ends_at > $2`, r.ada, r.past.End.Add(time.Hour)).Scan(&n))
	return n
}

// TestStore_StatusChangeAfterInterviewChange: a candidate's leaving
// active that finds a reschedule of their past interview into the time to
// come in progress (its lock held, its row moved) waits for it, and then
// cancels the moved interview as any of theirs to come: sequence, activity
// entry, cancellation mails. Read in the snapshot of its locking read, the
// interview was over, and stayed scheduled.
func TestStore_StatusChangeAfterInterviewChange(t *testing.T) {
	textAndPrepared(t, func(t *testing.T, opts ...pipelinestore.Option) {
		r := newErasureRace(t, opts)
		bg := context.Background()
		change, pid := r.hold(t, r.past.ID)
		start, end := r.moved()
		_, err := change.ExecContext(bg, `UPDATE interviews SET starts_at = $2, ends_at = $3, sequence = sequence + 1 WHERE id = $1`,
			r.past.ID, start, end)
		require.NoError(t, err)
		_, err = change.ExecContext(bg, `UPDATE interview_interviewers SET starts_at = $2, ends_at = $3 WHERE interview_id = $1`,
			r.past.ID, start, end)
		require.NoError(t, err)

		withdrawn := r.withdraw()
		// Before the mend the status change did not wait.
		err, ended := r.waitOrEnd(t, pid, withdrawn, "the status change waits for the reschedule's lock, or ends")
		require.NoError(t, change.Commit())
		if !ended {
			err = <-withdrawn
		}
		require.NoError(t, err)

		var status string
		var sequence int
		require.NoError(t, r.pool.QueryRowContext(bg, `SELECT status, sequence FROM interviews WHERE id = $1`, r.past.ID).
			Scan(&status, &sequence))
		assert.Equal(t, pipeline.InterviewCancelled, status, "the moved interview")
		assert.Equal(t, r.past.Sequence+2, sequence, "the reschedule's change and the cancellation")
		var entries, mails, busy int
		require.NoError(t, r.pool.QueryRowContext(bg, `SELECT count(*) FROM activity
			WHERE action = $1 AND subject_type = 'interview' AND subject_id = $2`, pipeline.ActionInterviewCancelled, r.past.ID).Scan(&entries))
		assert.Equal(t, 1, entries, "the cancellation's activity entry")
		require.NoError(t, r.pool.QueryRowContext(bg, `SELECT count(*) FROM invitation_mails
			WHERE interview_id = $1 AND sequence = $2 AND method = $3`, r.past.ID, sequence, pipeline.MethodCancel).Scan(&mails))
		assert.NotZero(t, mails, "the cancellation's mails")
		require.NoError(t, r.pool.QueryRowContext(bg, `SELECT count(*) FROM interview_interviewers
			WHERE interview_id = $1 AND active`, r.past.ID).Scan(&busy))
		assert.Zero(t, busy, "the interviewers are free")
		assert.Zero(t, r.scheduledToCome(t), "ada's scheduled interviews to come")
	})
}

// TestStore_InterviewChangeAfterStatusChange: a reschedule of a
// candidate's past interview into the time to come that waits for the
// candidate's leaving active is refused once that commits, as for any
// candidate who is not active. Its read of the interview began before the
// status change committed, so that read alone saw the candidate active;
// and before the mend the status change did not lock the past interview,
// so the reschedule did not wait at all.
//
// The status change is held on its way (a transaction on a connection of
// its own locks the candidate's future interview) once it has locked the
// past one: it locks a candidate's interviews in order of id.
func TestStore_InterviewChangeAfterStatusChange(t *testing.T) {
	textAndPrepared(t, func(t *testing.T, opts ...pipelinestore.Option) {
		r := newErasureRace(t, opts)
		held, pid := r.hold(t, r.future.ID)
		withdrawn := r.withdraw()
		statusChange := r.waitFor(t, pid, "the status change waits for the future interview")

		start, end := r.moved()
		from, to := start.Format(time.RFC3339), end.Format(time.RFC3339)
		changed := make(chan error, 1)
		go func() {
			_, err := r.f.Svc.RescheduleInterview(r.olivia, r.job, r.ada, r.past.ID, pipeline.InterviewPatch{Start: &from, End: &to})
			changed <- err
		}()
		changeErr, ended := r.waitOrEnd(t, statusChange, changed, "the reschedule waits for the status change, or ends")
		require.NoError(t, held.Rollback())
		require.NoError(t, <-withdrawn)
		if !ended {
			changeErr = <-changed
		}

		assert.Zero(t, r.scheduledToCome(t), "ada's scheduled interviews to come")
		var perr *pipeline.Error
		require.True(t, errors.As(changeErr, &perr), "the reschedule is refused: %v", changeErr)
		assert.Equal(t, pipeline.EForbidden, perr.Code)
		assert.Equal(t, "The candidate is not active.", perr.Message)
	})
}
