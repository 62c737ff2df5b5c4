package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// exampleWorld opens a fresh embedded store, loads a team with one job and
// two candidates, and returns a service whose clock stands still, the seed
// result, and a function that removes it all.
func exampleWorld() (*pipeline.Service, pipeline.SeedResult, func()) {
	svc, _, res, done := exampleStore()
	return svc, res, done
}

// exampleStore is exampleWorld with the Operator beside the Service.
func exampleStore() (*pipeline.Service, *pipeline.Operator, pipeline.SeedResult, func()) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "pipeline-example-")
	if err != nil {
		panic(err)
	}
	db, err := pipelinestore.Open(ctx, filepath.Join(dir, "pipeline.db"))
	if err != nil {
		panic(err)
	}
	if err := db.Migrate(ctx); err != nil {
		panic(err)
	}
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	clock := pipeline.WithClock(pipeline.ClockFunc(func() time.Time { return now }))
	svc, op := pipeline.NewService(db, clock), pipeline.NewOperator(db, clock)
	res, err := op.Seed(ctx, &pipeline.SeedWorld{
		Teams: []pipeline.SeedTeam{{Key: "acme", Name: "Acme"}},
		Users: []pipeline.SeedUser{{Key: "olivia", Name: "Olivia Owner", Email: "olivia@acme.test",
			CurrentTeam: "acme", Memberships: []pipeline.SeedMembership{{Team: "acme", Role: pipeline.RoleOwner}}}},
		Jobs: []pipeline.SeedJob{{Key: "backend", Team: "acme", Owner: "olivia", Title: "Backend Engineer",
			Status: pipeline.JobOpen, Candidates: []pipeline.SeedCandidate{
				{Key: "ada", Name: "Ada Lovelace", Email: "ada@example.test", Applied: "2026-02-05"},
				{Key: "grace", Name: "Grace Hopper", Email: "grace@example.test", Applied: "2026-02-06", Stage: "Screening"},
			}}},
		Tokens: []pipeline.SeedToken{
			{Key: "bot", User: "olivia", Name: "bot", Scopes: pipeline.AllScopes},
			{Key: "reader", User: "olivia", Name: "reader", Scopes: []pipeline.Scope{pipeline.ScopeJobsRead}},
		},
	})
	if err != nil {
		panic(err)
	}
	return svc, op, res, func() { db.Close(); os.RemoveAll(dir) }
}

// as authenticates a token value and puts its caller on a context, as the
// HTTP layer does for every request.
func as(svc *pipeline.Service, token string) context.Context {
	c, err := svc.Authenticate(context.Background(), token)
	if err != nil {
		panic(err)
	}
	return pipeline.NewContext(context.Background(), c.WithIP("127.0.0.1"))
}

func ExampleService_Authenticate() {
	svc, res, done := exampleWorld()
	defer done()

	c, err := svc.Authenticate(context.Background(), res.Tokens["reader"])
	fmt.Println(c.User().Name, c.Team().Name, c.Scopes(), err)

	_, err = svc.Authenticate(context.Background(), "plt_not-a-token")
	fmt.Println(pipeline.ErrorCode(err))
	// Output:
	// Olivia Owner Acme [jobs:read] <nil>
	// unauthenticated
}

func ExampleService_CreateJob() {
	svc, res, done := exampleWorld()
	defer done()

	created, err := svc.CreateJob(as(svc, res.Tokens["bot"]), pipeline.NewJob{Title: "Data Engineer"})
	if err != nil {
		panic(err)
	}
	job := created.Value
	fmt.Println(job.Title, job.Status, job.WorkMode, job.EmploymentType, job.ApplicationDeadline.Format(time.DateOnly))

	_, err = svc.CreateJob(as(svc, res.Tokens["reader"]), pipeline.NewJob{Title: "Data Engineer"})
	fmt.Println(pipeline.ErrorCode(err))
	// Output:
	// Data Engineer open onsite full_time 2026-04-01
	// insufficient_scope
}

func ExampleService_ListCandidates() {
	svc, res, done := exampleWorld()
	defer done()

	list, err := svc.ListCandidates(as(svc, res.Tokens["bot"]), res.Jobs["backend"], pipeline.CandidateFilter{Search: "HOPPER"})
	if err != nil {
		panic(err)
	}
	for _, c := range list.Items {
		fmt.Println(c.Name, c.Stage, c.Applied.Format(time.DateOnly))
	}
	fmt.Println("page", list.Page, "of", list.LastPage(), "total", list.Total)
	// Output:
	// Grace Hopper Screening 2026-02-06
	// page 1 of 1 total 1
}

func ExampleService_MoveCandidate() {
	svc, op, res, done := exampleStore()
	defer done()
	ctx := as(svc, res.Tokens["bot"])

	job, ada := res.Jobs["backend"], res.Candidates["ada"]
	moved, err := svc.MoveCandidate(ctx, job, ada, pipeline.CandidateMove{StageID: res.Stages["backend"]["Interview"]})
	if err != nil {
		panic(err)
	}
	fmt.Println(moved.Value.Name, "is in", moved.Value.Stage)

	log, err := op.ActivityLog(context.Background(), nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(log[0].Action, string(log[0].Changes), log[0].IP)
	// Output:
	// Ada Lovelace is in Interview
	// candidate.stage_changed {"stage":{"before":"Applied","after":"Interview"}} 127.0.0.1
}

func ExampleService_AddNote() {
	svc, res, done := exampleWorld()
	defer done()
	ctx := as(svc, res.Tokens["bot"])

	n, err := svc.AddNote(ctx, res.Jobs["backend"], res.Candidates["grace"], pipeline.NewNote{Content: "Great compiler talk."})
	if err != nil {
		panic(err)
	}
	fmt.Println(n.Value.Content, "by", n.Value.Author.Name)

	_, err = svc.AddNote(ctx, res.Jobs["backend"], res.Candidates["grace"], pipeline.NewNote{Content: "  "})
	fmt.Println(pipeline.Fields(err))
	// Output:
	// Great compiler talk. by Olivia Owner
	// map[content:[The content field is required.]]
}

func ExampleService_RateCandidate() {
	svc, res, done := exampleWorld()
	defer done()
	ctx := as(svc, res.Tokens["bot"])

	r, err := svc.RateCandidate(ctx, res.Jobs["backend"], res.Candidates["ada"], pipeline.NewRating{Value: pipeline.GoodFit})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Value.Value, r.Value.UpdatedAt.Format(time.RFC3339))

	_, err = svc.RateCandidate(ctx, res.Jobs["backend"], res.Candidates["ada"], pipeline.NewRating{Value: "excellent"})
	fmt.Println(pipeline.ErrorCode(err))
	// Output:
	// good_fit 2026-03-02T09:00:00Z
	// validation_failed
}

// Example_embedding is what a program embedding the library does: open
// and migrate a store, make a Service for request handlers, and act for
// the caller a token names, with the same scope checks, visibility rule
// and activity log as the HTTP API.
func Example_embedding() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "pipeline-embed-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	db, err := pipelinestore.Open(ctx, filepath.Join(dir, "pipeline.db")) // or "postgres://…"
	if err != nil {
		panic(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		panic(err)
	}
	op := pipeline.NewOperator(db) // trusted setup code: seeding, tokens, the whole log
	world, err := op.Seed(ctx, &pipeline.SeedWorld{
		Teams: []pipeline.SeedTeam{{Key: "acme", Name: "Acme"}},
		Users: []pipeline.SeedUser{{Key: "olivia", Name: "Olivia Owner", Email: "olivia@acme.test",
			CurrentTeam: "acme", Memberships: []pipeline.SeedMembership{{Team: "acme", Role: pipeline.RoleOwner}}}},
		Jobs:   []pipeline.SeedJob{{Key: "backend", Team: "acme", Owner: "olivia", Title: "Backend Engineer", Status: pipeline.JobOpen}},
		Tokens: []pipeline.SeedToken{{Key: "bot", User: "olivia", Name: "bot", Scopes: []pipeline.Scope{pipeline.ScopeJobsRead}}},
	})
	if err != nil {
		panic(err)
	}

	svc := pipeline.NewService(db) // for request handlers
	caller, err := svc.Authenticate(ctx, world.Tokens["bot"])
	if err != nil {
		panic(err)
	}
	ctx = pipeline.NewContext(ctx, caller.WithIP("192.0.2.7"))
	jobs, err := svc.ListJobs(ctx, pipeline.JobFilter{}) // open jobs, page 1
	if err != nil {
		panic(err)
	}
	fmt.Println(jobs.Total, jobs.Items[0].Title)

	_, err = svc.CreateJob(ctx, pipeline.NewJob{Title: "Data Engineer"})
	fmt.Println(errors.Is(err, pipeline.ErrInsufficientScope))
	// Output:
	// 1 Backend Engineer
	// true
}

// Example_idempotency: a write with an idempotency key, repeated, replays
// the stored result instead of acting again.
func Example_idempotency() {
	svc, res, done := exampleWorld()
	defer done()
	ctx := as(svc, res.Tokens["bot"])

	note := pipeline.NewNote{Content: "Strong systems background.", Idempotency: &pipeline.Idempotency{Key: "note-42"}}
	first, err := svc.AddNote(ctx, res.Jobs["backend"], res.Candidates["ada"], note)
	if err != nil {
		panic(err)
	}
	again, err := svc.AddNote(ctx, res.Jobs["backend"], res.Candidates["ada"], note)
	if err != nil {
		panic(err)
	}
	fmt.Println(first.Replayed, again.Replayed, first.Value.ID == again.Value.ID)

	note.Content = "Another note under the same key."
	_, err = svc.AddNote(ctx, res.Jobs["backend"], res.Candidates["ada"], note)
	fmt.Println(pipeline.ErrorCode(err))
	// Output:
	// false true true
	// validation_failed
}

// ExampleOperator_ActAs: a program acting as one of its users, without a
// token, reaches what that user reaches and no more.
func ExampleOperator_ActAs() {
	svc, op, res, done := exampleStore()
	defer done()

	caller, err := op.ActAs(context.Background(), res.Users["olivia"], []pipeline.Scope{pipeline.ScopeCandidatesRead})
	if err != nil {
		panic(err)
	}
	ctx := pipeline.NewContext(context.Background(), caller)
	c, err := svc.GetCandidate(ctx, res.Jobs["backend"], res.Candidates["grace"])
	fmt.Println(c.Name, err)

	_, err = svc.GetCandidate(ctx, res.Jobs["backend"], 999)
	fmt.Println(errors.Is(err, pipeline.ErrNotFound))
	// Output:
	// Grace Hopper <nil>
	// true
}

// ExampleService_ListActivity: the feed from a cursor. Every page carries
// the cursor of what follows, the last page too, so a reader that keeps
// it later gets what was written since, once each.
func ExampleService_ListActivity() {
	svc, res, done := exampleWorld()
	defer done()
	ctx := as(svc, res.Tokens["bot"])
	job := res.Jobs["backend"]

	page, err := svc.ListActivity(ctx, pipeline.FeedFilter{})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(page.Entries), "entries")

	if _, err := svc.MoveCandidate(ctx, job, res.Candidates["ada"], pipeline.CandidateMove{StageID: res.Stages["backend"]["Offer"]}); err != nil {
		panic(err)
	}
	page, err = svc.ListActivity(ctx, pipeline.FeedFilter{After: page.Next})
	if err != nil {
		panic(err)
	}
	for _, e := range page.Entries {
		fmt.Println(e.Action, "by", e.Actor.Name)
	}
	// Output:
	// 0 entries
	// candidate.stage_changed by Olivia Owner
}
