package pipeline_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/doctext/doctexttest"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// pgDump is where the tests find pg_dump; PIPELINE_TEST_PG_DUMP names
// another.
func pgDump() string {
	if p := os.Getenv("PIPELINE_TEST_PG_DUMP"); p != "" {
		return p
	}
	if p, err := exec.LookPath("pg_dump"); err == nil {
		return p
	}
	return "/usr/lib/postgresql/15/bin/pg_dump"
}

// dumpable is a database with a way to read everything it holds, as
// bytes: the SQLite file and its WAL, or pg_dump of the PostgreSQL
// schema.
type dumpable struct {
	db   *pipelinestore.DB
	dump func(t *testing.T) []byte
	// vacuumed lists the tables PostgreSQL vacuumed by a command (not
	// autovacuum); nil on SQLite.
	vacuumed func(t *testing.T) []string
}

// eachDumpableDB runs fn once per database on a fresh, migrated one.
func eachDumpableDB(t *testing.T, fn func(t *testing.T, d dumpable)) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "pipeline.db")
		db := openMigrated(t, path)
		fn(t, dumpable{db: db, dump: func(t *testing.T) []byte {
			main, err := os.ReadFile(path)
			require.NoError(t, err)
			wal, err := os.ReadFile(path + "-wal")
			if !os.IsNotExist(err) {
				require.NoError(t, err)
			}
			return append(main, wal...)
		}})
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := storetest.PostgresSchemaDSN(t)
		db := openMigrated(t, dsn)
		u, err := url.Parse(dsn)
		require.NoError(t, err)
		schema := u.Query().Get("search_path")
		q := u.Query()
		q.Del("search_path")
		u.RawQuery = q.Encode()
		fn(t, dumpable{db: db, dump: func(t *testing.T) []byte {
			out, err := exec.Command(pgDump(), "--no-owner", "-n", schema, u.String()).Output()
			require.NoError(t, err, "pg_dump")
			return out
		}, vacuumed: func(t *testing.T) []string {
			conn := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(u.String())))
			defer conn.Close()
			rows, err := conn.Query(`SELECT relname FROM pg_stat_user_tables WHERE schemaname = $1 AND last_vacuum IS NOT NULL`, schema)
			require.NoError(t, err)
			defer rows.Close()
			var out []string
			for rows.Next() {
				var name string
				require.NoError(t, rows.Scan(&name))
				out = append(out, name)
			}
			require.NoError(t, rows.Err())
			return out
		}})
	})
}

func openMigrated(t *testing.T, dsn string) *pipelinestore.DB {
	t.Helper()
	db, err := pipelinestore.Open(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	require.NoError(t, db.Migrate(context.Background()))
	return db
}

// holds reports whether b holds s in any letter case.
func holds(b []byte, s string) bool {
	return bytes.Contains(bytes.ToLower(b), []byte(strings.ToLower(s)))
}

// syncRecorder is a Sender that keeps what it is given, safe for the
// queue's workers, and answers 200.
type syncRecorder struct {
	mu   sync.Mutex
	sent []pipeline.Outgoing
}

func (r *syncRecorder) Send(_ context.Context, o pipeline.Outgoing) pipeline.Reply {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, o)
	return pipeline.Reply{StatusCode: 200}
}

func (r *syncRecorder) actions() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, o := range r.sent {
		out = append(out, o.Entry.Action)
	}
	return out
}

func TestService_ErasePerson(t *testing.T) {
	t.Parallel()
	eachDumpableDB(t, func(t *testing.T, d dumpable) {
		clock := time.Now().UTC().Truncate(time.Second)
		w := storetest.Seeded(t, d.db, hookOptions(pipeline.WithClock(pipeline.ClockFunc(func() time.Time { return clock })))...)
		ctx := w.As(t, "olivia")
		backend, frontend, ada := w.Job("backend"), w.Job("frontend"), w.Res.Candidates["ada"]
		const name, email = "Ada Lovelace", "ada@example.test"

		// The person's second candidate, on another job, with the email
		// in other letters.
		second, err := w.Svc.AddCandidate(ctx, frontend, pipeline.NewCandidate{Name: name, Email: "ADA@Example.TEST",
			ResumeURL: "https://files.example.test/ada-2.pdf", Idempotency: &pipeline.Idempotency{Key: "intake-ada"}})
		require.NoError(t, err)
		other := w.Res.Candidates["grace"]

		hook := newHook(t, w, "olivia", "https://hooks.example.test/erasure", pipeline.ActionCandidateErased)
		_, err = w.Svc.AddNote(ctx, backend, ada, pipeline.NewNote{Content: "Ada Lovelace answered well."})
		require.NoError(t, err)
		_, err = w.Svc.AddNote(ctx, frontend, second.Value.ID, pipeline.NewNote{Content: "Second note."})
		require.NoError(t, err)
		rate := pipeline.NewRating{Value: pipeline.GoodFit, Idempotency: &pipeline.Idempotency{Key: "rate-ada"}}
		_, err = w.Svc.RateCandidate(ctx, backend, ada, rate)
		require.NoError(t, err)
		sent, err := w.Svc.SendMessage(ctx, backend, ada, pipeline.NewMessage{Subject: "Hello Ada Lovelace", Body: "Dear Ada Lovelace, ada@example.test"})
		require.NoError(t, err)
		require.NoError(t, w.DB.Write(context.Background(), func(tx pipeline.Tx) error {
			_, err := tx.Messages().RecordAttempt(context.Background(), pipeline.MessageAttempt{MessageID: sent.Value.ID, Attempt: 1,
				Status: pipeline.MessageSent, At: clock})
			return err
		}))
		queued, err := w.Svc.SendMessage(ctx, backend, ada, pipeline.NewMessage{Subject: "Next week", Body: "Dear Ada Lovelace",
			SendAt: clock.Add(48 * time.Hour).Format(time.RFC3339)})
		require.NoError(t, err)
		olivia, adam := w.User("olivia"), w.User("adam")
		slot := func(from time.Duration, who int64) pipeline.NewInterview {
			start := clock.Add(from)
			return pipeline.NewInterview{Start: start.Format(time.RFC3339), End: start.Add(time.Hour).Format(time.RFC3339),
				InterviewerIDs: []int64{who}}
		}
		past, err := w.Svc.ScheduleInterview(ctx, backend, ada, slot(time.Hour, olivia))
		require.NoError(t, err)
		future, err := w.Svc.ScheduleInterview(ctx, backend, ada, slot(72*time.Hour, adam))
		require.NoError(t, err)

		// A document whose bytes, text and filename name the person.
		doc, err := w.Svc.AddDocument(ctx, backend, ada, pipeline.NewDocument{Filename: "Ada Lovelace.txt",
			Content: []byte("Ada Lovelace, ada@example.test: notes on the analytical engine.")})
		require.NoError(t, err)
		require.NoError(t, pipeline.NewTexts(w.DB, parser{}).Extract(context.Background(), doc.Value.ID))
		// One uploaded with a key, whose filename is a name she had before
		// and not the one she is erased under.
		cv := []byte("Curriculum vitae: the analytical engine, the Bernoulli numbers.")
		cvSum := sha256.Sum256(cv)
		upload := pipeline.NewDocument{Filename: "Augusta King CV.txt", Content: cv, Idempotency: &pipeline.Idempotency{Key: "upload-ada"}}
		_, err = w.Svc.AddDocument(ctx, backend, ada, upload)
		require.NoError(t, err)

		// Proposals about the person: one pending, one applied, and an
		// intake that names her in its input only.
		agent := heldCaller(t, w, []pipeline.Scope{pipeline.ScopeCandidatesWrite}, pipeline.OpAddNote, pipeline.OpAddCandidate)
		propose := func(body string, call func(context.Context) error) pipeline.Proposal {
			ctx := pipeline.NewContext(context.Background(), agent)
			return proposed(t, call(ctx))
		}
		noteOn := func(text string) func(context.Context) error {
			return func(ctx context.Context) error {
				_, err := w.Svc.AddNote(ctx, backend, ada, pipeline.NewNote{Content: text, Reasoned: pipeline.Because("Ada Lovelace asked")})
				return err
			}
		}
		pending := propose(`{"content":"Ada Lovelace, pending","reason":"Ada Lovelace asked"}`, noteOn("Ada Lovelace, pending"))
		applied := propose(`{"content":"Ada Lovelace, applied","reason":"Ada Lovelace asked"}`, noteOn("Ada Lovelace, applied"))
		decided, err := w.Svc.ApproveProposal(ctx, applied.ID, pipeline.ProposalDecision{Note: new("Fine for Ada Lovelace.")})
		require.NoError(t, err)
		require.Equal(t, pipeline.ProposalApplied, decided.Value.Status)
		// One rejected with a key, which names her as she was once called.
		rejected := propose(`{"content":"Augusta King, rejected","reason":"Augusta King asked"}`, func(ctx context.Context) error {
			_, err := w.Svc.AddNote(ctx, backend, ada, pipeline.NewNote{Content: "Augusta King, rejected", Reasoned: pipeline.Because("Augusta King asked")})
			return err
		})
		reject := pipeline.ProposalDecision{Note: new("Not for Augusta King."), Idempotency: &pipeline.Idempotency{Key: "reject-ada"}}
		_, err = w.Svc.RejectProposal(ctx, rejected.ID, reject)
		require.NoError(t, err)
		intake := propose(`{"name":"Ada Lovelace","email":"a.lovelace@example.test"}`, func(ctx context.Context) error {
			_, err := w.Svc.AddCandidate(ctx, backend, pipeline.NewCandidate{Name: name, Email: "a.lovelace@example.test"})
			return err
		})
		x, err := w.Svc.ExportPerson(ctx, pipeline.PersonQuery{Email: email})
		require.NoError(t, err)
		var exported []int64
		for _, c := range x.Candidates {
			for _, p := range c.Proposals {
				exported = append(exported, p.ID)
			}
		}
		assert.ElementsMatch(t, []int64{pending.ID, applied.ID, rejected.ID}, exported, "the export lists the proposals on the person's candidates")

		counts := stageCounts(t, w, ctx, backend)
		before := d.dump(t)
		require.True(t, holds(before, name), "the dump held the name before")
		require.True(t, holds(before, email), "the dump held the email before")

		clock = clock.Add(3 * time.Hour) // the first interview is over
		res, err := w.Svc.ErasePerson(ctx, pipeline.PersonErasure{Email: "Ada@EXAMPLE.test", Reasoned: pipeline.Because("Art. 17 request")})
		require.NoError(t, err)
		assert.ElementsMatch(t, []int64{ada, second.Value.ID}, res.Value.CandidateIDs)
		assert.Equal(t, clock, res.Value.ErasedAt)

		after := d.dump(t)
		assert.False(t, holds(after, name), "the dump holds the name")
		assert.False(t, holds(after, email), "the dump holds the email")
		_, err = w.Svc.GetDocument(ctx, backend, ada, doc.Value.ID)
		assert.ErrorIs(t, err, pipeline.ErrNotFound, "the document went with the person")
		assert.False(t, holds(after, "Lovelace"), "the dump holds the surname")
		assert.False(t, holds(after, "Augusta King"), "the dump holds a filename")

		// No idempotency record holds anything of hers: PostgreSQL dumps
		// results as hex, so they are read as the store keeps them.
		require.NoError(t, w.DB.Write(context.Background(), func(tx pipeline.Tx) error {
			recs, err := tx.Idempotency().Records(context.Background(), pipeline.IdempotencyRecordsParams{TeamID: w.Res.Teams["acme"]})
			require.NoError(t, err)
			require.NotEmpty(t, recs)
			for _, r := range recs {
				for _, s := range []string{"Lovelace", "ada@example.test", "Augusta", hex.EncodeToString(cvSum[:]), string(pipeline.GoodFit)} {
					assert.False(t, holds(r.Result, s), "the record of key %q holds %q: %s", r.Key, s, r.Result)
				}
			}
			return nil
		}))
		// Its keys replay the records as they read now: gone.
		_, err = w.Svc.AddDocument(ctx, backend, ada, upload)
		assert.Equal(t, pipeline.ENotFound, pipeline.ErrorCode(err), "the upload's key replays: %v", err)
		_, err = w.Svc.RateCandidate(ctx, backend, ada, rate)
		assert.Equal(t, pipeline.ENotFound, pipeline.ErrorCode(err), "the rating's key replays: %v", err)
		decision, err := w.Svc.RejectProposal(ctx, rejected.ID, reject)
		require.NoError(t, err)
		assert.True(t, decision.Replayed)
		assert.Equal(t, pipeline.ProposalRejected, decision.Value.Status)
		assert.JSONEq(t, `{}`, string(decision.Value.Input), "the rejection's key replays the proposal as erased")

		// Her rating is in no entry.
		for _, a := range w.Activity(t) {
			if a.Action == pipeline.ActionCandidateRated && a.SubjectID == ada {
				assert.JSONEq(t, `{"rating":{"before":null,"after":"[erased]"}}`, string(a.Changes))
			}
		}

		// PostgreSQL vacuumed every table the erasure changed.
		if d.vacuumed != nil {
			assert.Subset(t, d.vacuumed(t), []string{"candidates", "candidate_search", "notes", "ratings", "messages",
				"invitation_mails", "interviews", "activity", "idempotency_keys", "river_job",
				"documents", "document_contents", "proposals"}, "vacuumed")
		}

		// Proposals keep their operation, status and times; a pending one
		// is withdrawn.
		for _, p := range []pipeline.Proposal{pending, applied, intake} {
			got, err := w.Svc.GetProposal(ctx, p.ID)
			require.NoError(t, err)
			assert.Equal(t, p.Operation, got.Operation)
			assert.JSONEq(t, `{}`, string(got.Input))
			assert.Nil(t, got.Reason)
			assert.Nil(t, got.Note)
			if p.ID == applied.ID {
				assert.Equal(t, pipeline.ProposalApplied, got.Status)
				require.NotNil(t, got.Result)
				assert.Equal(t, 201, got.Result.Status)
				assert.JSONEq(t, `null`, string(got.Result.Body))
			} else {
				assert.Equal(t, pipeline.ProposalWithdrawn, got.Status)
				assert.Nil(t, got.DecidedBy)
			}
		}

		// The candidates read as erased; others are untouched.
		got, err := w.Svc.GetCandidate(ctx, backend, ada)
		require.NoError(t, err)
		assert.Equal(t, pipeline.ErasedName, got.Name)
		assert.Equal(t, pipeline.ErasedEmail(ada), got.Email)
		assert.Empty(t, got.ResumeURL)
		assert.Zero(t, got.NotesCount)
		require.NotNil(t, got.ErasedAt)
		grace, err := w.Svc.GetCandidate(ctx, backend, other)
		require.NoError(t, err)
		assert.Equal(t, "Grace Hopper", grace.Name)
		assert.Nil(t, grace.ErasedAt)
		assert.Equal(t, counts, stageCounts(t, w, ctx, backend), "stage counts")

		// Messages keep status and times; the queued one is cancelled.
		m, err := w.Svc.GetMessage(ctx, backend, ada, sent.Value.ID)
		require.NoError(t, err)
		assert.Equal(t, pipeline.MessageSent, m.Status)
		assert.Empty(t, m.To+m.Subject+m.Body)
		m, err = w.Svc.GetMessage(ctx, backend, ada, queued.Value.ID)
		require.NoError(t, err)
		assert.Equal(t, pipeline.MessageCancelled, m.Status)

		// The past interview stays a busy time; the future one is cancelled.
		iv, err := w.Svc.GetInterview(ctx, backend, ada, past.Value.ID)
		require.NoError(t, err)
		assert.Equal(t, pipeline.InterviewScheduled, iv.Status)
		iv, err = w.Svc.GetInterview(ctx, backend, ada, future.Value.ID)
		require.NoError(t, err)
		assert.Equal(t, pipeline.InterviewCancelled, iv.Status)
		assert.Equal(t, pipeline.ErasedName, iv.CandidateName)

		// Searches and exports find nothing.
		for _, job := range []int64{backend, frontend} {
			l, err := w.Svc.ListCandidates(ctx, job, pipeline.CandidateFilter{Search: "lovelace"})
			require.NoError(t, err)
			assert.Zero(t, l.Total, "search by the old name")
		}
		x, err = w.Svc.ExportPerson(ctx, pipeline.PersonQuery{Email: email})
		require.NoError(t, err)
		assert.Empty(t, x.Candidates)
		assert.Empty(t, x.Activity)

		// The feed tells the erasure, with no personal data. On
		// PostgreSQL it serves an entry once every older transaction on
		// the server has ended (other tests' included): it may take a
		// moment.
		var feed pipeline.FeedPage
		require.Eventually(t, func() bool {
			feed, err = w.Svc.ListActivity(ctx, pipeline.FeedFilter{Limit: pipeline.MaxFeedLimit, Actions: []string{pipeline.ActionCandidateErased}})
			return err != nil || len(feed.Entries) >= 2
		}, 20*time.Second, 10*time.Millisecond, "the feed settles")
		require.NoError(t, err)
		var subjects []int64
		for _, e := range feed.Entries {
			subjects = append(subjects, e.SubjectID)
			assert.NotContains(t, strings.ToLower(string(e.Changes)), "lovelace")
			assert.Equal(t, new("Art. 17 request"), e.Reason, "candidate.erased carries the erasure's reason")
		}
		assert.ElementsMatch(t, []int64{ada, second.Value.ID}, subjects)
		feed, err = w.Svc.ListActivity(ctx, pipeline.FeedFilter{Limit: pipeline.MaxFeedLimit, Actions: []string{pipeline.ActionPrivacyErased}})
		require.NoError(t, err)
		var erasures []string
		for _, e := range feed.Entries {
			erasures = append(erasures, string(e.Changes))
			assert.Equal(t, new("Art. 17 request"), e.Reason, "privacy.erased carries the erasure's reason")
		}
		assert.Equal(t, []string{`{"count":2}`}, erasures, "privacy.erased, with the count")

		// A retried intake key replays the candidate as it reads now.
		replay, err := w.Svc.AddCandidate(ctx, frontend, pipeline.NewCandidate{Name: name, Email: "ADA@Example.TEST",
			ResumeURL: "https://files.example.test/ada-2.pdf", Idempotency: &pipeline.Idempotency{Key: "intake-ada"}})
		require.NoError(t, err)
		assert.True(t, replay.Replayed)
		assert.Equal(t, pipeline.ErasedName, replay.Value.Name)

		// Writes to an erased candidate but a move or a status change are
		// forbidden.
		_, err = w.Svc.AddNote(ctx, backend, ada, pipeline.NewNote{Content: "Again."})
		assert.Equal(t, pipeline.EForbidden, pipeline.ErrorCode(err))
		_, err = w.Svc.UpdateCandidate(ctx, backend, ada, pipeline.CandidatePatch{Name: new("Ada")})
		assert.Equal(t, pipeline.EForbidden, pipeline.ErrorCode(err))
		_, err = w.Svc.UpdateCandidate(ctx, backend, ada, pipeline.CandidatePatch{Status: new(pipeline.CandidateRejected)})
		assert.NoError(t, err)
		_, err = w.Svc.MoveCandidate(ctx, backend, ada, pipeline.CandidateMove{StageID: w.Res.Stages["backend"]["Screening"]})
		assert.NoError(t, err)

		// Erasing again is an erasure of none.
		again, err := w.Svc.ErasePerson(ctx, pipeline.PersonErasure{Email: email, Reasoned: pipeline.Because("Asked twice")})
		require.NoError(t, err)
		assert.Empty(t, again.Value.CandidateIDs)

		// A webhook subscriber learns of each erasure.
		r := &syncRecorder{}
		run, err := w.DB.StartDeliveries(context.Background(), pipeline.NewDispatcher(w.DB, r, hookOptions()...),
			pipelinestore.DeliveryConfig{Workers: 2, PollInterval: 20 * time.Millisecond})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, run.Stop(context.Background())) })
		require.Eventually(t, func() bool { return len(r.actions()) >= 2 }, 30*time.Second, 20*time.Millisecond)
		assert.Equal(t, []string{pipeline.ActionCandidateErased, pipeline.ActionCandidateErased}, r.actions())
		_ = hook
	})
}

// stageCounts are the totals of a job's candidates in each of its stages.
func stageCounts(t *testing.T, w world, ctx context.Context, job int64) map[string]int {
	t.Helper()
	stages, err := w.Svc.ListStages(ctx, job)
	require.NoError(t, err)
	out := map[string]int{}
	for _, s := range stages {
		l, err := w.Svc.ListCandidates(ctx, job, pipeline.CandidateFilter{StageID: s.ID})
		require.NoError(t, err)
		out[s.Name] = l.Total
	}
	return out
}

func TestService_ExportPerson(t *testing.T) {
	eachWorld(t, "the person's documents, each with its text", func(t *testing.T, w world) {
		ctx, backend, ada := w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"]
		cv, err := w.Svc.AddDocument(ctx, backend, ada, pipeline.NewDocument{Filename: "cv.txt",
			Content: []byte("Ada Lovelace, analyst of the engine.")})
		require.NoError(t, err)
		require.NoError(t, pipeline.NewTexts(w.DB, parser{}).Extract(context.Background(), cv.Value.ID))
		photo, err := w.Svc.AddDocument(ctx, backend, ada, pipeline.NewDocument{Kind: pipeline.DocumentOther,
			Filename: "me.png", Content: doctexttest.PNG()})
		require.NoError(t, err)
		// Grace's document is not Ada's.
		_, err = w.Svc.AddDocument(ctx, backend, w.Res.Candidates["grace"], pipeline.NewDocument{Filename: "grace.txt",
			Content: []byte("Grace Hopper.")})
		require.NoError(t, err)

		x, err := w.Svc.ExportPerson(ctx, pipeline.PersonQuery{Email: "ADA@example.test"})
		require.NoError(t, err)
		require.Len(t, x.Candidates, 1)
		docs := x.Candidates[0].Documents
		require.Len(t, docs, 2, "Ada's documents, newest first")
		got, err := w.Svc.GetDocument(ctx, backend, ada, photo.Value.ID)
		require.NoError(t, err)
		assert.Equal(t, pipeline.DocumentWithText{Document: got}, docs[0], "an image, as the API reads it, without text")
		got, err = w.Svc.GetDocument(ctx, backend, ada, cv.Value.ID)
		require.NoError(t, err)
		assert.Equal(t, pipeline.TextReady, got.TextStatus)
		assert.Equal(t, pipeline.DocumentWithText{Document: got, Text: "Ada Lovelace, analyst of the engine."}, docs[1])
	})
}

// privacyProbes call the operations of this file's resource for the tables of
// operations (see probe).
var privacyProbes = []operation{
	{pipeline.OpExportPerson, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.ExportPerson(ctx, pipeline.PersonQuery{Email: pick(p, "nobody@example.test", "")})
		return err
	}},
	{pipeline.OpErasePerson, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.ErasePerson(ctx, pipeline.PersonErasure{Email: pick(p, "nobody@example.test", ""), Reasoned: probeReason(p), Idempotency: p.idem})
		return err
	}},
}

// TestPrivacy_ErasureCount: how many candidates an erasure would erase
// now, in any letter case, for owners and admins only, logging nothing.
func TestPrivacy_ErasureCount(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := storetest.Seeded(t, db)
		olivia := f.As(t, "olivia")
		logged := len(f.Activity(t))
		n, err := f.Svc.ErasureCount(olivia, pipeline.PersonQuery{Email: "ADA@example.test"})
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		assert.Len(t, f.Activity(t), logged, "a count logs nothing")
		n, err = f.Svc.ErasureCount(olivia, pipeline.PersonQuery{Email: "nobody@example.test"})
		require.NoError(t, err)
		assert.Zero(t, n)
		_, err = f.Svc.ErasureCount(f.As(t, "mia"), pipeline.PersonQuery{Email: "ada@example.test"})
		assert.ErrorIs(t, err, pipeline.ErrForbidden)
		_, err = f.Svc.ErasureCount(olivia, pipeline.PersonQuery{Email: " "})
		assert.ErrorIs(t, err, pipeline.ErrValidation)

		_, err = f.Svc.ErasePerson(olivia, pipeline.PersonErasure{Email: "ada@example.test", Reasoned: pipeline.Because("She asked.")})
		require.NoError(t, err)
		n, err = f.Svc.ErasureCount(olivia, pipeline.PersonQuery{Email: "ada@example.test"})
		require.NoError(t, err)
		assert.Zero(t, n, "an erased person has nothing left to erase")
	})
}
