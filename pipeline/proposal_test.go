package pipeline_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// heldMove is mia's agent, whose move_candidate waits for approval, moving
// ada to the stage named, as the REST face would send it.
type heldMove struct {
	ctx   context.Context
	token int64
	job   int64
	ada   int64
	stage int64
}

func newHeldMove(t *testing.T, w world, stage string) heldMove {
	c := heldCaller(t, w, []pipeline.Scope{pipeline.ScopeCandidatesRead, pipeline.ScopeCandidatesWrite}, pipeline.OpMoveCandidate)
	h := heldMove{token: c.TokenID(), job: w.Job("backend"), ada: w.Res.Candidates["ada"], stage: w.Res.Stages["backend"][stage]}
	if stage == "" {
		h.stage = 999999
	}
	h.ctx = pipeline.NewContext(context.Background(), c.WithIP(storetest.IP))
	return h
}

// move proposes the move.
func (h heldMove) move(w world, key string) (pipeline.Result[pipeline.Candidate], error) {
	ctx := h.ctx
	in := pipeline.CandidateMove{StageID: h.stage, Reasoned: pipeline.Because("Strong screen.")}
	if key != "" {
		in.Idempotency = &pipeline.Idempotency{Key: key}
	}
	return w.Svc.MoveCandidate(ctx, h.job, h.ada, in)
}

func proposed(t *testing.T, err error) pipeline.Proposal {
	t.Helper()
	var p *pipeline.Proposed
	require.True(t, errors.As(err, &p), "want a proposal, got %v", err)
	return p.Proposal
}

func stageOf(t *testing.T, w world, job, id int64) string {
	t.Helper()
	c, err := w.Svc.GetCandidate(w.As(t, "olivia"), job, id)
	require.NoError(t, err)
	return c.Stage
}

func TestService_HeldWriteProposes(t *testing.T) {
	eachWorld(t, "a held move is proposed and nothing changes", func(t *testing.T, w world) {
		h := newHeldMove(t, w, "Screening")
		_, err := h.move(w, "")
		p := proposed(t, err)
		assert.Equal(t, pipeline.ProposalPending, p.Status)
		assert.Equal(t, pipeline.OpMoveCandidate, p.Operation)
		assert.Equal(t, "POST", p.Method)
		assert.Equal(t, "/jobs/"+strconv.FormatInt(h.job, 10)+"/candidates/"+strconv.FormatInt(h.ada, 10)+"/stage", p.Path)
		assert.JSONEq(t, `{"stage":`+strconv.FormatInt(h.stage, 10)+`,"reason":"Strong screen."}`, string(p.Input))
		assert.Equal(t, h.job, p.JobID)
		assert.Equal(t, "agent", p.RequestedBy.Token.Name)
		assert.Equal(t, w.User("mia"), p.RequestedBy.User.ID)
		assert.Equal(t, p.CreatedAt.Add(pipeline.ProposalLifetime), p.ExpiresAt)
		assert.Equal(t, "Applied", stageOf(t, w, h.job, h.ada))
		log := withoutTokens(w.Activity(t))
		require.Equal(t, []string{pipeline.ActionProposalCreated}, actionsOf(log))
		assert.Equal(t, "proposal", log[0].SubjectType)
		assert.Equal(t, p.ID, log[0].SubjectID)
		assert.JSONEq(t, `{"operation":"move_candidate","candidate_id":`+strconv.FormatInt(h.ada, 10)+`,"status":{"before":null,"after":"pending"}}`, string(log[0].Changes))
	})
	eachWorld(t, "the check order comes first: a bad stage is refused, not proposed", func(t *testing.T, w world) {
		h := newHeldMove(t, w, "")
		_, err := h.move(w, "")
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Empty(t, withoutTokens(w.Activity(t)))
	})
	eachWorld(t, "the same request again is the same proposal; a key replays it", func(t *testing.T, w world) {
		h := newHeldMove(t, w, "Screening")
		_, err := h.move(w, "k1")
		first := proposed(t, err)
		_, err = h.move(w, "")
		assert.Equal(t, first.ID, proposed(t, err).ID)
		_, err = h.move(w, "k1")
		var p *pipeline.Proposed
		require.True(t, errors.As(err, &p))
		assert.True(t, p.Replayed)
		assert.Equal(t, first.ID, p.Proposal.ID)
		assert.Len(t, withoutTokens(w.Activity(t)), 1)
	})
}

func TestService_DecideProposal(t *testing.T) {
	eachWorld(t, "approve runs the write as the requester", func(t *testing.T, w world) {
		h := newHeldMove(t, w, "Screening")
		_, err := h.move(w, "")
		p := proposed(t, err)
		note := "Agreed."
		res, err := w.Svc.ApproveProposal(w.As(t, "olivia"), p.ID, pipeline.ProposalDecision{Note: &note})
		require.NoError(t, err)
		assert.Equal(t, pipeline.ProposalApplied, res.Value.Status)
		require.NotNil(t, res.Value.Result)
		assert.Equal(t, 200, res.Value.Result.Status)
		assert.Equal(t, w.User("olivia"), res.Value.DecidedBy.User.ID)
		assert.Equal(t, &note, res.Value.Note)
		assert.Equal(t, "Screening", stageOf(t, w, h.job, h.ada))
		log := withoutTokens(w.Activity(t))
		require.Equal(t, []string{pipeline.ActionProposalCreated, pipeline.ActionCandidateStageChanged, pipeline.ActionProposalApproved}, actionsOf(log))
		moved := log[1]
		assert.Equal(t, w.User("mia"), moved.UserID)
		assert.Equal(t, h.token, moved.TokenID)
		require.NotNil(t, moved.Reason)
		assert.Equal(t, "Strong screen.", *moved.Reason)
		require.NotNil(t, moved.ApprovedBy)
		assert.Equal(t, w.User("olivia"), moved.ApprovedBy.User.ID)
		assert.NotNil(t, moved.ApprovedBy.TokenID)
		assert.Nil(t, log[0].ApprovedBy)
		assert.JSONEq(t, `{"operation":"move_candidate","candidate_id":`+strconv.FormatInt(h.ada, 10)+`,"status":{"before":"pending","after":"applied"}}`, string(log[2].Changes))
		// A second decision is a conflict.
		_, err = w.Svc.RejectProposal(w.As(t, "olivia"), p.ID, pipeline.ProposalDecision{})
		assert.Equal(t, pipeline.EConflict, pipeline.ErrorCode(err))
	})
	eachWorld(t, "reject leaves everything as it was", func(t *testing.T, w world) {
		h := newHeldMove(t, w, "Screening")
		_, err := h.move(w, "")
		p := proposed(t, err)
		res, err := w.Svc.RejectProposal(w.As(t, "olivia"), p.ID, pipeline.ProposalDecision{})
		require.NoError(t, err)
		assert.Equal(t, pipeline.ProposalRejected, res.Value.Status)
		assert.Equal(t, "Applied", stageOf(t, w, h.job, h.ada))
		assert.Equal(t, []string{pipeline.ActionProposalCreated, pipeline.ActionProposalRejected}, actionsOf(withoutTokens(w.Activity(t))))
		_, err = w.Svc.ApproveProposal(w.As(t, "olivia"), p.ID, pipeline.ProposalDecision{})
		assert.Equal(t, pipeline.EConflict, pipeline.ErrorCode(err))
	})
	eachWorld(t, "the requester's user cannot decide", func(t *testing.T, w world) {
		h := newHeldMove(t, w, "Screening")
		_, err := h.move(w, "")
		p := proposed(t, err)
		_, err = w.Svc.ApproveProposal(w.As(t, "mia"), p.ID, pipeline.ProposalDecision{})
		assert.Equal(t, pipeline.EForbidden, pipeline.ErrorCode(err))
		assert.Equal(t, "Applied", stageOf(t, w, h.job, h.ada))
	})
	eachWorld(t, "the requester's user decides without a token, as on the approvals page", func(t *testing.T, w world) {
		h := newHeldMove(t, w, "Screening")
		_, err := h.move(w, "")
		p := proposed(t, err)
		mia, err := w.Op.ActAs(context.Background(), w.User("mia"), pipeline.AllScopes)
		require.NoError(t, err)
		res, err := w.Svc.ApproveProposal(pipeline.NewContext(context.Background(), mia), p.ID, pipeline.ProposalDecision{})
		require.NoError(t, err)
		assert.Equal(t, pipeline.ProposalApplied, res.Value.Status)
		require.NotNil(t, res.Value.DecidedBy)
		assert.Nil(t, res.Value.DecidedBy.Token)
		assert.Equal(t, "Screening", stageOf(t, w, h.job, h.ada))
		log := w.Activity(t)
		moved := log[len(log)-2]
		assert.Equal(t, pipeline.ActionCandidateStageChanged, moved.Action)
		require.NotNil(t, moved.ApprovedBy)
		assert.Nil(t, moved.ApprovedBy.TokenID, "approved without a token")
		assert.Equal(t, h.token, moved.TokenID, "made with the requesting token")
	})
	eachWorld(t, "approval after the requester's token was revoked fails with its 401", func(t *testing.T, w world) {
		h := newHeldMove(t, w, "Screening")
		_, err := h.move(w, "")
		p := proposed(t, err)
		require.NoError(t, w.Op.RevokeToken(context.Background(), h.token))
		res, err := w.Svc.ApproveProposal(w.As(t, "olivia"), p.ID, pipeline.ProposalDecision{})
		require.NoError(t, err)
		assert.Equal(t, pipeline.ProposalFailed, res.Value.Status)
		require.NotNil(t, res.Value.Result)
		assert.Equal(t, 401, res.Value.Result.Status)
		assert.Contains(t, string(res.Value.Result.Body), `"unauthenticated"`)
		assert.Equal(t, "Applied", stageOf(t, w, h.job, h.ada))
		assert.Equal(t, []string{pipeline.ActionProposalCreated, pipeline.ActionProposalApproved}, actionsOf(withoutTokens(w.Activity(t))))
	})
	eachWorld(t, "approval of a write the world now refuses fails with the write's answer", func(t *testing.T, w world) {
		c := heldCaller(t, w, []pipeline.Scope{pipeline.ScopeCandidatesWrite}, pipeline.OpUpdateCandidate)
		job, ada := w.Job("backend"), w.Res.Candidates["ada"]
		email := "new@example.test"
		ctx := pipeline.NewContext(context.Background(), c)
		_, err := w.Svc.UpdateCandidate(ctx, job, ada, pipeline.CandidatePatch{Email: &email})
		p := proposed(t, err)
		// Meanwhile another candidate of the job takes the address.
		_, err = w.Svc.UpdateCandidate(w.As(t, "olivia"), job, w.Res.Candidates["linus"], pipeline.CandidatePatch{Email: &email})
		require.NoError(t, err)
		res, err := w.Svc.ApproveProposal(w.As(t, "olivia"), p.ID, pipeline.ProposalDecision{})
		require.NoError(t, err)
		assert.Equal(t, pipeline.ProposalFailed, res.Value.Status)
		assert.Equal(t, 422, res.Value.Result.Status)
		got, err := w.Svc.GetCandidate(w.As(t, "olivia"), job, ada)
		require.NoError(t, err)
		assert.NotEqual(t, email, got.Email)
	})
}

func TestService_ApproveProposal_Once(t *testing.T) {
	eachReplicated(t, "ten approvals on two replicas: one applies", func(t *testing.T, w world, other *pipeline.Service) {
		h := newHeldMove(t, w, "Screening")
		_, err := h.move(w, "")
		p := proposed(t, err)
		svcs := []*pipeline.Service{w.Svc, other}
		var wg sync.WaitGroup
		outcomes := make([]error, 10)
		for i := range outcomes {
			wg.Go(func() {
				_, outcomes[i] = svcs[i%2].ApproveProposal(w.As(t, "olivia"), p.ID, pipeline.ProposalDecision{})
			})
		}
		wg.Wait()
		applied := 0
		for _, err := range outcomes {
			if err == nil {
				applied++
			} else {
				assert.Equal(t, pipeline.EConflict, pipeline.ErrorCode(err), err)
			}
		}
		assert.Equal(t, 1, applied)
		moves := 0
		for _, a := range w.Activity(t) {
			if a.Action == pipeline.ActionCandidateStageChanged {
				moves++
			}
		}
		assert.Equal(t, 1, moves)
	}, hookOptions()...)
}

func TestService_ReadProposals(t *testing.T) {
	eachWorld(t, "the requester and reviewers of the team see it; others do not", func(t *testing.T, w world) {
		h := newHeldMove(t, w, "Screening")
		_, err := h.move(w, "")
		p := proposed(t, err)
		got, err := w.Svc.GetProposal(h.ctx, p.ID)
		require.NoError(t, err)
		assert.Equal(t, p.ID, got.ID)
		l, err := w.Svc.ListProposals(w.As(t, "olivia"), pipeline.ProposalFilter{Status: pipeline.ProposalPending})
		require.NoError(t, err)
		require.Len(t, l.Items, 1)
		assert.Equal(t, p.ID, l.Items[0].ID)
		_, err = w.Svc.GetProposal(w.As(t, "gary"), p.ID)
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
		l, err = w.Svc.ListProposals(w.As(t, "gary"), pipeline.ProposalFilter{})
		require.NoError(t, err)
		assert.Empty(t, l.Items)
	})
}

func TestService_CloseProposals(t *testing.T) {
	eachClockedWorld(t, "past seven days a pending proposal reads expired, cannot be decided, and the pass logs it once", func(t *testing.T, w world, clock *time.Time) {
		h := newHeldMove(t, w, "Screening")
		_, err := h.move(w, "")
		p := proposed(t, err)
		*clock = clock.Add(pipeline.ProposalLifetime)
		got, err := w.Svc.GetProposal(h.ctx, p.ID)
		require.NoError(t, err)
		assert.Equal(t, pipeline.ProposalExpired, got.Status, "it reads expired before the pass")
		_, err = w.Svc.ApproveProposal(w.As(t, "olivia"), p.ID, pipeline.ProposalDecision{})
		assert.ErrorIs(t, err, pipeline.ErrConflict)
		_, err = w.Svc.RejectProposal(w.As(t, "olivia"), p.ID, pipeline.ProposalDecision{})
		assert.ErrorIs(t, err, pipeline.ErrConflict)

		n, err := w.Svc.CloseProposals(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		n, err = w.Svc.CloseProposals(context.Background())
		require.NoError(t, err)
		assert.Zero(t, n, "a second pass finds nothing")
		log := withoutTokens(w.Activity(t))
		require.Equal(t, []string{pipeline.ActionProposalCreated, pipeline.ActionProposalExpired}, actionsOf(log))
		e := log[1]
		assert.Zero(t, e.UserID, "the server's own entry")
		assert.Zero(t, e.TokenID)
		assert.Empty(t, e.IP)
		assert.JSONEq(t, `{"operation":"move_candidate","candidate_id":`+strconv.FormatInt(h.ada, 10)+`,"status":{"before":"pending","after":"expired"}}`, string(e.Changes))
		got, err = w.Svc.GetProposal(h.ctx, p.ID)
		require.NoError(t, err)
		assert.Equal(t, pipeline.ProposalExpired, got.Status)
		require.NotNil(t, got.DecidedAt)
		assert.Nil(t, got.DecidedBy)
		assert.Equal(t, "Applied", stageOf(t, w, h.job, h.ada))
	})
	eachClockedWorld(t, "a revoked token's pending proposals are withdrawn; decided ones stay", func(t *testing.T, w world, clock *time.Time) {
		h := newHeldMove(t, w, "Screening")
		_, err := h.move(w, "")
		open := proposed(t, err)
		h2 := h
		h2.stage = w.Res.Stages["backend"]["Interview"]
		_, err = h2.move(w, "")
		rejected := proposed(t, err)
		_, err = w.Svc.RejectProposal(w.As(t, "olivia"), rejected.ID, pipeline.ProposalDecision{})
		require.NoError(t, err)
		n, err := w.Svc.CloseProposals(context.Background())
		require.NoError(t, err)
		require.Zero(t, n, "nothing to close while the token works")

		require.NoError(t, w.Op.RevokeToken(context.Background(), h.token))
		n, err = w.Svc.CloseProposals(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		got, err := w.Svc.GetProposal(w.As(t, "olivia"), open.ID)
		require.NoError(t, err)
		assert.Equal(t, pipeline.ProposalWithdrawn, got.Status)
		assert.Nil(t, got.DecidedBy)
		got, err = w.Svc.GetProposal(w.As(t, "olivia"), rejected.ID)
		require.NoError(t, err)
		assert.Equal(t, pipeline.ProposalRejected, got.Status)
		_, err = w.Svc.ApproveProposal(w.As(t, "olivia"), open.ID, pipeline.ProposalDecision{})
		assert.ErrorIs(t, err, pipeline.ErrConflict, "a withdrawn proposal is decided no more")
		log := w.Activity(t)
		assert.Equal(t, pipeline.ActionProposalWithdrawn, log[len(log)-1].Action)
	})
}

func TestService_ProposalLimits(t *testing.T) {
	eachWorld(t, "a token holds at most 100 pending proposals", func(t *testing.T, w world) {
		c := heldCaller(t, w, []pipeline.Scope{pipeline.ScopeCandidatesWrite}, pipeline.OpAddNote)
		note := func(i int) error {
			text := "Note " + strconv.Itoa(i)
			ctx := pipeline.NewContext(context.Background(), c)
			_, err := w.Svc.AddNote(ctx, w.Job("backend"), w.Res.Candidates["ada"], pipeline.NewNote{Content: text})
			return err
		}
		for i := range pipeline.MaxPendingProposals {
			proposed(t, note(i))
		}
		err := note(pipeline.MaxPendingProposals)
		require.Equal(t, pipeline.EForbidden, pipeline.ErrorCode(err), "%v", err)
		assert.Equal(t, "Too many proposals are waiting for a decision.", err.Error()[strings.LastIndex(err.Error(), ": ")+2:])
		proposed(t, note(0)) // the same request again is still its proposal
	})
	eachWorld(t, "entries the approved run causes name the approver too", func(t *testing.T, w world) {
		job, ada := w.Job("backend"), w.Res.Candidates["ada"]
		_, err := w.Svc.ScheduleInterview(w.As(t, "olivia"), job, ada, probeInterview(w.User("olivia")))
		require.NoError(t, err)
		c := heldCaller(t, w, []pipeline.Scope{pipeline.ScopeCandidatesWrite}, pipeline.OpUpdateCandidate)
		rejected := pipeline.CandidateRejected
		ctx := pipeline.NewContext(context.Background(), c)
		_, err = w.Svc.UpdateCandidate(ctx, job, ada, pipeline.CandidatePatch{Status: &rejected})
		p := proposed(t, err)
		res, err := w.Svc.ApproveProposal(w.As(t, "olivia"), p.ID, pipeline.ProposalDecision{})
		require.NoError(t, err)
		require.Equal(t, pipeline.ProposalApplied, res.Value.Status, "%s", res.Value.Result.Body)
		var cancelled, updated *pipeline.Activity
		for _, a := range w.Activity(t) {
			switch a.Action {
			case pipeline.ActionInterviewCancelled:
				cancelled = &a
			case pipeline.ActionCandidateUpdated:
				updated = &a
			}
		}
		require.NotNil(t, updated)
		require.NotNil(t, cancelled, "leaving active cancels the interview")
		for _, a := range []*pipeline.Activity{updated, cancelled} {
			require.NotNil(t, a.ApprovedBy, a.Action)
			assert.Equal(t, w.User("olivia"), a.ApprovedBy.User.ID, a.Action)
			assert.Equal(t, c.TokenID(), a.TokenID, "%s: made with the requesting token", a.Action)
		}
	})
}

// proposalProbes call the operations of this file's resource for the tables of
// operations (see probe).
var proposalProbes = []operation{
	{pipeline.OpListProposals, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.ListProposals(ctx, pipeline.ProposalFilter{Page: pick(p, 1, -1)})
		return err
	}},
	{pipeline.OpGetProposal, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.GetProposal(ctx, p.ref.Proposal)
		return err
	}},
	{pipeline.OpApproveProposal, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.ApproveProposal(ctx, p.ref.Proposal, probeDecision(p))
		return err
	}},
	{pipeline.OpRejectProposal, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.RejectProposal(ctx, p.ref.Proposal, probeDecision(p))
		return err
	}},
	{pipeline.OpWithdrawProposal, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.WithdrawProposal(ctx, p.ref.Proposal, pipeline.ProposalWithdrawal{Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
}

// probeDecision is a decision with the probe's key, reason and a note
// valid when the probe's input is.
func probeDecision(p probe) pipeline.ProposalDecision {
	return pipeline.ProposalDecision{Note: new(pick(p, "Fine.", strings.Repeat("n", pipeline.MaxDecisionNoteLength+1))),
		Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}}
}

// TestService_ProposalVisibility: a proposal on a job is read and decided
// by those who reach the job now, as the job's own records are.
func TestService_ProposalVisibility(t *testing.T) {
	for _, tc := range visibilityCases {
		eachWorld(t, tc.name, func(t *testing.T, w world) {
			// An agent of the job's owner proposes a note on the candidate.
			owner := map[string]string{"ops": "gary@globex.test"}[tc.job]
			if owner == "" {
				owner = "olivia@acme.test"
			}
			_, value, err := w.Op.IssueToken(context.Background(), pipeline.TokenRequest{UserEmail: owner, Name: "agent",
				Scopes: []pipeline.Scope{pipeline.ScopeCandidatesWrite}, Approval: []pipeline.Op{pipeline.OpAddNote}})
			require.NoError(t, err)
			agent, err := w.Svc.Authenticate(context.Background(), value)
			require.NoError(t, err)
			ctx := pipeline.NewContext(context.Background(), agent)
			_, err = w.Svc.AddNote(ctx, w.Job(tc.job), w.Res.Candidates[tc.candidate], pipeline.NewNote{Content: "Seen?"})
			p := proposed(t, err)

			reader := w.As(t, tc.token)
			_, getErr := w.Svc.GetProposal(reader, p.ID)
			_, rejectErr := w.Svc.RejectProposal(reader, p.ID, pipeline.ProposalDecision{})
			list, err := w.Svc.ListProposals(reader, pipeline.ProposalFilter{})
			require.NoError(t, err)
			if tc.visible {
				assert.NotErrorIs(t, getErr, pipeline.ErrNotFound)
				assert.NotErrorIs(t, rejectErr, pipeline.ErrNotFound)
				assert.Equal(t, 1, list.Total)
			} else {
				assert.ErrorIs(t, getErr, pipeline.ErrNotFound)
				assert.ErrorIs(t, rejectErr, pipeline.ErrNotFound)
				assert.Zero(t, list.Total)
			}
		})
	}
}

// TestService_ProposedScheduleClash: a schedule that must be approved runs
// the checks of a schedule before it is proposed, the interviewers' and
// the candidate's times included: a clash is the conflict, and nothing is
// proposed, whether or not the Service sends invitations.
func TestService_ProposedScheduleClash(t *testing.T) {
	check := func(t *testing.T, w world) {
		first := schedule(t, w, 1, "olivia")
		c := heldCaller(t, w, []pipeline.Scope{pipeline.ScopeSchedulingWrite}, pipeline.OpScheduleInterview)
		in := interviewAt(w, 1, "olivia")
		ctx := pipeline.NewContext(context.Background(), c)
		_, err := w.Svc.ScheduleInterview(ctx, w.Job("backend"), w.Res.Candidates["grace"], in)
		assert.Equal(t, []pipeline.Busy{{UserID: w.User("olivia"), Start: first.Start, End: first.End}}, busyOf(t, err))
		list, err := w.Svc.ListProposals(w.As(t, "olivia"), pipeline.ProposalFilter{})
		require.NoError(t, err)
		assert.Empty(t, list.Items, "nothing is proposed")
	}
	eachWorld(t, "with invitations", check)
	t.Run("without mail", func(t *testing.T) {
		t.Parallel()
		storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
			check(t, storetest.Seeded(t, db))
		})
	})
}
