// Command mcpagent works a hiring pipeline through the API's MCP face, as an
// agent's tool loop would: it connects with the official MCP Go SDK's
// client and the token's bearer header, checks that tools/list offers what
// it needs, and moves every candidate in the first stage of a job to the
// second with a note and a rating.
//
// Every write carries an idempotency_key, so a retry can never act twice,
// and a call refused with rate_limited is retried after
// error.details.retry_after seconds with the same key.
//
//	PIPELINE_MCP_URL=http://127.0.0.1:8080/mcp PIPELINE_TOKEN=plt_… go run ./examples/mcpagent
package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/google/uuid"

	"github.com/pipeline-dev/pipeline/examples/internal/demo"
)

func main() {
	cfg := config{
		Endpoint: cmp.Or(os.Getenv("PIPELINE_MCP_URL"), "http://127.0.0.1:8080/mcp"),
		Token:    os.Getenv("PIPELINE_TOKEN"),
		JobID:    demo.JobFromEnv("mcpagent"),
		Out:      os.Stdout,
	}
	demo.Run("mcpagent", func(ctx context.Context) error { return run(ctx, cfg) })
}

// config says where the MCP face is and what to work on.
type config struct {
	Endpoint string // the server's /mcp
	Token    string
	JobID    int64 // 0: the newest open job
	Out      io.Writer
	HTTP     http.RoundTripper // nil: http.DefaultTransport
	Sleep    func(context.Context, time.Duration) error
}

// needed are the tools the agent calls; tools/list shows only those the
// token's scopes allow.
var needed = []string{"get_me", "list_jobs", "get_job", "list_stages", "list_candidates",
	"move_candidate", "add_note", "rate_candidate"}

// run makes one pass over a job: every candidate in its first stage moves
// to the second, with a note and a "maybe" rating.
func run(ctx context.Context, cfg config) error {
	if cfg.Token == "" {
		return fmt.Errorf("PIPELINE_TOKEN is not set")
	}
	a, err := connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.session.Close()

	var me struct {
		Data struct {
			Name   string   `json:"name"`
			Scopes []string `json:"scopes"`
		} `json:"data"`
	}
	if err := a.call(ctx, "get_me", nil, &me); err != nil {
		return err
	}
	fmt.Fprintf(cfg.Out, "acting as %s with %v\n", me.Data.Name, me.Data.Scopes)

	job, err := a.pickJob(ctx, cfg.JobID)
	if err != nil {
		return err
	}
	fmt.Fprintf(cfg.Out, "job %d: %s\n", job.ID, job.Title)

	var stages struct {
		Data []named `json:"data"`
	}
	if err := a.call(ctx, "list_stages", map[string]any{"job_id": job.ID}, &stages); err != nil {
		return err
	}
	if len(stages.Data) < 2 {
		return fmt.Errorf("job %d has fewer than two stages", job.ID)
	}
	from, to := stages.Data[0], stages.Data[1]

	todo, err := a.candidatesIn(ctx, job.ID, from.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(cfg.Out, "%d candidates in %s\n", len(todo), from.Name)
	for _, cand := range todo {
		if err := a.advance(ctx, job.ID, cand, from, to); err != nil {
			return err
		}
		fmt.Fprintf(cfg.Out, "moved %s (%d) to %s, noted, rated maybe\n", cand.Name, cand.ID, to.Name)
	}
	fmt.Fprintf(cfg.Out, "done: %d candidates moved\n", len(todo))
	return nil
}

// named is a record shown by id and name: a stage, a candidate.
type named struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

type job struct {
	ID    int64  `json:"id"`
	Title string `json:"title"`
}

// pickJob returns the job with id, or the newest open job.
func (a *agent) pickJob(ctx context.Context, id int64) (job, error) {
	if id != 0 {
		var one struct {
			Data job `json:"data"`
		}
		err := a.call(ctx, "get_job", map[string]any{"job_id": id}, &one)
		return one.Data, err
	}
	var jobs struct {
		Data []job `json:"data"`
	}
	if err := a.call(ctx, "list_jobs", map[string]any{"status": "open"}, &jobs); err != nil {
		return job{}, err
	}
	if len(jobs.Data) == 0 {
		return job{}, fmt.Errorf("no open job to work on")
	}
	return jobs.Data[0], nil
}

// candidatesIn collects every page of the candidates of a job in a stage,
// following links.next. The whole stage is collected first: moving
// candidates while paging would shift the pages under us.
func (a *agent) candidatesIn(ctx context.Context, jobID, stage int64) ([]named, error) {
	var all []named
	for page := 1; ; page++ {
		var l struct {
			Data  []named `json:"data"`
			Links struct {
				Next *string `json:"next"`
			} `json:"links"`
		}
		args := map[string]any{"job_id": jobID, "stage": stage, "page": page}
		if err := a.call(ctx, "list_candidates", args, &l); err != nil {
			return nil, err
		}
		all = append(all, l.Data...)
		if l.Links.Next == nil {
			return all, nil
		}
	}
}

// advance moves a candidate from one stage to the next, notes it and
// rates it maybe, each write with a key of its own.
func (a *agent) advance(ctx context.Context, jobID int64, cand named, from, to named) error {
	ids := map[string]any{"job_id": jobID, "candidate_id": cand.ID}
	writes := []struct {
		tool string
		args map[string]any
	}{
		{"move_candidate", map[string]any{"stage": to.ID}},
		{"add_note", map[string]any{"content": fmt.Sprintf("Moved from %s to %s by the MCP agent.", from.Name, to.Name)}},
		{"rate_candidate", map[string]any{"rating": "maybe"}},
	}
	for _, w := range writes {
		for k, v := range ids {
			w.args[k] = v
		}
		w.args["idempotency_key"] = uuid.NewString()
		if err := a.call(ctx, w.tool, w.args, nil); err != nil {
			return fmt.Errorf("%s of %s: %w", w.tool, cand.Name, err)
		}
	}
	return nil
}
