package pipelinestore_test

import (
	"context"
	"log/slog"
	netmail "net/mail"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/ical"
	"github.com/pipeline-dev/pipeline/pipeline/mail"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// mailingStore is a seeded PostgreSQL store opened with opts, whose
// Service sends mail (to the log) with the options extra.
func mailingStore(t *testing.T, opts []pipelinestore.Option, extra ...pipeline.Option) (*pipelinestore.DB, storetest.Fixture) {
	db := storetest.OpenPostgres(t, opts...)
	mailer, err := mail.New("log:", mail.WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	from := &netmail.Address{Name: "Acme Hiring", Address: "jobs@acme.example"}
	return db, storetest.Seeded(t, db, append([]pipeline.Option{pipeline.WithMail(from, mailer)}, extra...)...)
}

// refuseJobs has PostgreSQL refuse River jobs whose kind is LIKE kinds,
// until allow is called.
func refuseJobs(t *testing.T, db *pipelinestore.DB, kinds string) (allow func()) {
	t.Helper()
	pool := db.Pools()["postgres"]
	_, err := pool.Exec(`ALTER TABLE river_job ADD CONSTRAINT refused_jobs CHECK (kind NOT LIKE '` + kinds + `')`)
	require.NoError(t, err)
	return func() {
		_, err := pool.Exec(`ALTER TABLE river_job DROP CONSTRAINT refused_jobs`)
		require.NoError(t, err)
	}
}

// TestStore_MessageFailsWithItsJob: a message and its River job commit
// together or not at all, also when River's insert waits in the batch
// with the message (prepared statements). PostgreSQL refuses the job here,
// then accepts it: the first send leaves nothing behind, not even its
// key's record, and the same key then sends the message once, with one job.
func TestStore_MessageFailsWithItsJob(t *testing.T) {
	textAndPrepared(t, func(t *testing.T, opts ...pipelinestore.Option) {
		db, f := mailingStore(t, opts)
		olivia := f.As(t, "olivia")
		job, ada := f.Job("backend"), f.Res.Candidates["ada"]
		pool := db.Pools()["postgres"]
		bg := context.Background()
		allow := refuseJobs(t, db, "pipeline_message")
		send := func() (pipeline.Result[pipeline.Message], error) {
			return f.Svc.SendMessage(olivia, job, ada, pipeline.NewMessage{Subject: "Hello", Body: "Hi.",
				Idempotency: &pipeline.Idempotency{Key: "hello"}})
		}

		_, err := send()
		require.Error(t, err, "River refused the message's job")
		got, err := f.Svc.ListMessages(olivia, job, ada, pipeline.MessageFilter{})
		require.NoError(t, err)
		assert.Empty(t, got.Items, "no message without its job")
		for _, a := range f.Activity(t) {
			assert.NotEqual(t, pipeline.ActionCandidateMessaged, a.Action, "no activity entry without the message")
		}

		allow()
		sent, err := send()
		require.NoError(t, err)
		assert.False(t, sent.Replayed, "the failed send left no key's record to replay")
		got, err = f.Svc.ListMessages(olivia, job, ada, pipeline.MessageFilter{})
		require.NoError(t, err)
		require.Len(t, got.Items, 1)
		var jobs int
		require.NoError(t, pool.QueryRowContext(bg, `SELECT count(*) FROM river_job WHERE kind = 'pipeline_message' AND args->>'message_id' = $1::text`,
			sent.Value.ID).Scan(&jobs))
		assert.Equal(t, 1, jobs, "the message's one job")
	})
}

// TestStore_MessageQueuesItsWebhookDelivery: a message to a team with a
// webhook commits its own job, which waits in the batch, and the
// delivery of its activity entry, whose job the batch's rows make (the
// events' contract: a delivery is queued in the write's transaction).
func TestStore_MessageQueuesItsWebhookDelivery(t *testing.T) {
	textAndPrepared(t, func(t *testing.T, opts ...pipelinestore.Option) {
		db, f := mailingStore(t, opts, pipeline.WithSecretKey(secretKey))
		olivia := f.As(t, "olivia")
		hook, err := f.Svc.CreateWebhook(olivia, pipeline.NewWebhook{URL: "https://93.184.216.34/hook",
			Events: []string{pipeline.ActionCandidateMessaged}})
		require.NoError(t, err)
		sent, err := f.Svc.SendMessage(olivia, f.Job("backend"), f.Res.Candidates["ada"], pipeline.NewMessage{Subject: "Hello", Body: "Hi."})
		require.NoError(t, err)

		pool, bg := db.Pools()["postgres"], context.Background()
		var messages, deliveries int
		require.NoError(t, pool.QueryRowContext(bg, `SELECT count(*) FROM river_job WHERE kind = 'pipeline_message' AND args->>'message_id' = $1::text`,
			sent.Value.ID).Scan(&messages))
		require.NoError(t, pool.QueryRowContext(bg, `SELECT count(*) FROM river_job WHERE kind = 'pipeline_webhook_delivery' AND args->>'webhook_id' = $1::text`,
			hook.Value.ID).Scan(&deliveries))
		assert.Equal(t, 1, messages, "the message's job")
		assert.Equal(t, 1, deliveries, "the delivery of its activity entry")
	})
}

// invitationJobs counts the River jobs of the invitation mails of the
// interview id.
func invitationJobs(t *testing.T, db *pipelinestore.DB, id int64) int {
	t.Helper()
	var n int
	require.NoError(t, db.Pools()["postgres"].QueryRowContext(context.Background(),
		`SELECT count(*) FROM river_job WHERE kind = 'pipeline_invitation_place' AND args->>'interview_id' = $1::text`, id).Scan(&n))
	return n
}

// TestStore_ScheduleFailsWithItsInvitations: an interview, its invitation
// mails and their River jobs commit together or not at all, also when
// River's insert waits in the batch with them (prepared statements).
// PostgreSQL refuses the jobs here, then accepts them: the first schedule
// leaves nothing behind, not even its key's record; the same key then
// schedules the interview once, with a job for each mail, and a
// reschedule adds the jobs of its own mails.
func TestStore_ScheduleFailsWithItsInvitations(t *testing.T) {
	textAndPrepared(t, func(t *testing.T, opts ...pipelinestore.Option) {
		db, f := mailingStore(t, opts, pipeline.WithInvitations(ical.Render))
		olivia := f.As(t, "olivia")
		job, ada := f.Job("backend"), f.Res.Candidates["ada"]
		allow := refuseJobs(t, db, "pipeline_invitation%")
		start := time.Now().UTC().Truncate(time.Hour).Add(48 * time.Hour)
		schedule := func() (pipeline.Result[pipeline.Interview], error) {
			return f.Svc.ScheduleInterview(olivia, job, ada, pipeline.NewInterview{Start: start.Format(time.RFC3339),
				End: start.Add(time.Hour).Format(time.RFC3339), InterviewerIDs: []int64{f.User("mia")},
				Idempotency: &pipeline.Idempotency{Key: "schedule"}})
		}

		_, err := schedule()
		require.Error(t, err, "River refused the invitations' jobs")
		got, err := f.Svc.ListInterviews(olivia, job, ada, pipeline.InterviewFilter{})
		require.NoError(t, err)
		assert.Empty(t, got.Items, "no interview without its invitations' jobs")
		for _, a := range f.Activity(t) {
			assert.NotEqual(t, pipeline.ActionInterviewScheduled, a.Action, "no activity entry without the interview")
		}

		allow()
		iv, err := schedule()
		require.NoError(t, err)
		assert.False(t, iv.Replayed, "the failed schedule left no key's record to replay")
		assert.Equal(t, 2, invitationJobs(t, db, iv.Value.ID), "a job for mia's mail and for ada's")
		later := start.Add(2 * time.Hour).Format(time.RFC3339)
		_, err = f.Svc.RescheduleInterview(olivia, job, ada, iv.Value.ID, pipeline.InterviewPatch{Start: &later,
			End: new(start.Add(3 * time.Hour).Format(time.RFC3339)), InterviewerIDs: new([]int64{f.User("adam")})})
		require.NoError(t, err)
		assert.Equal(t, 5, invitationJobs(t, db, iv.Value.ID), "and for the change: ada's, adam's and mia's cancellation")
	})
}

// TestStore_ErasureTakesInvitationJobs: erasing a person deletes the River
// jobs of their interviews' invitation mails, whose rows may keep a
// failed attempt's error naming the recipient; the cancellation of their
// future interview then queues its own.
func TestStore_ErasureTakesInvitationJobs(t *testing.T) {
	db, f := mailingStore(t, nil, pipeline.WithInvitations(ical.Render))
	olivia := f.As(t, "olivia")
	job, ada := f.Job("backend"), f.Res.Candidates["ada"]
	start := time.Now().UTC().Truncate(time.Hour).Add(48 * time.Hour)
	iv, err := f.Svc.ScheduleInterview(olivia, job, ada, pipeline.NewInterview{Start: start.Format(time.RFC3339),
		End: start.Add(time.Hour).Format(time.RFC3339), InterviewerIDs: []int64{f.User("mia")}})
	require.NoError(t, err)
	require.Equal(t, 2, invitationJobs(t, db, iv.Value.ID))
	pool, bg := db.Pools()["postgres"], context.Background()
	var last int64
	require.NoError(t, pool.QueryRowContext(bg, `SELECT max(id) FROM river_job`).Scan(&last))
	cand, err := f.Svc.GetCandidate(olivia, job, ada)
	require.NoError(t, err)
	_, err = f.Svc.ErasePerson(olivia, pipeline.PersonErasure{Email: cand.Email, Reasoned: pipeline.Because("Art. 17 request")})
	require.NoError(t, err)
	var before int
	require.NoError(t, pool.QueryRowContext(bg, `SELECT count(*) FROM river_job WHERE kind = 'pipeline_invitation_place'
		AND args->>'interview_id' = $1::text AND id <= $2`, iv.Value.ID, last).Scan(&before))
	assert.Zero(t, before, "the jobs queued before went with the person")
	assert.Equal(t, 1, invitationJobs(t, db, iv.Value.ID), "the erasure's cancellation to mia")
}
