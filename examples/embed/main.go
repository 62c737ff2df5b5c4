// Command embed uses pipeline as a library, with no HTTP server: it opens the
// embedded SQLite store, builds a Service, loads a small world, and works a
// candidate through the pipeline with the same scope and visibility checks an
// API client gets.
//
//	go run ./examples/embed
package main

import (
	"context"
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

func run(ctx context.Context, path string, out io.Writer) error {
	db, err := pipelinestore.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	svc := pipeline.NewService(db)

	// An operator loads the world; a real application has its own users.
	res, err := svc.Seed(ctx, &pipeline.SeedWorld{
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
	})
	if err != nil {
		return err
	}

	// A caller comes from a token, exactly as over HTTP.
	caller, err := svc.Authenticate(ctx, res.Tokens["bot"])
	if err != nil {
		return err
	}
	caller.IP = "127.0.0.1"
	ctx = pipeline.NewContext(ctx, caller)

	job, err := svc.CreateJob(ctx, pipeline.NewJob{Title: "Platform Engineer", Description: "<p>Go and SQL</p>"})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "created job %d %q: %s, deadline %s\n", job.ID, job.Title, job.Status, job.ApplicationDeadline.Format("2006-01-02"))

	backend := res.Jobs["backend"]
	stages, err := svc.Stages(ctx, backend)
	if err != nil {
		return err
	}
	cands, err := svc.ListCandidates(ctx, backend, pipeline.CandidateFilter{StageID: stages[0].ID})
	if err != nil {
		return err
	}
	if len(cands.Items) == 0 {
		return fmt.Errorf("no candidate in %s", stages[0].Name)
	}
	fmt.Fprintf(out, "%d of %d candidates in %s\n", len(cands.Items), cands.Total, stages[0].Name)
	for _, c := range cands.Items {
		moved, err := svc.MoveCandidate(ctx, backend, c.ID, pipeline.StageMove{StageID: stages[1].ID})
		if err != nil {
			return err
		}
		if _, err := svc.AddNote(ctx, backend, c.ID, pipeline.NewNote{Content: "Screen next week."}); err != nil {
			return err
		}
		if _, err := svc.RateCandidate(ctx, backend, c.ID, pipeline.NewRating{Value: pipeline.GoodFit}); err != nil {
			return err
		}
		fmt.Fprintf(out, "moved %s to %s, noted, rated good_fit\n", moved.Name, moved.Stage)
	}

	// Another token of the same user lacks candidates:write: the service
	// refuses before it reads anything.
	reader, err := svc.Authenticate(context.Background(), res.Tokens["reader"])
	if err != nil {
		return err
	}
	rctx := pipeline.NewContext(context.Background(), reader)
	_, err = svc.MoveCandidate(rctx, backend, cands.Items[0].ID, pipeline.StageMove{StageID: stages[0].ID})
	fmt.Fprintf(out, "moving with a read-only token: %s\n", pipeline.ErrorCode(err))

	log, err := svc.ActivityLog(ctx, nil)
	if err != nil {
		return err
	}
	for _, a := range log {
		fmt.Fprintf(out, "activity %d: %s %s %d by user %d from %s: %s\n",
			a.ID, a.Action, a.SubjectType, a.SubjectID, a.UserID, a.IP, a.Changes)
	}
	return nil
}
