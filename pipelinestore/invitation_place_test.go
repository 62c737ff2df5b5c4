package pipelinestore_test

import (
	"context"
	"log/slog"
	netmail "net/mail"
	"os"
	"strconv"
	"strings"
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

// TestMigration_InvitationPlaces: the invitation mails queued before
// mails had a place get one, from 0 within each change of an interview
// in the order they were queued, and the changes after the migration
// queue theirs beside them; a server from before places still queues
// mails on the migrated schema.
func TestMigration_InvitationPlaces(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		mailer, err := mail.New("log:", mail.WithLogger(slog.New(slog.DiscardHandler)))
		require.NoError(t, err)
		f := storetest.Seeded(t, db, pipeline.WithMail(&netmail.Address{Address: "jobs@acme.example"}, mailer),
			pipeline.WithInvitations(ical.Render))
		migration := "migrations/" + db.Dialect() + "/20261205000000_invitation_position.tx."
		run := func(file string) {
			raw, err := os.ReadFile(migration + file)
			require.NoError(t, err)
			require.NoError(t, pipelinestore.ExecTx(db, strings.Split(string(raw), "--bun:split")...), file)
		}
		ctx, job, ada := f.As(t, "olivia"), f.Job("backend"), f.Res.Candidates["ada"]
		start := time.Now().UTC().Truncate(time.Hour).Add(48 * time.Hour)
		at := func(h int) *string { return new(start.Add(time.Duration(h) * time.Hour).Format(time.RFC3339)) }
		iv, err := f.Svc.ScheduleInterview(ctx, job, ada, pipeline.NewInterview{Start: *at(0), End: *at(1),
			InterviewerIDs: []int64{f.User("mia")}})
		require.NoError(t, err)
		reschedule := func(h int, who string) {
			t.Helper()
			_, err := f.Svc.RescheduleInterview(ctx, job, ada, iv.Value.ID, pipeline.InterviewPatch{Start: at(h), End: at(h + 1),
				InterviewerIDs: new([]int64{f.User(who)})})
			require.NoError(t, err)
		}
		reschedule(2, "adam") // ada's, adam's, mia's cancellation
		places := func() []string {
			t.Helper()
			rows, err := pipelinestore.QueryRows(db, `SELECT sequence, position FROM invitation_mails WHERE interview_id = `+strconv.FormatInt(iv.Value.ID, 10)+` ORDER BY id`)
			require.NoError(t, err)
			defer rows.Close()
			var out []string
			for rows.Next() {
				var seq, pos int
				require.NoError(t, rows.Scan(&seq, &pos))
				out = append(out, strconv.Itoa(seq)+"/"+strconv.Itoa(pos))
			}
			require.NoError(t, rows.Err())
			return out
		}
		queued := []string{"0/0", "0/1", "1/0", "1/1", "1/2"}
		require.Equal(t, queued, places(), "each change's mails in their places")

		run("down.sql")
		run("up.sql")
		assert.Equal(t, queued, places(), "the places given again, in the order the mails were queued")
		reschedule(4, "mia")
		queued = append(queued, "2/0", "2/1", "2/2")
		assert.Equal(t, queued, places(), "the next change's mails beside them")

		// A server from before places, on the migrated schema (a schema
		// ahead of the binary is accepted), queues a change's mails
		// without them, as it did.
		for range 2 {
			require.NoError(t, pipelinestore.ExecTx(db, `INSERT INTO invitation_mails
(interview_id, sequence, method, recipient, recipient_name, subject, body, calendar, status, attempts, created_at)
VALUES (`+strconv.FormatInt(iv.Value.ID, 10)+`, 3, 'REQUEST', 'ada@example.test', 'Ada', 'Moved', 'Moved.', '', 'queued', 0,
CURRENT_TIMESTAMP)`), "a mail without its place")
		}
		var n int
		require.NoError(t, pipelinestore.Query(context.Background(), db, `SELECT count(*) FROM invitation_mails WHERE interview_id = `+
			strconv.FormatInt(iv.Value.ID, 10)+` AND sequence = 3 AND position IS NULL`, &n))
		assert.Equal(t, 2, n, "both stored")
	})
}
