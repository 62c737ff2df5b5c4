package pipelinestore_test

import (
	"context"
	"fmt"
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

// TestStore_RoundTrips pins how many statements each operation sends. A
// token is read once per pipeline.DefaultTokenTTL, not per request; reads
// are then one query whatever the page size, so no query is made per
// element; writes are their transaction's statements.
func TestStore_RoundTrips(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		if db.Dialect() == pipelinestore.DialectPostgres {
			statementsAsText(t)
		}
		f := seeded(t, db)
		pipelinestore.PauseFolds(db) // background statements, not the calls'
		ctx := context.Background()
		token := f.Res.Tokens["olivia"]
		n := pipelinestore.CountQueries(db)
		before := n.Load()
		c, err := f.Svc.Authenticate(ctx, token)
		require.NoError(t, err)
		// The first use reads the token and records its use; later
		// requests within a minute write nothing.
		assert.EqualValues(t, 2, n.Load()-before, "the first request of a token")
		olivia := pipeline.NewContext(ctx, c.WithIP(storetest.IP))
		// Enough candidates to fill a page, so a per-element query would show.
		job := f.Job("backend")
		for i := range 20 {
			_, err := f.Svc.AddNote(olivia, job, f.Res.Candidates[[]string{"ada", "grace", "linus"}[i%3]],
				pipeline.NewNote{Content: "note"})
			require.NoError(t, err)
		}
		// The operation's statements alone: the token is read again
		// once DefaultTokenTTL has passed, which a slow machine reaches.
		count := func(op func(ctx context.Context) error) int64 {
			t.Helper()
			c, err := f.Svc.Authenticate(ctx, token)
			require.NoError(t, err)
			before := n.Load()
			require.NoError(t, op(pipeline.NewContext(ctx, c.WithIP(storetest.IP))))
			return n.Load() - before
		}
		move := pipeline.CandidateMove{StageID: f.Res.Stages["backend"]["Offer"], Idempotency: &pipeline.Idempotency{Key: "k"}}
		ops := map[string]func(ctx context.Context) error{
			"Me":       func(ctx context.Context) error { _, err := f.Svc.GetMe(ctx); return err },
			"ListJobs": func(ctx context.Context) error { _, err := f.Svc.ListJobs(ctx, pipeline.JobFilter{}); return err },
			"Job":      func(ctx context.Context) error { _, err := f.Svc.GetJob(ctx, job); return err },
			"Stages":   func(ctx context.Context) error { _, err := f.Svc.ListStages(ctx, job); return err },
			"ListCandidates": func(ctx context.Context) error {
				_, err := f.Svc.ListCandidates(ctx, job, pipeline.CandidateFilter{})
				return err
			},
			"Candidate": func(ctx context.Context) error {
				_, err := f.Svc.GetCandidate(ctx, job, f.Res.Candidates["ada"])
				return err
			},
			// BEGIN, key lock and record, candidate with its new stage
			// (on PostgreSQL these two in one statement), update,
			// activity with the webhooks that select it, key record (as
			// text each a statement; prepared, these three go in one
			// round trip), COMMIT. A team with webhooks adds River's
			// insert of the messages.
			"MoveCandidate keyed": func(ctx context.Context) error {
				_, err := f.Svc.MoveCandidate(ctx, job, f.Res.Candidates["ada"], move)
				return err
			},
			// BEGIN, candidate, note, activity, COMMIT.
			"AddNote": func(ctx context.Context) error {
				_, err := f.Svc.AddNote(ctx, job, f.Res.Candidates["ada"], pipeline.NewNote{Content: "once more"})
				return err
			},
		}
		want := map[string]int64{"Me": 0, "ListJobs": 1, "Job": 1, "Stages": 1, "ListCandidates": 1, "Candidate": 1,
			"MoveCandidate keyed": 6, "AddNote": 5}
		if db.Dialect() == pipelinestore.DialectSQLite {
			// No batching: the database is in the process. The webhooks
			// that select an entry are a query of their own.
			want["MoveCandidate keyed"] = 8
			want["AddNote"] = 6
		}
		for name, op := range ops {
			assert.Equal(t, want[name], count(op), name)
		}

		if db.Dialect() == pipelinestore.DialectPostgres {
			l := db.Limiter(60)
			before := n.Load()
			_, err := l.Take(ctx, "user:1", time.Now())
			require.NoError(t, err)
			assert.EqualValues(t, 1, n.Load()-before, "the shared rate limiter is one statement a request")
		}
	})
}

// TestStore_RoundTrips_PostgreSQL pins the round trips of the writes on
// PostgreSQL as text, as behind a transaction pooler: a transaction's
// BEGIN with its settings goes with the record's locking read, which also
// claims the key of a keyed write; each write; COMMIT.
func TestStore_RoundTrips_PostgreSQL(t *testing.T) {
	statementsAsText(t)
	roundTrips(t, storetest.OpenPostgres(t),
		map[string]int64{"MoveCandidate keyed": 5, "MoveCandidate": 4, "AddNote": 4, "Candidate": 1, "Job": 1})
}

// TestStore_RoundTrips_Prepared pins the round trips of the writes with
// WithPreparedStatements, as pipelined runs on a direct connection: the
// BEGIN goes with the first statement's EXECUTE, and a batch of waiting
// writes as one simple query of EXECUTEs. A move: the claim with the
// candidate's locking read, the batch, COMMIT. A note's insert returns
// its id first. An intake draws the candidate's id in the job's read
// (with the claim), so that the insert waits in the batch; a message
// draws its id in the candidate's read, sends the batch, then River
// inserts its job and the COMMIT follows. A schedule draws the interview's
// id (its UID names it) and reads the job's title in the candidate's
// read, reads the interviewers, sends the interview with them and its
// activity entry (a clash is known before the mails' jobs are made), then
// its invitation mails and the key's record, then River inserts the
// mails' jobs and the activity entry's webhook messages, then the COMMIT.
// A reschedule reads the interview with its interviewers and whether
// they are in the team in the claim, sends the interview's update with
// its activity entry, then the mails and the key's record, then River's
// insert, then the COMMIT. River inserts its jobs itself (decisions §9).
func TestStore_RoundTrips_Prepared(t *testing.T) {
	if behindPgBouncer(t, storetest.PostgresDSN(t)) {
		t.Skip("the server is reached through PgBouncer, where prepared statements do not hold")
	}
	db := storetest.OpenPostgres(t, pipelinestore.WithPreparedStatements())
	from := &netmail.Address{Name: "Acme Hiring", Address: "jobs@acme.example"}
	mailer, err := mail.New("log:", mail.WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	f := storetest.Seeded(t, db, pipeline.WithMail(from, mailer), pipeline.WithInvitations(ical.Render))
	pipelinestore.PauseFolds(db)
	olivia := f.As(t, "olivia")
	job, ada := f.Job("backend"), f.Res.Candidates["ada"]
	start := time.Now().UTC().Truncate(time.Hour).Add(48 * time.Hour)
	n, moves := 0, 0
	key := func(op string) *pipeline.Idempotency {
		n++
		return &pipeline.Idempotency{Key: fmt.Sprintf("%s-%d", op, n)}
	}
	moving := start.Add(-24 * time.Hour)
	moved, err := f.Svc.ScheduleInterview(olivia, job, ada, pipeline.NewInterview{Start: moving.Format(time.RFC3339),
		End: moving.Add(30 * time.Minute).Format(time.RFC3339), InterviewerIDs: []int64{f.User("mia")}})
	require.NoError(t, err)
	ops := map[string]func() error{
		"RescheduleInterview keyed": func() error {
			moving = moving.Add(-time.Hour) // a slot of its own, and a change each time
			from, to := moving.Format(time.RFC3339), moving.Add(30*time.Minute).Format(time.RFC3339)
			_, err := f.Svc.RescheduleInterview(olivia, job, ada, moved.Value.ID, pipeline.InterviewPatch{Start: &from, End: &to,
				Idempotency: key("reschedule")})
			return err
		},
		"MoveCandidate keyed": func() error {
			moves++ // to another stage each time
			stage := []string{"Screening", "Interview"}[moves%2]
			_, err := f.Svc.MoveCandidate(olivia, job, ada, pipeline.CandidateMove{StageID: f.Res.Stages["backend"][stage],
				Idempotency: key("move")})
			return err
		},
		"AddNote": func() error {
			_, err := f.Svc.AddNote(olivia, job, ada, pipeline.NewNote{Content: "note"})
			return err
		},
		"AddCandidate keyed": func() error {
			_, err := f.Svc.AddCandidate(olivia, job, pipeline.NewCandidate{Name: "New Candidate",
				Email: fmt.Sprintf("new-%d@example.test", n), Idempotency: key("intake")})
			return err
		},
		"SendMessage keyed": func() error {
			_, err := f.Svc.SendMessage(olivia, job, ada, pipeline.NewMessage{Subject: "Hello", Body: "Hi.", Idempotency: key("message")})
			return err
		},
		"ScheduleInterview keyed": func() error {
			at := start.Add(time.Duration(n) * time.Hour)
			_, err := f.Svc.ScheduleInterview(olivia, job, ada, pipeline.NewInterview{Start: at.Format(time.RFC3339),
				End: at.Add(30 * time.Minute).Format(time.RFC3339), InterviewerIDs: []int64{f.User("mia")}, Location: "Room 1",
				Idempotency: key("schedule")})
			return err
		},
	}
	want := map[string]int64{"MoveCandidate keyed": 3, "AddNote": 4, "AddCandidate keyed": 3, "SendMessage keyed": 4,
		"ScheduleInterview keyed": 6, "RescheduleInterview keyed": 5}
	for name, op := range ops {
		require.NoError(t, op(), name) // a warm-up run, which prepares the statements
		// The fewest of three runs: a run on a connection of the pool that
		// has not prepared the statements yet takes a round trip more.
		fewest := int64(-1)
		for range 3 {
			before := pipelinestore.RoundTrips(db)
			require.NoError(t, op(), name)
			if n := pipelinestore.RoundTrips(db) - before; fewest < 0 || n < fewest {
				fewest = n
			}
		}
		assert.Equal(t, want[name], fewest, name)
	}
}

// roundTrips checks the round trips of a few calls on db, each after a
// warm-up run.
func roundTrips(t *testing.T, db *pipelinestore.DB, want map[string]int64) {
	f := seeded(t, db)
	pipelinestore.PauseFolds(db) // a background round trip, not the write's
	ctx := context.Background()
	c, err := f.Svc.Authenticate(ctx, f.Res.Tokens["olivia"])
	require.NoError(t, err)
	olivia := pipeline.NewContext(ctx, c.WithIP(storetest.IP))
	job, ada := f.Job("backend"), f.Res.Candidates["ada"]
	stages := []string{"Screening", "Interview", "Offer", "Hired"}
	n := 0
	ops := map[string]func() error{
		"MoveCandidate keyed": func() error {
			n++
			_, err := f.Svc.MoveCandidate(olivia, job, ada, pipeline.CandidateMove{StageID: f.Res.Stages["backend"][stages[n%len(stages)]],
				Idempotency: &pipeline.Idempotency{Key: fmt.Sprintf("move-%d", n)}})
			return err
		},
		"MoveCandidate": func() error {
			n++
			_, err := f.Svc.MoveCandidate(olivia, job, ada, pipeline.CandidateMove{StageID: f.Res.Stages["backend"][stages[n%len(stages)]]})
			return err
		},
		"AddNote": func() error {
			_, err := f.Svc.AddNote(olivia, job, ada, pipeline.NewNote{Content: "note"})
			return err
		},
		"Candidate": func() error {
			_, err := f.Svc.GetCandidate(olivia, job, ada)
			return err
		},
		"Job": func() error {
			_, err := f.Svc.GetJob(olivia, job)
			return err
		},
	}
	for name, op := range ops {
		require.NoError(t, op(), name) // a warm-up run
		before := pipelinestore.RoundTrips(db)
		require.NoError(t, op(), name)
		assert.Equal(t, want[name], pipelinestore.RoundTrips(db)-before, name)
	}
}

// statementsAsText skips a test that pins how a store without
// WithPreparedStatements sends its statements (as text, writes batched),
// when the PostgreSQL tests run with it (storetest.PreparedEnv).
func statementsAsText(t *testing.T) {
	if storetest.Prepared() {
		t.Skip("pins the statements of a store without WithPreparedStatements; " + storetest.PreparedEnv + "=true")
	}
}
