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

// InsertProposal stores a proposal and returns it with its id.
func (t *tx) InsertProposal(ctx context.Context, p pipeline.Proposal) (pipeline.Proposal, error) {
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

// ProposalByID returns a proposal, read in the transaction.
func (t *tx) ProposalByID(ctx context.Context, id int64) (pipeline.Proposal, error) {
	var r proposalRow
	if err := t.run.get(ctx, t.q.Proposal, args(id), &r); err != nil {
		return pipeline.Proposal{}, formatError(err, "Proposal")
	}
	return r.toProposal(), nil
}

// PendingProposal returns a token's pending proposal of a request, or nil.
func (t *tx) PendingProposal(ctx context.Context, tokenID int64, digest string, now time.Time) (*pipeline.Proposal, error) {
	var r proposalRow
	err := t.run.get(ctx, t.q.PendingProposal, args(tokenID, digest, ts(now)), &r)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, formatError(err, "Proposal")
	}
	p := r.toProposal()
	return &p, nil
}

// CountPendingProposals counts a token's pending proposals.
func (t *tx) CountPendingProposals(ctx context.Context, tokenID int64, now time.Time) (int, error) {
	var n int
	err := t.run.get(ctx, t.q.CountPendingProposals, args(tokenID, ts(now)), &n)
	return n, formatError(err, "Proposal")
}

// DecideProposal decides a pending proposal, and reports whether it was.
func (t *tx) DecideProposal(ctx context.Context, d pipeline.ProposalDecisionRecord) (bool, error) {
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

// SetProposalResult stores what an applied proposal's run answered.
func (t *tx) SetProposalResult(ctx context.Context, id int64, r pipeline.ProposalResult) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = t.run.exec(ctx, t.q.SetProposalResult, id, string(b))
	return formatError(err, "Proposal")
}

// Proposal returns a proposal. It is read on the readers: the Service
// reads it inside write transactions, and SQLite has one writer.
func (db *DB) Proposal(ctx context.Context, id int64) (pipeline.Proposal, error) {
	var r proposalRow
	if err := db.read().get(ctx, db.q.Proposal, args(id), &r); err != nil {
		return pipeline.Proposal{}, formatError(err, "Proposal")
	}
	return r.toProposal(), nil
}

// TeamProposals returns every proposal of a team, newest first; status,
// unless "", keeps those that read so at now.
func (db *DB) TeamProposals(ctx context.Context, teamID int64, status string, now time.Time) ([]pipeline.Proposal, error) {
	var rows []proposalRow
	if err := db.read().all(ctx, db.q.TeamProposals, args(teamID, status, ts(now)), &rows); err != nil {
		return nil, formatError(err, "Proposal")
	}
	return toProposals(rows), nil
}

// ListProposals returns a page of the proposals q selects, newest first.
func (db *DB) ListProposals(ctx context.Context, q pipeline.ProposalQuery) (pipeline.List[pipeline.Proposal], error) {
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

// ProposalsToClose returns pending proposals past their expiry at now, or
// whose requesting token was revoked or expired, oldest first, at most 500.
func (t *tx) ProposalsToClose(ctx context.Context, now time.Time) ([]pipeline.Proposal, error) {
	return t.proposals(ctx, t.q.ProposalsToClose, ts(now))
}

// CloseProposal ends a pending proposal in status at, and reports whether
// it was still pending.
func (t *tx) CloseProposal(ctx context.Context, id int64, status string, at time.Time) (bool, error) {
	res, err := t.run.exec(ctx, t.q.CloseProposal, id, status, ts(at))
	if err != nil {
		return false, formatError(err, "Proposal")
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// ProposalsAbout returns a team's proposals on the candidates given, and
// those on no candidate.
func (t *tx) ProposalsAbout(ctx context.Context, teamID int64, candidateIDs []int64) ([]pipeline.Proposal, error) {
	return t.proposals(ctx, t.q.ProposalsAbout, teamID, jsonIDs(candidateIDs))
}

// EraseProposal drops a proposal's input, reason and note, keeps of its
// result only result (nil: none), and erases the reasons of its entries.
func (t *tx) EraseProposal(ctx context.Context, id int64, result *pipeline.ProposalResult) error {
	var r any
	if result != nil {
		b, err := json.Marshal(result)
		if err != nil {
			return err
		}
		r = string(b)
	}
	if _, err := t.run.exec(ctx, t.q.EraseProposal, id, r); err != nil {
		return formatError(err, "Proposal")
	}
	_, err := t.run.exec(ctx, t.q.EraseProposalReasons, id)
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

// CandidateProposals returns the proposals about a candidate, oldest
// first.
func (db *DB) CandidateProposals(ctx context.Context, candidateID int64) ([]pipeline.Proposal, error) {
	var rows []proposalRow
	if err := db.read().all(ctx, db.q.CandidateProposals, args(candidateID), &rows); err != nil {
		return nil, formatError(err, "Proposal")
	}
	return toProposals(rows), nil
}
