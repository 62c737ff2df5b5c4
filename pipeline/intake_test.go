package pipeline_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

func TestService_AddCandidate(t *testing.T) {
	eachWorld(t, "ok: active, in the first stage, applied today", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		job := w.Job("backend")
		res, err := w.Svc.AddCandidate(ctx, job, pipeline.NewCandidate{Name: "  Barbara Liskov ", Email: "Barbara@Example.test"})
		require.NoError(t, err)
		k := res.Value
		assert.NotZero(t, k.ID)
		assert.Equal(t, "Barbara Liskov", k.Name, "the name is stored trimmed")
		assert.Equal(t, "Barbara@Example.test", k.Email, "the email is stored as sent")
		assert.Equal(t, "Applied", k.Stage)
		assert.Equal(t, w.Res.Stages["backend"]["Applied"], k.StageID)
		assert.Equal(t, pipeline.CandidateActive, k.Status)
		assert.Equal(t, pipeline.Date(time.Now()), k.Applied)
		assert.Empty(t, k.ResumeURL)
		got, err := w.Svc.GetCandidate(ctx, job, k.ID)
		require.NoError(t, err)
		assert.Equal(t, k, got, "what is returned is what is stored")

		log := w.Activity(t)
		require.Len(t, log, 1)
		a := log[0]
		assert.Equal(t, pipeline.ActionCandidateCreated, a.Action)
		assert.Equal(t, pipeline.SubjectCandidate, a.SubjectType)
		assert.Equal(t, k.ID, a.SubjectID)
		assert.Equal(t, job, a.JobID)
		assert.Equal(t, map[string]any{
			"name":    map[string]any{"before": nil, "after": "Barbara Liskov"},
			"email":   map[string]any{"before": nil, "after": "Barbara@Example.test"},
			"applied": map[string]any{"before": nil, "after": k.Applied.Format(time.DateOnly)},
			"stage":   map[string]any{"before": nil, "after": "Applied"},
			"status":  map[string]any{"before": nil, "after": "active"},
		}, changesOf(t, a))
	})
	eachWorld(t, "ok: a stage, a date and a resume given", func(t *testing.T, w world) {
		ctx := w.As(t, "mia") // assigned to backend
		job := w.Job("backend")
		in := pipeline.NewCandidate{Name: "Ken Iverson", Email: "ken@apl.test", Applied: "2026-01-02",
			StageID: w.Res.Stages["backend"]["Interview"], ResumeURL: "HTTPS://files.example.test/ken.pdf"}
		res, err := w.Svc.AddCandidate(ctx, job, in)
		require.NoError(t, err)
		assert.Equal(t, "Interview", res.Value.Stage)
		assert.Equal(t, "2026-01-02", res.Value.Applied.Format(time.DateOnly))
		assert.Equal(t, in.ResumeURL, res.Value.ResumeURL)
		ch := changesOf(t, w.Activity(t)[0])
		assert.Equal(t, map[string]any{"before": nil, "after": in.ResumeURL}, ch["resume_url"])
		assert.Equal(t, map[string]any{"before": nil, "after": "Interview"}, ch["stage"])
	})
	eachWorld(t, "a draft job accepts, a closed one is forbidden", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		_, err := w.Svc.AddCandidate(ctx, w.Job("design"), pipeline.NewCandidate{Name: "Dieter Rams", Email: "dieter@example.test"})
		require.NoError(t, err)
		_, err = w.Svc.AddCandidate(ctx, w.Job("archive"), pipeline.NewCandidate{Name: "Late Applicant", Email: "late@example.test"})
		require.ErrorIs(t, err, pipeline.ErrForbidden)
		assert.Equal(t, "The job is closed.", err.(*pipeline.Error).Message)
		assert.Len(t, w.Activity(t), 1, "only the draft job's intake is logged")
	})
	eachWorld(t, "an email of the job in any letter case is taken; of another job it is not", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		for _, email := range []string{"ada@example.test", "ADA@Example.Test"} {
			_, err := w.Svc.AddCandidate(ctx, w.Job("backend"), pipeline.NewCandidate{Name: "Ada Again", Email: email})
			require.ErrorIs(t, err, pipeline.ErrValidation, email)
			assert.Equal(t, pipeline.FieldErrors{"email": {"The email has already been taken."}}, pipeline.Fields(err))
		}
		_, err := w.Svc.AddCandidate(ctx, w.Job("frontend"), pipeline.NewCandidate{Name: "Ada Lovelace", Email: "Ada@example.test"})
		require.NoError(t, err, "the same person may apply to another job")
		list, err := w.Svc.ListCandidates(ctx, w.Job("backend"), pipeline.CandidateFilter{})
		require.NoError(t, err)
		assert.Equal(t, 3, list.Total)
	})
	eachWorld(t, "invalid input, naming the field", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		ok := pipeline.NewCandidate{Name: "Valid Name", Email: "valid@example.test"}
		tomorrow := pipeline.Date(time.Now()).AddDate(0, 0, 1).Format(time.DateOnly)
		cases := []struct {
			field  string
			change func(*pipeline.NewCandidate)
		}{
			{"name", func(in *pipeline.NewCandidate) { in.Name = "" }},
			{"name", func(in *pipeline.NewCandidate) { in.Name = " \t " }},
			{"name", func(in *pipeline.NewCandidate) { in.Name = strings.Repeat("é", 256) }},
			{"name", func(in *pipeline.NewCandidate) { in.Name = "Bad\x00Name" }},
			{"email", func(in *pipeline.NewCandidate) { in.Email = "" }},
			{"email", func(in *pipeline.NewCandidate) { in.Email = "no-at-sign" }},
			{"email", func(in *pipeline.NewCandidate) { in.Email = "@example.test" }},
			{"email", func(in *pipeline.NewCandidate) { in.Email = "ada@" }},
			{"email", func(in *pipeline.NewCandidate) { in.Email = "a@b@example.test" }},
			{"email", func(in *pipeline.NewCandidate) { in.Email = "ada lovelace@example.test" }},
			{"email", func(in *pipeline.NewCandidate) { in.Email = strings.Repeat("a", 243) + "@example.test" }},
			{"email", func(in *pipeline.NewCandidate) { in.Email = "ada\xff@example.test" }},
			{"applied", func(in *pipeline.NewCandidate) { in.Applied = "05/01/2026" }},
			{"applied", func(in *pipeline.NewCandidate) { in.Applied = tomorrow }},
			{"stage", func(in *pipeline.NewCandidate) { in.StageID = -1 }},
			{"stage", func(in *pipeline.NewCandidate) { in.StageID = w.Res.Stages["frontend"]["Applied"] }},
			{"stage", func(in *pipeline.NewCandidate) { in.StageID = missing }},
			{"resume_url", func(in *pipeline.NewCandidate) { in.ResumeURL = "ftp://files.example.test/a.pdf" }},
			{"resume_url", func(in *pipeline.NewCandidate) { in.ResumeURL = "/a.pdf" }},
			{"resume_url", func(in *pipeline.NewCandidate) { in.ResumeURL = "https:///a.pdf" }},
			{"resume_url", func(in *pipeline.NewCandidate) {
				in.ResumeURL = "https://files.example.test/" + strings.Repeat("a", 2048-26)
			}},
		}
		for _, c := range cases {
			in := ok
			c.change(&in)
			_, err := w.Svc.AddCandidate(ctx, w.Job("backend"), in)
			require.ErrorIs(t, err, pipeline.ErrValidation, "%+v", in)
			assert.Equal(t, []string{c.field}, fieldNames(err), "%+v", in)
		}
		assert.Empty(t, w.Activity(t))
		// The longest of each is valid.
		in := ok
		in.Name = strings.Repeat("é", 255)
		in.Email = strings.Repeat("a", 241) + "@example.test"
		in.ResumeURL = "https://files.example.test/" + strings.Repeat("a", 2048-27)
		in.Applied = pipeline.Date(time.Now()).Format(time.DateOnly)
		_, err := w.Svc.AddCandidate(ctx, w.Job("backend"), in)
		require.NoError(t, err)
	})
	eachWorld(t, "check order: the input, a taken email included, before the closed job", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		archive := w.Job("archive")
		_, err := w.Svc.AddCandidate(ctx, archive, pipeline.NewCandidate{Name: " ", Email: "x@example.test"})
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Equal(t, []string{"name"}, fieldNames(err))
		// A candidate added while the job was open keeps its email taken.
		open, closed := pipeline.JobOpen, pipeline.JobClosed
		_, err = w.Svc.UpdateJob(ctx, archive, pipeline.JobPatch{Status: &open})
		require.NoError(t, err)
		_, err = w.Svc.AddCandidate(ctx, archive, pipeline.NewCandidate{Name: "Early", Email: "early@example.test"})
		require.NoError(t, err)
		_, err = w.Svc.UpdateJob(ctx, archive, pipeline.JobPatch{Status: &closed})
		require.NoError(t, err)
		_, err = w.Svc.AddCandidate(ctx, archive, pipeline.NewCandidate{Name: "Early", Email: "EARLY@example.test"})
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Equal(t, []string{"email"}, fieldNames(err))
		_, err = w.Svc.AddCandidate(ctx, archive, pipeline.NewCandidate{Name: "Early", Email: "other@example.test"})
		assert.ErrorIs(t, err, pipeline.ErrForbidden, "a valid input")
		// The record and the key come before all of it.
		_, err = w.Svc.AddCandidate(ctx, w.Job("ops"), pipeline.NewCandidate{Idempotency: &pipeline.Idempotency{}})
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
		_, err = w.Svc.AddCandidate(ctx, archive, pipeline.NewCandidate{Idempotency: &pipeline.Idempotency{}})
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Equal(t, []string{pipeline.IdempotencyField}, fieldNames(err))
		_, err = w.Svc.AddCandidate(w.As(t, "olivia_candidates_read"), missing, pipeline.NewCandidate{})
		assert.ErrorIs(t, err, pipeline.ErrInsufficientScope)
	})
	eachWorld(t, "a keyed retry replays, with no second candidate", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		job := w.Job("backend")
		in := func() pipeline.NewCandidate {
			return pipeline.NewCandidate{Name: "Edsger Dijkstra", Email: "ewd@example.test", Idempotency: &pipeline.Idempotency{Key: "intake-1"}}
		}
		first, err := w.Svc.AddCandidate(ctx, job, in())
		require.NoError(t, err)
		assert.False(t, first.Replayed)
		again, err := w.Svc.AddCandidate(ctx, job, in())
		require.NoError(t, err, "a replay, not a taken email")
		assert.True(t, again.Replayed)
		assert.Equal(t, first.Value, again.Value)
		list, err := w.Svc.ListCandidates(ctx, job, pipeline.CandidateFilter{Search: "dijkstra"})
		require.NoError(t, err)
		assert.Equal(t, 1, list.Total)
		assert.Len(t, w.Activity(t), 1)
	})
}

func TestService_UpdateCandidate(t *testing.T) {
	eachWorld(t, "ok: each field, logged with before and after", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		job, ada := w.Job("backend"), w.Res.Candidates["ada"]
		hired := pipeline.CandidateHired
		res, err := w.Svc.UpdateCandidate(ctx, job, ada, pipeline.CandidatePatch{
			Name: new(" Augusta Ada King "), Email: new("ADA@example.test"), ResumeURL: new(""), Status: &hired})
		require.NoError(t, err)
		k := res.Value
		assert.Equal(t, "Augusta Ada King", k.Name)
		assert.Equal(t, "ADA@example.test", k.Email, "its own email in another case is not taken")
		assert.Empty(t, k.ResumeURL)
		assert.Equal(t, pipeline.CandidateHired, k.Status)
		got, err := w.Svc.GetCandidate(ctx, job, ada)
		require.NoError(t, err)
		assert.Equal(t, k, got)
		log := w.Activity(t)
		require.Len(t, log, 1)
		assert.Equal(t, pipeline.ActionCandidateUpdated, log[0].Action)
		assert.Equal(t, ada, log[0].SubjectID)
		assert.Equal(t, map[string]any{
			"name":       map[string]any{"before": "Ada Lovelace", "after": "Augusta Ada King"},
			"email":      map[string]any{"before": "ada@example.test", "after": "ADA@example.test"},
			"resume_url": map[string]any{"before": "https://files.example.test/ada.pdf", "after": nil},
			"status":     map[string]any{"before": "active", "after": "hired"},
		}, changesOf(t, log[0]))
	})
	eachWorld(t, "any status may follow any", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		job, linus := w.Job("backend"), w.Res.Candidates["linus"]
		for _, st := range []string{"withdrawn", "active", "hired", "rejected", "hired", "withdrawn", "rejected", "active"} {
			res, err := w.Svc.UpdateCandidate(ctx, job, linus, pipeline.CandidatePatch{Status: new(st)})
			require.NoError(t, err, st)
			assert.Equal(t, st, res.Value.Status)
		}
	})
	eachWorld(t, "nothing changed: the candidate, no entry", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		job, ada := w.Job("backend"), w.Res.Candidates["ada"]
		before, err := w.Svc.GetCandidate(ctx, job, ada)
		require.NoError(t, err)
		res, err := w.Svc.UpdateCandidate(ctx, job, ada, pipeline.CandidatePatch{
			Name: new("Ada Lovelace "), Email: new("ada@example.test"), Status: new("active"), ResumeURL: new(before.ResumeURL)})
		require.NoError(t, err)
		assert.Equal(t, before, res.Value)
		assert.Empty(t, w.Activity(t))
	})
	eachWorld(t, "invalid input, naming the field", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		job, ada := w.Job("backend"), w.Res.Candidates["ada"]
		cases := []struct {
			field string
			p     pipeline.CandidatePatch
		}{
			{"body", pipeline.CandidatePatch{}},
			{"name", pipeline.CandidatePatch{Name: new(" ")}},
			{"email", pipeline.CandidatePatch{Email: new("ada")}},
			{"email", pipeline.CandidatePatch{Email: new("GRACE@example.test")}},
			{"resume_url", pipeline.CandidatePatch{ResumeURL: new("files.example.test/a.pdf")}},
			{"status", pipeline.CandidatePatch{Status: new("Hired")}},
		}
		for _, c := range cases {
			_, err := w.Svc.UpdateCandidate(ctx, job, ada, c.p)
			require.ErrorIs(t, err, pipeline.ErrValidation, c.field)
			assert.Equal(t, []string{c.field}, fieldNames(err), c.field)
		}
		_, err := w.Svc.UpdateCandidate(ctx, job, ada, pipeline.CandidatePatch{Email: new("Grace@Example.test")})
		assert.Equal(t, pipeline.FieldErrors{"email": {"The email has already been taken."}}, pipeline.Fields(err))
		_, err = w.Svc.UpdateCandidate(ctx, job, ada, pipeline.CandidatePatch{Status: new("promoted")})
		assert.Equal(t, pipeline.FieldErrors{"status": {"The status must be one of active, hired, rejected, withdrawn."}}, pipeline.Fields(err))
		got, err := w.Svc.GetCandidate(ctx, job, ada)
		require.NoError(t, err)
		assert.Equal(t, "ada@example.test", got.Email)
		assert.Empty(t, w.Activity(t))
		_, err = w.Svc.UpdateCandidate(ctx, job, ada, pipeline.CandidatePatch{Email: new("ken@example.test")})
		require.NoError(t, err, "an email of another job's candidate")
	})
}

func TestService_ListCandidates_Status(t *testing.T) {
	eachWorld(t, "a status filters, with its total", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		job := w.Job("backend")
		list, err := w.Svc.ListCandidates(ctx, job, pipeline.CandidateFilter{Status: pipeline.CandidateRejected})
		require.NoError(t, err)
		require.Len(t, list.Items, 1)
		assert.Equal(t, w.Res.Candidates["linus"], list.Items[0].ID)
		assert.Equal(t, 1, list.Total)
		list, err = w.Svc.ListCandidates(ctx, job, pipeline.CandidateFilter{Status: pipeline.CandidateActive,
			StageID: w.Res.Stages["backend"]["Applied"]})
		require.NoError(t, err)
		assert.Equal(t, 1, list.Total, "ada: linus is rejected")
		list, err = w.Svc.ListCandidates(ctx, job, pipeline.CandidateFilter{Status: pipeline.CandidateHired, Page: 2})
		require.NoError(t, err)
		assert.Empty(t, list.Items)
		assert.Zero(t, list.Total)
		list, err = w.Svc.ListCandidates(ctx, job, pipeline.CandidateFilter{Status: pipeline.CandidateActive, Search: "GRACE"})
		require.NoError(t, err)
		assert.Equal(t, 1, list.Total)
	})
	eachWorld(t, "a bad status names the allowed values", func(t *testing.T, w world) {
		_, err := w.Svc.ListCandidates(w.As(t, "olivia"), w.Job("backend"), pipeline.CandidateFilter{Status: "ACTIVE"})
		assert.Equal(t, pipeline.FieldErrors{"status": {"The status must be one of active, hired, rejected, withdrawn."}}, pipeline.Fields(err))
		_, err = w.Svc.ListCandidates(w.As(t, "olivia"), w.Job("ops"), pipeline.CandidateFilter{Status: "ACTIVE"})
		assert.ErrorIs(t, err, pipeline.ErrNotFound, "the record before the filter")
	})
}

// replicas opens two store handles on one fresh database, seeds it through
// the first, and returns the fixture and a second Service on the other
// handle: two replicas of the server.
func replicas(t *testing.T, dsn string, opts ...pipeline.Option) (world, *pipeline.Service) {
	ctx := context.Background()
	open := func() *pipelinestore.DB {
		db, err := pipelinestore.Open(ctx, dsn)
		require.NoError(t, err)
		t.Cleanup(func() { _ = db.Close() })
		require.NoError(t, db.Migrate(ctx))
		return db
	}
	w := storetest.Seeded(t, open(), opts...)
	return w, pipeline.NewService(open(), opts...)
}

// eachReplicated runs fn once per database on two replicas of it, whose
// Services have opts.
func eachReplicated(t *testing.T, name string, fn func(t *testing.T, w world, other *pipeline.Service), opts ...pipeline.Option) {
	t.Run(name, func(t *testing.T) {
		t.Parallel()
		dsns := map[string]func(t *testing.T) string{
			"sqlite":   func(t *testing.T) string { return "sqlite:" + t.TempDir() + "/pipeline.db" },
			"postgres": func(t *testing.T) string { return storetest.PostgresSchemaDSN(t) },
		}
		for db, dsn := range dsns {
			t.Run(db, func(t *testing.T) {
				w, other := replicas(t, dsn(t), opts...)
				fn(t, w, other)
			})
		}
	})
}

func TestService_AddCandidate_Concurrent(t *testing.T) {
	eachReplicated(t, "the same email at once on two replicas: one success, one 422", func(t *testing.T, w world, other *pipeline.Service) {
		job := w.Job("backend")
		for round := range 5 {
			svcs := []*pipeline.Service{w.Svc, other}
			errs := make([]error, 2)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i, svc := range svcs {
				ctx := w.As(t, []string{"olivia", "mia"}[i])
				email := fmt.Sprintf("twin%d@example.test", round)
				if i == 1 {
					email = strings.ToUpper(email)
				}
				wg.Go(func() {
					<-start
					_, errs[i] = svc.AddCandidate(ctx, job, pipeline.NewCandidate{Name: "Twin", Email: email})
				})
			}
			close(start)
			wg.Wait()
			failed := 0
			for _, err := range errs {
				if err != nil {
					failed++
					assert.Equal(t, pipeline.FieldErrors{"email": {"The email has already been taken."}}, pipeline.Fields(err))
				}
			}
			assert.Equal(t, 1, failed, "round %d: %v", round, errs)
		}
		list, err := w.Svc.ListCandidates(w.As(t, "olivia"), job, pipeline.CandidateFilter{Search: "twin"})
		require.NoError(t, err)
		assert.Equal(t, 5, list.Total)
		assert.Len(t, w.Activity(t), 5, "one entry per candidate added")
	})
	eachReplicated(t, "a burst of intakes keeps the counts exact", func(t *testing.T, w world, other *pipeline.Service) {
		job := w.Job("backend")
		stages := w.Res.Stages["backend"]
		names := []string{"Applied", "Screening", "Interview"}
		const n = 24
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			svc := []*pipeline.Service{w.Svc, other}[i%2]
			ctx := w.As(t, []string{"olivia", "adam", "mia"}[i%3])
			in := pipeline.NewCandidate{Name: fmt.Sprintf("Burst %d", i), Email: fmt.Sprintf("burst%d@example.test", i),
				StageID: stages[names[i%3]], Idempotency: &pipeline.Idempotency{Key: fmt.Sprintf("burst-%d", i)}}
			wg.Go(func() { _, errs[i] = svc.AddCandidate(ctx, job, in) })
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
		ctx := w.As(t, "olivia")
		all, err := w.Svc.ListCandidates(ctx, job, pipeline.CandidateFilter{})
		require.NoError(t, err)
		assert.Equal(t, 3+n, all.Total, "the job's total: three seeded, n added")
		// Seeded: ada and linus in Applied, grace in Screening.
		for name, want := range map[string]int{"Applied": 2 + n/3, "Screening": 1 + n/3, "Interview": n / 3} {
			l, err := w.Svc.ListCandidates(ctx, job, pipeline.CandidateFilter{StageID: stages[name]})
			require.NoError(t, err)
			assert.Equal(t, want, l.Total, name)
			counted, err := w.Svc.ListCandidates(ctx, job, pipeline.CandidateFilter{StageID: stages[name], Search: "@"})
			require.NoError(t, err)
			assert.Equal(t, counted.Total, l.Total, "%s: the kept count is the rows'", name)
		}
	})
}

func TestService_CandidateFeedAndWebhooks(t *testing.T) {
	eachWorld(t, "the entries reach the feed and the webhooks that select them", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		created := newHook(t, w, "olivia", "https://hooks.example.test/created", pipeline.ActionCandidateCreated)
		res, err := w.Svc.AddCandidate(ctx, w.Job("backend"), pipeline.NewCandidate{Name: "Alan Kay", Email: "alan@example.test"})
		require.NoError(t, err)
		_, err = w.Svc.UpdateCandidate(ctx, w.Job("backend"), res.Value.ID, pipeline.CandidatePatch{Status: new("withdrawn")})
		require.NoError(t, err)
		settleFeed(t, w, ctx, 3) // the webhook's entry, the intake's, the update's
		page, err := w.Svc.ListActivity(ctx, pipeline.FeedFilter{Actions: []string{pipeline.ActionCandidateCreated, pipeline.ActionCandidateUpdated}})
		require.NoError(t, err)
		assert.Equal(t, []string{"candidate.created", "candidate.updated"}, feedActions(page.Entries))
		for _, e := range page.Entries {
			assert.Equal(t, res.Value.ID, e.SubjectID)
		}
		assert.Equal(t, []string{pipeline.ActionCandidateCreated}, created.Events, "a webhook may select the action")
	})
}
