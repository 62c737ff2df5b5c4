// Command embed uses pipeline as a library, with no HTTP server: it opens the
// embedded SQLite store, loads a small world as the operator, and works a
// candidate through the pipeline as a token's caller, with the same
// admission (authentication and rate limit), scope, visibility and
// idempotency rules an API client gets.
//
//	go run ./examples/embed
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

func main() {
	dir, err := os.MkdirTemp("", "pipeline-embed-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	if err := run(context.Background(), filepath.Join(dir, "pipeline.db"), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

// app is the embedding program: the caller-scoped Service its request
// handlers use, and the Operator only its trusted setup code holds.
type app struct {
	svc *pipeline.Service
	op  *pipeline.Operator
	res pipeline.SeedResult
	out io.Writer
}

func run(ctx context.Context, path string, out io.Writer) error {
	db, err := pipelinestore.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	// The rate limit is the Service's: this program's requests spend the
	// same budget an API request would (in memory here; a server whose
	// replicas share one counts with db.Limiter).
	svc := pipeline.NewService(db, pipeline.WithLimiter(pipeline.NewMemoryLimiter(budget)))
	a := &app{svc: svc, op: pipeline.NewOperator(db), out: out}
	if a.res, err = a.op.Seed(ctx, world()); err != nil {
		return err
	}
	for _, step := range []func(context.Context) error{a.createJob, a.workCandidates, a.refuse, a.notFound} {
		// Each step is one request of the bot's, admitted as the API
		// admits one: its caller comes from its token.
		bot, err := a.admit(ctx, "bot")
		if err != nil {
			return err
		}
		if err := step(bot); err != nil {
			return err
		}
	}
	if err := a.exhaust(ctx); err != nil {
		return err
	}
	return a.printActivity(ctx)
}

// budget is the requests a user may make in a minute, small here so that
// the program meets the limit.
const budget = 6

// admit admits one request made with the seeded token key from this
// machine, and returns its context.
func (a *app) admit(ctx context.Context, key string) (context.Context, error) {
	ctx, _, err := a.svc.Admit(ctx, a.res.Tokens[key], "127.0.0.1")
	return ctx, err
}

// exhaust sends requests with the read-only token until the user's budget,
// which all of the user's tokens share, is spent: the Service then refuses
// them as rate_limited, as the API answers 429, with the wait.
func (a *app) exhaust(ctx context.Context) error {
	for n := 1; n <= budget+1; n++ {
		_, adm, err := a.svc.Admit(ctx, a.res.Tokens["reader"], "127.0.0.1")
		if pipeline.ErrorCode(err) == pipeline.ERateLimited {
			fmt.Fprintf(a.out, "request %d of the minute: %s, retry within %s: %t\n",
				n, pipeline.ErrorCode(err), pipeline.RateWindow, adm.RetryAfter > 0 && adm.RetryAfter <= pipeline.RateWindow)
			return nil
		}
		if err != nil {
			return err
		}
	}
	return errors.New("the budget was never spent")
}

// world is what an operator loads; a real application has its own users.
func world() *pipeline.SeedWorld {
	return &pipeline.SeedWorld{
		Teams: []pipeline.SeedTeam{{Key: "acme", Name: "Acme"}},
		Users: []pipeline.SeedUser{{
			Key: "olivia", Name: "Olivia Owner", Email: "olivia@acme.test", CurrentTeam: "acme",
			Memberships: []pipeline.SeedMembership{{Team: "acme", Role: pipeline.RoleOwner}},
		}},
		Jobs: []pipeline.SeedJob{{
			Key: "backend", Team: "acme", Owner: "olivia", Title: "Backend Engineer", Status: pipeline.JobOpen,
			Candidates: []pipeline.SeedCandidate{
				{Key: "ada", Name: "Ada Lovelace", Email: "ada@example.test", Applied: "2026-01-05"},
				{Key: "grace", Name: "Grace Hopper", Email: "grace@example.test", Applied: "2026-01-06"},
			},
		}},
		Tokens: []pipeline.SeedToken{
			{Key: "bot", User: "olivia", Name: "embedded bot", Scopes: []pipeline.Scope{
				pipeline.ScopeJobsRead, pipeline.ScopeJobsWrite, pipeline.ScopeCandidatesRead, pipeline.ScopeCandidatesWrite,
			}},
			{Key: "reader", User: "olivia", Name: "read-only bot", Scopes: []pipeline.Scope{pipeline.ScopeJobsRead}},
		},
	}
}

// createJob creates a job under an idempotency key, then sends the same
// call again: the second gets the first's job back, marked replayed.
func (a *app) createJob(ctx context.Context) error {
	in := pipeline.NewJob{Title: "Platform Engineer", Description: "<p>Go and SQL</p>"}
	for range 2 {
		in.Idempotency = &pipeline.Idempotency{Key: "create-platform-engineer"}
		res, err := a.svc.CreateJob(ctx, in)
		if err != nil {
			return err
		}
		j := res.Value
		fmt.Fprintf(a.out, "created job %d %q: %s, deadline %s, replayed %t\n",
			j.ID, j.Title, j.Status, j.ApplicationDeadline.Format("2006-01-02"), res.Replayed)
	}
	return nil
}

// workCandidates moves, notes and rates every candidate in the first stage
// of the seeded job, each write under its own idempotency key.
func (a *app) workCandidates(ctx context.Context) error {
	backend := a.res.Jobs["backend"]
	stages, err := a.svc.ListStages(ctx, backend)
	if err != nil {
		return err
	}
	cands, err := a.svc.ListCandidates(ctx, backend, pipeline.CandidateFilter{StageID: stages[0].ID})
	if err != nil {
		return err
	}
	fmt.Fprintf(a.out, "%d of %d candidates in %s\n", len(cands.Items), cands.Total, stages[0].Name)
	for _, c := range cands.Items {
		key := func(what string) *pipeline.Idempotency {
			return &pipeline.Idempotency{Key: fmt.Sprintf("%s-%d", what, c.ID)}
		}
		moved, err := a.svc.MoveCandidate(ctx, backend, c.ID, pipeline.CandidateMove{StageID: stages[1].ID, Idempotency: key("move")})
		if err != nil {
			return err
		}
		note := pipeline.NewNote{Content: "Screen next week.", Idempotency: key("note")}
		if _, err := a.svc.AddNote(ctx, backend, c.ID, note); err != nil {
			return err
		}
		rating := pipeline.NewRating{Value: pipeline.GoodFit, Idempotency: key("rate")}
		if _, err := a.svc.RateCandidate(ctx, backend, c.ID, rating); err != nil {
			return err
		}
		fmt.Fprintf(a.out, "moved %s to %s, noted, rated good_fit\n", moved.Value.Name, moved.Value.Stage)
	}
	return nil
}

// refuse shows that another token of the same user, without
// candidates:write, is refused before anything is read.
func (a *app) refuse(ctx context.Context) error {
	rctx, err := a.admit(ctx, "reader")
	if err != nil {
		return err
	}
	_, err = a.svc.MoveCandidate(rctx, a.res.Jobs["backend"], a.res.Candidates["ada"], pipeline.CandidateMove{StageID: 1})
	fmt.Fprintf(a.out, "moving with a read-only token: %s\n", pipeline.ErrorCode(err))
	return nil
}

// notFound looks for a job that does not exist.
func (a *app) notFound(ctx context.Context) error {
	_, err := a.svc.GetJob(ctx, 999999)
	if !errors.Is(err, pipeline.ErrNotFound) {
		return fmt.Errorf("a missing job: want not found, got %v", err)
	}
	fmt.Fprintln(a.out, "job 999999: not found")
	return nil
}

// printActivity prints the activity log, which only the operator reads
// whole.
func (a *app) printActivity(ctx context.Context) error {
	log, err := a.op.ActivityLog(ctx, nil)
	if err != nil {
		return err
	}
	for _, e := range log {
		fmt.Fprintf(a.out, "activity %d: %s %s %d by user %d with token %d from %s: %s\n",
			e.ID, e.Action, e.SubjectType, e.SubjectID, e.UserID, e.TokenID, e.IP, e.Changes)
	}
	return nil
}
