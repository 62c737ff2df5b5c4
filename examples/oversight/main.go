// Command oversight shows an agent working under a person's oversight,
// over the HTTP API. The agent's token may only propose rejecting a
// candidate: update_candidate and move_candidate are under its approval
// policy, so its PATCH answers 202 with a proposal and changes nothing.
// A person, another user whose token carries proposals:review, reads the
// proposal with the agent's reason and approves it; the write runs then,
// as the agent's, and its activity entry keeps the reason and who
// approved it.
//
// It serves the API on a loopback port over a fresh SQLite database, and
// prints each request and what it answered:
//
//	go run ./examples/oversight
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

func main() {
	gin.SetMode(gin.ReleaseMode)
	dir, err := os.MkdirTemp("", "pipeline-oversight-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	if err := run(context.Background(), filepath.Join(dir, "pipeline.db"), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "oversight:", err)
		os.Exit(1)
	}
}

// The agent's reason for the rejection, and the person's note on the
// decision.
const (
	reason = "The role needs a work permit for Germany, and the application says there is none."
	note   = "Checked the application with Ada's recruiter: agreed."
)

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
	w, err := setUp(ctx, pipeline.NewOperator(db))
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: pipelinehttp.New(svc, pipelinehttp.Config{}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Shutdown(context.Background())
	api := client{base: "http://" + ln.Addr().String() + "/api/v1", out: out}
	return w.oversee(ctx, api)
}

// world is what the operator set up: the job, the candidate, and the two
// tokens.
type world struct {
	job, candidate int64
	agent, person  string
}

// setUp loads a team with a recruiter, Rita, whose agent screens
// applicants, and a hiring manager, Olivia, who reviews what it proposes;
// it issues the agent's token under an approval policy and Olivia's
// token with proposals:review.
func setUp(ctx context.Context, op *pipeline.Operator) (world, error) {
	res, err := op.Seed(ctx, &pipeline.SeedWorld{
		Teams: []pipeline.SeedTeam{{Key: "acme", Name: "Acme"}},
		Users: []pipeline.SeedUser{
			{Key: "olivia", Name: "Olivia Owner", Email: "olivia@acme.test", CurrentTeam: "acme",
				Memberships: []pipeline.SeedMembership{{Team: "acme", Role: pipeline.RoleOwner}}},
			{Key: "rita", Name: "Rita Recruiter", Email: "rita@acme.test", CurrentTeam: "acme",
				Memberships: []pipeline.SeedMembership{{Team: "acme", Role: pipeline.RoleMember}}},
		},
		Jobs: []pipeline.SeedJob{{
			Key: "backend", Team: "acme", Owner: "olivia", Assignees: []string{"rita"},
			Title: "Backend Engineer (Berlin)", Status: pipeline.JobOpen,
			Candidates: []pipeline.SeedCandidate{{Key: "ada", Name: "Ada Lovelace", Email: "ada@example.test", Applied: "2026-01-05"}},
		}},
	})
	if err != nil {
		return world{}, err
	}
	_, agent, err := op.IssueToken(ctx, pipeline.TokenRequest{
		UserEmail: "rita@acme.test", Name: "screening agent",
		Scopes:   []pipeline.Scope{pipeline.ScopeCandidatesRead, pipeline.ScopeCandidatesWrite},
		Approval: []pipeline.Op{pipeline.OpUpdateCandidate, pipeline.OpMoveCandidate},
	})
	if err != nil {
		return world{}, err
	}
	_, person, err := op.IssueToken(ctx, pipeline.TokenRequest{
		UserEmail: "olivia@acme.test", Name: "review",
		Scopes: []pipeline.Scope{pipeline.ScopeCandidatesRead, pipeline.ScopeCandidatesWrite,
			pipeline.ScopeProposalsReview, pipeline.ScopeActivityRead},
	})
	if err != nil {
		return world{}, err
	}
	return world{job: res.Jobs["backend"], candidate: res.Candidates["ada"], agent: agent, person: person}, nil
}

// proposal is what this program reads of a proposal.
type proposal struct {
	ID          int64   `json:"id"`
	Operation   string  `json:"operation"`
	Method      string  `json:"method"`
	Path        string  `json:"path"`
	Reason      *string `json:"reason"`
	Status      string  `json:"status"`
	RequestedBy struct {
		User  struct{ Name string } `json:"user"`
		Token struct{ Name string } `json:"token"`
	} `json:"requested_by"`
	DecidedBy *struct {
		User struct{ Name string } `json:"user"`
	} `json:"decided_by"`
	Result *struct {
		Status int             `json:"status"`
		Body   json.RawMessage `json:"body"`
	} `json:"result"`
}

// oversee is the whole exchange: the agent proposes, the person reviews
// and approves, and both see what happened.
func (w world) oversee(ctx context.Context, api client) error {
	cand := fmt.Sprintf("/jobs/%d/candidates/%d", w.job, w.candidate)

	// 1. The agent asks to reject Ada, with its reason. Under its policy
	// the write is held: 202, and a proposal.
	var held struct{ Data proposal }
	resp, err := api.do(ctx, w.agent, "agent", http.MethodPatch, cand, map[string]any{"status": "rejected", "reason": reason}, &held)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("the agent's write answered %s, not 202", resp.Status)
	}
	p := held.Data
	api.printf("  Location: %s\n", resp.Header.Get("Location"))
	api.printf("  proposal %d: %s, %s %s, reason %q\n", p.ID, p.Status, p.Method, p.Path, deref(p.Reason))
	if err := w.status(ctx, api, w.agent, "agent", cand); err != nil {
		return err
	}

	// 2. The person lists what waits for a decision.
	var pending struct{ Data []proposal }
	if _, err := api.do(ctx, w.person, "person", http.MethodGet, "/proposals?status=pending", nil, &pending); err != nil {
		return err
	}
	for _, q := range pending.Data {
		api.printf("  proposal %d: %s by %s (%s): %q\n", q.ID, q.Operation, q.RequestedBy.User.Name, q.RequestedBy.Token.Name, deref(q.Reason))
	}

	// 3. The person approves: the write runs now, as the agent's.
	var decided struct{ Data proposal }
	resp, err = api.do(ctx, w.person, "person", http.MethodPost, fmt.Sprintf("/proposals/%d/approve", p.ID), map[string]any{"note": note}, &decided)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the approval answered %s", resp.Status)
	}
	d := decided.Data
	if d.DecidedBy == nil || d.Result == nil {
		return errors.New("the decided proposal has no decider or result")
	}
	api.printf("  proposal %d: %s, approved by %s; the write answered %d\n", d.ID, d.Status, d.DecidedBy.User.Name, d.Result.Status)
	if err := w.status(ctx, api, w.person, "person", cand); err != nil {
		return err
	}

	// 4. The activity feed keeps who asked, why, and who approved.
	var feed struct {
		Data []struct {
			Action  string          `json:"action"`
			Changes json.RawMessage `json:"changes"`
			Actor   struct {
				User struct{ Name string } `json:"user"`
			} `json:"actor"`
			Reason     *string `json:"reason"`
			ApprovedBy *struct {
				User    struct{ Name string } `json:"user"`
				TokenID *int64                `json:"token_id"`
			} `json:"approved_by"`
		}
	}
	if _, err := api.do(ctx, w.person, "person", http.MethodGet, "/activity", nil, &feed); err != nil {
		return err
	}
	for _, e := range feed.Data {
		line := fmt.Sprintf("  %s by %s: %s", e.Action, e.Actor.User.Name, e.Changes)
		if e.Reason != nil {
			line += fmt.Sprintf(", reason %q", *e.Reason)
		}
		if e.ApprovedBy != nil {
			line += ", approved by " + e.ApprovedBy.User.Name
		}
		api.printf("%s\n", line)
	}
	return nil
}

// status prints the candidate's status as the token reads it.
func (w world) status(ctx context.Context, api client, token, who, path string) error {
	var c struct{ Data struct{ Name, Status string } }
	if _, err := api.do(ctx, token, who, http.MethodGet, path, nil, &c); err != nil {
		return err
	}
	api.printf("  %s is %s\n", c.Data.Name, c.Data.Status)
	return nil
}

// client sends the API's requests and prints each with its answer.
type client struct {
	base string
	out  io.Writer
}

func (c client) printf(format string, args ...any) { fmt.Fprintf(c.out, format, args...) }

// do sends one request with token, prints it as who made it and its
// status, and decodes a 2xx body into v; any other answer is an error
// carrying the error envelope.
func (c client) do(ctx context.Context, token, who, method, path string, body, v any) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	c.printf("%s: %s /api/v1%s -> %s\n", who, method, path, resp.Status)
	if resp.StatusCode/100 != 2 {
		return resp, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(raw)))
	}
	return resp, json.Unmarshal(raw, v)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
