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
	"github.com/pipeline-dev/pipeline/pipeline/ical"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// The person the erasure races tests erase: the fixture's ada.
const raceName, raceEmail = "Ada Lovelace", "ada@example.test"

// erasureRace is a mailing PostgreSQL store whose clock the test moves,
// with ada's interviews: one over by the time of the erasure (past), one
// to come (future), scheduled in that order.
type erasureRace struct {
	db           *pipelinestore.DB
	f            storetest.Fixture
	pool         *sql.DB
	olivia       context.Context
	job, ada     int64
	past, future pipeline.Interview
	clock        *time.Time // the service's
}

func newErasureRace(t *testing.T, opts []pipelinestore.Option) erasureRace {
	clock := time.Now().UTC().Truncate(time.Second)
	db, f := mailingStore(t, opts, pipeline.WithInvitations(ical.Render),
		pipeline.WithClock(pipeline.ClockFunc(func() time.Time { return clock })))
	r := erasureRace{db: db, f: f, pool: db.Pools()["postgres"], olivia: f.As(t, "olivia"), job: f.Job("backend"),
		ada: f.Res.Candidates["ada"], clock: &clock}
	schedule := func(from time.Duration) pipeline.Interview {
		start := clock.Add(from)
		iv, err := f.Svc.ScheduleInterview(r.olivia, r.job, r.ada, pipeline.NewInterview{Start: start.Format(time.RFC3339),
			End: start.Add(time.Hour).Format(time.RFC3339), InterviewerIDs: []int64{f.User("mia")}})
		require.NoError(t, err)
		return iv.Value
	}
	r.past, r.future = schedule(time.Hour), schedule(72*time.Hour)
	clock = clock.Add(3 * time.Hour) // the first is over
	return r
}

// erase erases ada in a goroutine; its error comes on the channel.
func (r erasureRace) erase() <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := r.f.Svc.ErasePerson(r.olivia, pipeline.PersonErasure{Email: raceEmail, Reasoned: pipeline.Because("Art. 17 request")})
		done <- err
	}()
	return done
}

// waiter is the pid of a backend waiting for a lock that the backend
// blocker holds, or 0.
func (r erasureRace) waiter(blocker int) int {
	var pid int
	err := r.pool.QueryRowContext(context.Background(), `SELECT pid FROM pg_stat_activity
		WHERE wait_event_type = 'Lock' AND $1 = ANY(pg_blocking_pids(pid))`, blocker).Scan(&pid)
	if err != nil {
		return 0
	}
	return pid
}

// waitFor returns the pid of the backend that waits for a lock blocker
// holds, once one does.
func (r erasureRace) waitFor(t *testing.T, blocker int, msg string) int {
	t.Helper()
	var pid int
	require.Eventually(t, func() bool { pid = r.waiter(blocker); return pid != 0 }, 20*time.Second, 2*time.Millisecond, msg)
	return pid
}

// hold begins a transaction on a connection of its own that locks the
// interview id as a change of it does, and returns it with its backend's
// pid.
func (r erasureRace) hold(t *testing.T, id int64) (*sql.Tx, int) {
	t.Helper()
	bg := context.Background()
	tx, err := r.pool.BeginTx(bg, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = tx.Rollback() })
	var pid int
	require.NoError(t, tx.QueryRowContext(bg, `SELECT pg_backend_pid()`).Scan(&pid))
	_, err = tx.ExecContext(bg, `SELECT id FROM interviews WHERE id = $1 AND pipeline_lock_record('interview', $1) FOR NO KEY UPDATE`, id)
	require.NoError(t, err)
	return tx, pid
}

// assertNoTrace checks that no invitation mail and no River job names
// the person.
func (r erasureRace) assertNoTrace(t *testing.T) {
	t.Helper()
	for _, v := range []string{raceName, raceEmail} {
		for _, table := range []string{"invitation_mails", "river_job"} {
			var n int
			require.NoError(t, r.pool.QueryRowContext(context.Background(),
				`SELECT count(*) FROM `+table+` AS x WHERE strpos(lower(x::text), lower($1)) > 0`, v).Scan(&n))
			assert.Zero(t, n, "rows of %s holding %q", table, v)
		}
	}
}

// TestStore_ErasureAfterInterviewChange: an erasure that finds a change of
// one of the person's interviews in progress (its lock held, its new
// invitation mail and the mail's River job written, as a reschedule
// writes them) waits for it, and then deletes that mail and its job
// with the others. Deleting the mails before locking the interviews left
// them behind.
func TestStore_ErasureAfterInterviewChange(t *testing.T) {
	textAndPrepared(t, func(t *testing.T, opts ...pipelinestore.Option) {
		r := newErasureRace(t, opts)
		bg := context.Background()
		change, pid := r.hold(t, r.future.ID)
		_, err := change.ExecContext(bg, `UPDATE interviews SET sequence = sequence + 1, location = 'Room 2' WHERE id = $1`, r.future.ID)
		require.NoError(t, err)
		_, err = change.ExecContext(bg, `INSERT INTO invitation_mails (interview_id, sequence, position, method, recipient,
			recipient_name, subject, body, calendar, status, attempts, created_at)
			VALUES ($1, 1, 0, 'REQUEST', $2, $3, 'Interview moved', 'Dear ' || $3 || ', it is in Room 2.', '', 'queued', 0, now())`,
			r.future.ID, raceEmail, raceName)
		require.NoError(t, err)
		_, err = change.ExecContext(bg, `INSERT INTO river_job (args, kind, max_attempts, queue)
			VALUES (json_build_object('interview_id', $1::bigint, 'sequence', 1, 'position', 0), 'pipeline_invitation_place', 3, 'messages')`,
			r.future.ID)
		require.NoError(t, err)

		erased := r.erase()
		r.waitFor(t, pid, "the erasure waits for the change's lock")
		require.NoError(t, change.Commit())
		require.NoError(t, <-erased)

		r.assertNoTrace(t)
		var jobs int
		require.NoError(t, r.pool.QueryRowContext(bg, `SELECT count(*) FROM river_job WHERE kind = 'pipeline_invitation_place'
			AND args->>'interview_id' = $1::text AND args->>'sequence' = '1'`, r.future.ID).Scan(&jobs))
		assert.Zero(t, jobs, "the job of the change's mail went with it")
	})
}

// TestStore_InterviewChangeAfterErasure: a reschedule or a cancellation
// that waits for an erasure's lock on one of the person's interviews, one
// the erasure does not cancel as it is over, is refused once the erasure
// commits, as any write to an erased candidate; it writes no mail naming
// the person. Its read of the interview began before the erasure
// committed, so that read alone saw the candidate as before it.
//
// The erasure is held on its way (a transaction on a connection of its
// own locks the person's future interview) once it has locked the past
// one: it locks a person's interviews in order of id.
func TestStore_InterviewChangeAfterErasure(t *testing.T) {
	changes := map[string]func(r erasureRace) error{
		"reschedule": func(r erasureRace) error {
			_, err := r.f.Svc.RescheduleInterview(r.olivia, r.job, r.ada, r.past.ID, pipeline.InterviewPatch{Location: new("Room 2")})
			return err
		},
		"cancel": func(r erasureRace) error {
			_, err := r.f.Svc.CancelInterview(r.olivia, r.job, r.ada, r.past.ID, pipeline.InterviewCancellation{})
			return err
		},
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			textAndPrepared(t, func(t *testing.T, opts ...pipelinestore.Option) {
				r := newErasureRace(t, opts)
				held, pid := r.hold(t, r.future.ID)
				erased := r.erase()
				erasure := r.waitFor(t, pid, "the erasure waits for the future interview")

				changed := make(chan error, 1)
				go func() { changed <- change(r) }()
				// Before the mend the change did not wait: it wrote its
				// mails while the erasure was held.
				var changeErr error
				finished := false
				require.Eventually(t, func() bool {
					select {
					case changeErr = <-changed:
						finished = true
						return true
					default:
						return r.waiter(erasure) != 0
					}
				}, 20*time.Second, 2*time.Millisecond, "the change waits for the erasure, or ends")
				require.NoError(t, held.Rollback())
				require.NoError(t, <-erased)
				if !finished {
					changeErr = <-changed
				}

				r.assertNoTrace(t)
				var perr *pipeline.Error
				require.True(t, errors.As(changeErr, &perr), "the change is refused: %v", changeErr)
				assert.Equal(t, pipeline.EForbidden, perr.Code)
				assert.Equal(t, "The candidate was erased.", perr.Message)
			})
		})
	}
}
