// Command agent works a hiring pipeline over the HTTP API with a token that
// carries only jobs:read, candidates:read and candidates:write: it lists the
// open jobs, pages through the candidates in the first stage of one, and
// moves each to the next stage with a note and a rating.
//
// Every write carries an Idempotency-Key, so that a retry after a network
// error or a 429 can never act twice.
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
	"os/signal"
	"strconv"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg := config{
		BaseURL: cmp.Or(os.Getenv("PIPELINE_URL"), "http://127.0.0.1:8080"),
		Token:   os.Getenv("PIPELINE_TOKEN"),
		Out:     os.Stdout,
	}
	if v := os.Getenv("PIPELINE_JOB"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, "agent: PIPELINE_JOB must be a job id")
			os.Exit(2)
		}
		cfg.JobID = id
	}
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
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
	c := newClient(cfg)
	var me struct {
		Data struct {
			Name   string   `json:"name"`
			Scopes []string `json:"scopes"`
			Team   struct {
				Name string `json:"name"`
			} `json:"team"`
		} `json:"data"`
	}
	if err := c.get(ctx, "/api/v1/me", &me); err != nil {
		return err
	}
	fmt.Fprintf(cfg.Out, "acting as %s (%s) with %v\n", me.Data.Name, me.Data.Team.Name, me.Data.Scopes)

	job, err := pickJob(ctx, c, cfg.JobID)
	if err != nil {
		return err
	}
	fmt.Fprintf(cfg.Out, "job %d: %s\n", job.ID, job.Title)

	var stages struct {
		Data []struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		} `json:"data"`
	}
	if err := c.get(ctx, fmt.Sprintf("/api/v1/jobs/%d/stages", job.ID), &stages); err != nil {
		return err
	}
	if len(stages.Data) < 2 {
		return fmt.Errorf("job %d has fewer than two stages", job.ID)
	}
	from, to := stages.Data[0], stages.Data[1]

	// Collect the whole stage first: moving candidates while paging would
	// shift the pages under us.
	var todo []candidate
	next := fmt.Sprintf("/api/v1/jobs/%d/candidates?stage=%d", job.ID, from.ID)
	for next != "" {
		var page struct {
			Data  []candidate `json:"data"`
			Links struct {
				Next *string `json:"next"`
			} `json:"links"`
		}
		if err := c.get(ctx, next, &page); err != nil {
			return err
		}
		todo = append(todo, page.Data...)
		next = ""
		if page.Links.Next != nil {
			next = *page.Links.Next
		}
	}
	fmt.Fprintf(cfg.Out, "%d candidates in %s\n", len(todo), from.Name)

	for _, cand := range todo {
		base := fmt.Sprintf("/api/v1/jobs/%d/candidates/%d", job.ID, cand.ID)
		if err := c.write(ctx, http.MethodPost, base+"/stage", map[string]any{"stage": to.ID}, nil); err != nil {
			return fmt.Errorf("moving %s: %w", cand.Name, err)
		}
		note := map[string]any{"content": fmt.Sprintf("Moved from %s to %s by the pipeline agent.", from.Name, to.Name)}
		if err := c.write(ctx, http.MethodPost, base+"/notes", note, nil); err != nil {
			return fmt.Errorf("noting %s: %w", cand.Name, err)
		}
		if err := c.write(ctx, http.MethodPost, base+"/rating", map[string]any{"rating": "maybe"}, nil); err != nil {
			return fmt.Errorf("rating %s: %w", cand.Name, err)
		}
		fmt.Fprintf(cfg.Out, "moved %s (%d) to %s, noted, rated maybe\n", cand.Name, cand.ID, to.Name)
	}
	fmt.Fprintf(cfg.Out, "done: %d candidates moved\n", len(todo))
	return nil
}

type job struct {
	ID    int64  `json:"id"`
	Title string `json:"title"`
}

type candidate struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// pickJob returns the job with id, or the newest open job.
func pickJob(ctx context.Context, c *client, id int64) (job, error) {
	if id != 0 {
		var one struct{ Data job }
		err := c.get(ctx, fmt.Sprintf("/api/v1/jobs/%d", id), &one)
		return one.Data, err
	}
	var list struct{ Data []job }
	if err := c.get(ctx, "/api/v1/jobs?status=open", &list); err != nil {
		return job{}, err
	}
	if len(list.Data) == 0 {
		return job{}, fmt.Errorf("no open job to work on")
	}
	return list.Data[0], nil
}
