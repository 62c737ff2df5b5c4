package pipelinestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// proposalRow is a proposal with the names of its requester and decider
// and of their tokens, as the queries read it.
type proposalRow struct {
	ID          int64      `bun:"id"`
	TeamID      int64      `bun:"team_id"`
	JobID       *int64     `bun:"job_id"`
	CandidateID *int64     `bun:"candidate_id"`
	UserID      int64      `bun:"user_id"`
	UserName    string     `bun:"user_name"`
	TokenID     int64      `bun:"token_id"`
	TokenName   string     `bun:"token_name"`
	Operation   string     `bun:"operation"`
	Method      string     `bun:"method"`
	Path        string     `bun:"path"`
	Input       string     `bun:"input"`
	Reason      *string    `bun:"reason"`
	Digest      string     `bun:"digest"`
	Status      string     `bun:"status"`
	CreatedAt   time.Time  `bun:"created_at"`
	ExpiresAt   time.Time  `bun:"expires_at"`
	DeciderID   *int64     `bun:"decider_id"`
	DeciderName *string    `bun:"decider_name"`
	DTokenID    *int64     `bun:"decider_token_id"`
	DTokenName  *string    `bun:"decider_token_name"`
	DecidedAt   *time.Time `bun:"decided_at"`
	Note        *string    `bun:"note"`
	Result      *string    `bun:"result"`

	Total int `bun:"total,scanonly"`
}

func (r proposalRow) windowTotal() int { return r.Total }

func (r proposalRow) toProposal() pipeline.Proposal {
	p := pipeline.Proposal{
		ID: r.ID, TeamID: r.TeamID, Operation: pipeline.Op(r.Operation), Method: r.Method, Path: r.Path,
		Input: json.RawMessage(r.Input), Reason: r.Reason, Status: r.Status, Digest: r.Digest,
		RequestedBy: pipeline.ProposalActor{User: pipeline.User{ID: r.UserID, Name: r.UserName},
			Token: &pipeline.TokenRef{ID: r.TokenID, Name: r.TokenName}},
		CreatedAt: r.CreatedAt.UTC(), ExpiresAt: r.ExpiresAt.UTC(), DecidedAt: utcPtr(r.DecidedAt), Note: r.Note,
	}
	if r.JobID != nil {
		p.JobID = *r.JobID
	}
	if r.CandidateID != nil {
		p.CandidateID = *r.CandidateID
	}
	if r.DeciderID != nil {
		d := &pipeline.ProposalActor{User: pipeline.User{ID: *r.DeciderID}}
		if r.DeciderName != nil {
			d.User.Name = *r.DeciderName
		}
		if r.DTokenID != nil {
			d.Token = &pipeline.TokenRef{ID: *r.DTokenID}
			if r.DTokenName != nil {
				d.Token.Name = *r.DTokenName
			}
		}
		p.DecidedBy = d
	}
	if r.Result != nil {
		var res pipeline.ProposalResult
		if json.Unmarshal([]byte(*r.Result), &res) == nil {
			p.Result = &res
		}
	}
	return p
}

// proposalStore is the DB's ProposalStore.
type proposalStore struct{ *DB }

// Proposals reads proposals.
func (db *DB) Proposals() pipeline.ProposalStore { return proposalStore{db} }

// proposalTx is a transaction's ProposalTx.
type proposalTx struct{ *tx }

// Proposals writes proposals.
func (t *tx) Proposals() pipeline.ProposalTx { return proposalTx{t} }

// Insert stores a proposal and returns it with its id.
func (t proposalTx) Insert(ctx context.Context, p pipeline.Proposal) (pipeline.Proposal, error) {
	var job, cand any
	if p.JobID != 0 {
		job = p.JobID
	}
	if p.CandidateID != 0 {
		cand = p.CandidateID
	}
	p.CreatedAt, p.ExpiresAt = ts(p.CreatedAt), ts(p.ExpiresAt)
	err := t.run.get(ctx, t.q.InsertProposal, args(p.TeamID, job, cand, p.RequestedBy.User.ID, p.RequestedBy.Token.ID,
		string(p.Operation), p.Method, p.Path, string(p.Input), p.Reason, p.Digest, p.Status, p.CreatedAt, p.ExpiresAt), &p.ID)
	if err != nil {
		return pipeline.Proposal{}, formatError(err, "Proposal")
	}
	return p, nil
}

// Get returns a proposal, read in the transaction.
func (t proposalTx) Get(ctx context.Context, p pipeline.ProposalParams) (pipeline.Proposal, error) {
	var r proposalRow
	if err := t.run.get(ctx, t.q.Proposal, args(p.ID), &r); err != nil {
		return pipeline.Proposal{}, formatError(err, "Proposal")
	}
	return r.toProposal(), nil
}

// Pending returns a token's pending proposal of a request, or nil.
func (t proposalTx) Pending(ctx context.Context, p pipeline.PendingProposalParams) (*pipeline.Proposal, error) {
	var r proposalRow
	err := t.run.get(ctx, t.q.PendingProposal, args(p.TokenID, p.Digest, ts(p.Now)), &r)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, formatError(err, "Proposal")
	}
	prop := r.toProposal()
	return &prop, nil
}

// CountPending counts a token's pending proposals.
func (t proposalTx) CountPending(ctx context.Context, p pipeline.CountPendingParams) (int, error) {
	var n int
	err := t.run.get(ctx, t.q.CountPendingProposals, args(p.TokenID, ts(p.Now)), &n)
	return n, formatError(err, "Proposal")
}

// Decide decides a pending proposal, and reports whether it was.
func (t proposalTx) Decide(ctx context.Context, d pipeline.ProposalDecisionRecord) (bool, error) {
	var token, result any
	if d.TokenID != 0 {
		token = d.TokenID
	}
	if d.Result != nil {
		b, err := json.Marshal(d.Result)
		if err != nil {
			return false, err
		}
		result = string(b)
	}
	res, err := t.run.exec(ctx, t.q.DecideProposal, d.ID, d.Status, d.UserID, token, ts(d.At), d.Note, result, ts(d.Now))
	if err != nil {
		return false, formatError(err, "Proposal")
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// SetResult stores what an applied proposal's run answered.
func (t proposalTx) SetResult(ctx context.Context, p pipeline.ProposalResultParams) error {
	b, err := json.Marshal(p.Result)
	if err != nil {
		return err
	}
	_, err = t.run.exec(ctx, t.q.SetProposalResult, p.ID, string(b))
	return formatError(err, "Proposal")
}

// Get returns a proposal. It is read on the readers: the Service reads it
// inside write transactions, and SQLite has one writer.
func (db proposalStore) Get(ctx context.Context, p pipeline.ProposalParams) (pipeline.Proposal, error) {
	var r proposalRow
	if err := db.read().get(ctx, db.q.Proposal, args(p.ID), &r); err != nil {
		return pipeline.Proposal{}, formatError(err, "Proposal")
	}
	return r.toProposal(), nil
}

// OfTeam returns every proposal of a team, newest first; p.Status,
// unless "", keeps those that read so at p.Now.
func (db proposalStore) OfTeam(ctx context.Context, p pipeline.TeamProposalsParams) ([]pipeline.Proposal, error) {
	var rows []proposalRow
	if err := db.read().all(ctx, db.q.TeamProposals, args(p.TeamID, p.Status, ts(p.Now)), &rows); err != nil {
		return nil, formatError(err, "Proposal")
	}
	return toProposals(rows), nil
}

// List returns a page of the proposals q selects, newest first.
func (db proposalStore) List(ctx context.Context, q pipeline.ProposalQuery) (pipeline.List[pipeline.Proposal], error) {
	var rows []proposalRow
	review, manager := 0, 0
	if q.Review {
		review = 1
	}
	if q.Manager {
		manager = 1
	}
	err := db.read().all(ctx, db.q.ProposalsPage, args(q.Viewer, q.Token, q.Team, review, manager, q.Status, q.JobID,
		ts(q.Now), pipeline.Offset(q.Page)), &rows)
	if err != nil {
		return pipeline.List[pipeline.Proposal]{}, formatError(err, "Proposal")
	}
	return pageOf(q.Page, rows, proposalRow.toProposal), nil
}

// ToClose returns pending proposals past their expiry at now, or whose
// requesting token was revoked or expired, oldest first, at most 500.
func (t proposalTx) ToClose(ctx context.Context, now time.Time) ([]pipeline.Proposal, error) {
	return t.proposals(ctx, t.q.ProposalsToClose, ts(now))
}

// Close ends a pending proposal in p.Status at p.At, and reports whether
// it was still pending.
func (t proposalTx) Close(ctx context.Context, p pipeline.CloseProposalParams) (bool, error) {
	res, err := t.run.exec(ctx, t.q.CloseProposal, p.ID, p.Status, ts(p.At))
	if err != nil {
		return false, formatError(err, "Proposal")
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// About returns a team's proposals on the candidates given, and those on
// no candidate.
func (t proposalTx) About(ctx context.Context, p pipeline.ProposalsAboutParams) ([]pipeline.Proposal, error) {
	return t.proposals(ctx, t.q.ProposalsAbout, p.TeamID, jsonIDs(p.CandidateIDs))
}

// Erase drops a proposal's input, reason and note, keeps of its result
// only p.Result (nil: none), and erases the reasons of its entries.
func (t proposalTx) Erase(ctx context.Context, p pipeline.EraseProposalParams) error {
	var r any
	if p.Result != nil {
		b, err := json.Marshal(p.Result)
		if err != nil {
			return err
		}
		r = string(b)
	}
	if _, err := t.run.exec(ctx, t.q.EraseProposal, p.ID, r); err != nil {
		return formatError(err, "Proposal")
	}
	_, err := t.run.exec(ctx, t.q.EraseProposalReasons, p.ID)
	return formatError(err, "Activity")
}

func (t *tx) proposals(ctx context.Context, query string, a ...any) ([]pipeline.Proposal, error) {
	var rows []proposalRow
	if err := t.run.all(ctx, query, args(a...), &rows); err != nil {
		return nil, formatError(err, "Proposal")
	}
	return toProposals(rows), nil
}

func toProposals(rows []proposalRow) []pipeline.Proposal {
	out := make([]pipeline.Proposal, len(rows))
	for i, r := range rows {
		out[i] = r.toProposal()
	}
	return out
}

// AboutCandidate returns the proposals about a candidate, oldest first.
func (db proposalStore) AboutCandidate(ctx context.Context, p pipeline.CandidateProposalsParams) ([]pipeline.Proposal, error) {
	var rows []proposalRow
	if err := db.read().all(ctx, db.q.CandidateProposals, args(p.CandidateID), &rows); err != nil {
		return nil, formatError(err, "Proposal")
	}
	return toProposals(rows), nil
}
