// Command agent works a hiring pipeline over the HTTP API with a token that
// carries only jobs:read, candidates:read and candidates:write: it lists the
// open jobs, pages through the candidates in the first stage of one, and
// moves each to the next stage with a note and a rating.
//
// It talks to the API through the client in pipelineapi, generated from the
// API's OpenAPI document by oapi-codegen. Every write carries an
// Idempotency-Key, so that a retry after a network error or a 429 can never
// act twice.
//
//	PIPELINE_URL=http://127.0.0.1:8080 PIPELINE_TOKEN=plt_… go run ./examples/agent
package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/pipeline-dev/pipeline/examples/agent/pipelineapi"
	"github.com/pipeline-dev/pipeline/examples/internal/demo"
)

func main() {
	cfg := config{
		BaseURL: cmp.Or(os.Getenv("PIPELINE_URL"), "http://127.0.0.1:8080"),
		Token:   os.Getenv("PIPELINE_TOKEN"),
		JobID:   demo.JobFromEnv("agent"),
		Out:     os.Stdout,
	}
	demo.Run("agent", func(ctx context.Context) error { return run(ctx, cfg) })
}

// config says where the API is and what to work on.
type config struct {
	BaseURL string
	Token   string
	JobID   int64 // 0: the newest open job
	Out     io.Writer
	HTTP    *http.Client // nil: a client with a 30 s timeout
	Sleep   func(context.Context, time.Duration) error
}

// run makes one pass over a job: every candidate in its first stage moves to
// the second, with a note and a "maybe" rating.
func run(ctx context.Context, cfg config) error {
	if cfg.Token == "" {
		return fmt.Errorf("PIPELINE_TOKEN is not set")
	}
	c, err := newClient(cfg)
	if err != nil {
		return err
	}
	me, err := c.GetMeWithResponse(ctx, nil)
	if err != nil {
		return err
	}
	if me.JSON200 == nil {
		return failed(me.HTTPResponse, me.JSON401, me.JSON429, me.JSON500)
	}
	who := me.JSON200.Data
	fmt.Fprintf(cfg.Out, "acting as %s (%s) with %v\n", who.Name, who.Team.Name, who.Scopes)

	job, err := pickJob(ctx, c, cfg.JobID)
	if err != nil {
		return err
	}
	fmt.Fprintf(cfg.Out, "job %d: %s\n", job.ID, job.Title)

	stages, err := c.ListStagesWithResponse(ctx, job.ID, nil)
	if err != nil {
		return err
	}
	if stages.JSON200 == nil {
		return failed(stages.HTTPResponse, stages.JSON401, stages.JSON403, stages.JSON404, stages.JSON429, stages.JSON500)
	}
	if len(stages.JSON200.Data) < 2 {
		return fmt.Errorf("job %d has fewer than two stages", job.ID)
	}
	from, to := stages.JSON200.Data[0], stages.JSON200.Data[1]

	todo, err := candidatesIn(ctx, c, job.ID, from.Id)
	if err != nil {
		return err
	}
	fmt.Fprintf(cfg.Out, "%d candidates in %s\n", len(todo), from.Name)

	for _, cand := range todo {
		if err := advance(ctx, c, job.ID, cand, from, to); err != nil {
			return err
		}
		fmt.Fprintf(cfg.Out, "moved %s (%d) to %s, noted, rated maybe\n", cand.Name, cand.Id, to.Name)
	}
	fmt.Fprintf(cfg.Out, "done: %d candidates moved\n", len(todo))
	return nil
}

type job struct {
	ID    int64
	Title string
}

// pickJob returns the job with id, or the newest open job.
func pickJob(ctx context.Context, c *pipelineapi.ClientWithResponses, id int64) (job, error) {
	if id != 0 {
		r, err := c.GetJobWithResponse(ctx, id, nil)
		if err != nil {
			return job{}, err
		}
		if r.JSON200 == nil {
			return job{}, failed(r.HTTPResponse, r.JSON401, r.JSON403, r.JSON404, r.JSON429, r.JSON500)
		}
		return job{ID: r.JSON200.Data.Id, Title: r.JSON200.Data.Title}, nil
	}
	open := pipelineapi.Open
	r, err := c.ListJobsWithResponse(ctx, &pipelineapi.ListJobsParams{Status: &open})
	if err != nil {
		return job{}, err
	}
	if r.JSON200 == nil {
		return job{}, failed(r.HTTPResponse, r.JSON401, r.JSON403, r.JSON422, r.JSON429, r.JSON500)
	}
	if len(r.JSON200.Data) == 0 {
		return job{}, fmt.Errorf("no open job to work on")
	}
	return job{ID: r.JSON200.Data[0].Id, Title: r.JSON200.Data[0].Title}, nil
}

// candidatesIn collects every page of the candidates of a job in a stage.
// The whole stage is collected first: moving candidates while paging would
// shift the pages under us.
func candidatesIn(ctx context.Context, c *pipelineapi.ClientWithResponses, jobID, stage int64) ([]pipelineapi.CandidateSummary, error) {
	var all []pipelineapi.CandidateSummary
	for page := int64(1); ; page++ {
		r, err := c.ListCandidatesWithResponse(ctx, jobID, &pipelineapi.ListCandidatesParams{Stage: &stage, Page: &page})
		if err != nil {
			return nil, err
		}
		if r.JSON200 == nil {
			return nil, failed(r.HTTPResponse, r.JSON401, r.JSON403, r.JSON404, r.JSON422, r.JSON429, r.JSON500)
		}
		all = append(all, r.JSON200.Data...)
		if r.JSON200.Links.Next == nil {
			return all, nil
		}
	}
}

// advance moves a candidate from one stage to the next, notes it and rates
// it maybe. Each write carries its own Idempotency-Key.
func advance(ctx context.Context, c *pipelineapi.ClientWithResponses, jobID int64, cand pipelineapi.CandidateSummary, from, to pipelineapi.Stage) error {
	moved, err := c.MoveCandidateWithResponse(ctx, jobID, cand.Id,
		&pipelineapi.MoveCandidateParams{IdempotencyKey: newKey()}, pipelineapi.StageMoveRequest{Stage: to.Id})
	if err == nil && moved.JSON200 == nil {
		err = failed(moved.HTTPResponse, moved.JSON401, moved.JSON403, moved.JSON404, moved.JSON409, moved.JSON413, moved.JSON422, moved.JSON429, moved.JSON500)
	}
	if err != nil {
		return fmt.Errorf("moving %s: %w", cand.Name, err)
	}

	note := pipelineapi.NoteCreateRequest{Content: fmt.Sprintf("Moved from %s to %s by the pipeline agent.", from.Name, to.Name)}
	noted, err := c.AddNoteWithResponse(ctx, jobID, cand.Id, &pipelineapi.AddNoteParams{IdempotencyKey: newKey()}, note)
	if err == nil && noted.JSON201 == nil {
		err = failed(noted.HTTPResponse, noted.JSON401, noted.JSON403, noted.JSON404, noted.JSON409, noted.JSON413, noted.JSON422, noted.JSON429, noted.JSON500)
	}
	if err != nil {
		return fmt.Errorf("noting %s: %w", cand.Name, err)
	}

	rated, err := c.RateCandidateWithResponse(ctx, jobID, cand.Id,
		&pipelineapi.RateCandidateParams{IdempotencyKey: newKey()}, pipelineapi.RatingRequest{Rating: pipelineapi.Maybe})
	if err == nil && rated.JSON200 == nil {
		err = failed(rated.HTTPResponse, rated.JSON401, rated.JSON403, rated.JSON404, rated.JSON409, rated.JSON413, rated.JSON422, rated.JSON429, rated.JSON500)
	}
	if err != nil {
		return fmt.Errorf("rating %s: %w", cand.Name, err)
	}
	return nil
}
