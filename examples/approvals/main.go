// Command approvals uses pipeline as a library, with no HTTP server, to
// hold an agent's writes for a person: the agent's token may only propose
// moving a candidate and adding a note, so each of its calls returns a
// pending proposal and changes nothing. A reviewer approves the move,
// which runs then as the agent's, and rejects the note, which never runs.
// A program with pipeline and pipelinestore alone gets these guarantees:
// no face stands between a proposal and its run.
//
//	go run ./examples/approvals
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
	dir, err := os.MkdirTemp("", "pipeline-approvals-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	if err := run(context.Background(), filepath.Join(dir, "pipeline.db"), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "approvals:", err)
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
	res, err := pipeline.NewOperator(db).Seed(ctx, world())
	if err != nil {
		return err
	}
	as := func(key string) (context.Context, error) {
		c, err := svc.Authenticate(ctx, res.Tokens[key])
		return pipeline.NewContext(ctx, c.WithIP("127.0.0.1")), err
	}
	agent, err := as("agent")
	if err != nil {
		return err
	}
	reviewer, err := as("reviewer")
	if err != nil {
		return err
	}
	job, ada := res.Jobs["backend"], res.Candidates["ada"]

	// The agent's move and note: proposals, nothing changed.
	_, err = svc.MoveCandidate(agent, job, ada, pipeline.CandidateMove{StageID: res.Stages["backend"]["Screening"],
		Reasoned: pipeline.Because("Her CV matches the role's Go and SQL.")})
	move, err := heldAs(err)
	if err != nil {
		return err
	}
	_, err = svc.AddNote(agent, job, ada, pipeline.NewNote{Content: "Strong candidate."})
	note, err := heldAs(err)
	if err != nil {
		return err
	}
	for _, p := range []pipeline.Proposal{move, note} {
		in, err := p.Decoded()
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "proposal %d %s %s: %+v\n", p.ID, p.Operation, p.Status, in)
	}
	if err := printCandidate(out, svc, reviewer, job, ada); err != nil {
		return err
	}

	// The reviewer decides.
	approved, err := svc.ApproveProposal(reviewer, move.ID, pipeline.ProposalDecision{Note: ptr("Agreed.")})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "approved %d: %s, answered %d %s\n", move.ID, approved.Value.Status, approved.Value.Result.Status, approved.Value.Result.Body)
	rejected, err := svc.RejectProposal(reviewer, note.ID, pipeline.ProposalDecision{})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "rejected %d: %s\n", note.ID, rejected.Value.Status)
	return printCandidate(out, svc, reviewer, job, ada)
}

// heldAs is the proposal a held write returned instead of acting.
func heldAs(err error) (pipeline.Proposal, error) {
	var p *pipeline.Proposed
	if !errors.As(err, &p) {
		return pipeline.Proposal{}, fmt.Errorf("want a proposal, got %v", err)
	}
	return p.Proposal, nil
}

func printCandidate(out io.Writer, svc *pipeline.Service, ctx context.Context, job, id int64) error {
	c, err := svc.GetCandidate(ctx, job, id)
	if err != nil {
		return err
	}
	notes, err := svc.ListNotes(ctx, job, id, pipeline.NoteFilter{})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s is in %s with %d notes\n", c.Name, c.Stage, notes.Total)
	return nil
}

func ptr[T any](v T) *T { return &v }

// world is an owner who reviews, and a member whose agent proposes.
func world() *pipeline.SeedWorld {
	member := func(key, name string, role pipeline.Role) pipeline.SeedUser {
		return pipeline.SeedUser{Key: key, Name: name, Email: key + "@acme.test", CurrentTeam: "acme",
			Memberships: []pipeline.SeedMembership{{Team: "acme", Role: role}}}
	}
	return &pipeline.SeedWorld{
		Teams: []pipeline.SeedTeam{{Key: "acme", Name: "Acme"}},
		Users: []pipeline.SeedUser{member("olivia", "Olivia Owner", pipeline.RoleOwner), member("mia", "Mia Member", pipeline.RoleMember)},
		Jobs: []pipeline.SeedJob{{
			Key: "backend", Team: "acme", Owner: "olivia", Assignees: []string{"mia"}, Title: "Backend Engineer", Status: pipeline.JobOpen,
			Candidates: []pipeline.SeedCandidate{{Key: "ada", Name: "Ada Lovelace", Email: "ada@example.test", Applied: "2026-01-05"}},
		}},
		Tokens: []pipeline.SeedToken{
			{Key: "agent", User: "mia", Name: "screening agent",
				Scopes:   []pipeline.Scope{pipeline.ScopeCandidatesRead, pipeline.ScopeCandidatesWrite},
				Approval: []pipeline.Op{pipeline.OpMoveCandidate, pipeline.OpAddNote}},
			{Key: "reviewer", User: "olivia", Name: "reviewer",
				Scopes: []pipeline.Scope{pipeline.ScopeCandidatesRead, pipeline.ScopeCandidatesWrite, pipeline.ScopeProposalsReview}},
		},
	}
}
