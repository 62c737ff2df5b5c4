package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Proposal statuses. A pending proposal past its ExpiresAt reads as
// expired.
const (
	ProposalPending   = "pending"
	ProposalApplied   = "applied"
	ProposalFailed    = "failed"
	ProposalRejected  = "rejected"
	ProposalExpired   = "expired"
	ProposalWithdrawn = "withdrawn"
)

// ProposalStatuses are the statuses a proposal may read as.
var ProposalStatuses = []string{ProposalPending, ProposalApplied, ProposalFailed, ProposalRejected, ProposalExpired, ProposalWithdrawn}

// Proposal actions and subject.
const (
	ActionProposalCreated   = "proposal.created"
	ActionProposalApproved  = "proposal.approved"
	ActionProposalRejected  = "proposal.rejected"
	ActionProposalExpired   = "proposal.expired"
	ActionProposalWithdrawn = "proposal.withdrawn"

	SubjectProposal = "proposal"
)

// ProposalLifetime is how long a proposal waits for a decision.
const ProposalLifetime = 7 * 24 * time.Hour

// MaxPendingProposals is the most proposals one token may have waiting.
const MaxPendingProposals = 100

// MaxDecisionNoteLength is the longest note of a decision, in characters.
const MaxDecisionNoteLength = 1000

// ProposalFilter selects proposals: by status ("" any) and job (0 any).
type ProposalFilter struct {
	Status string
	JobID  int64
	Page   int
	// Unread is what a face could not read of the filter (see ResolveUnread).
	Unread error
}

// SetUnread sets what a face could not read of the request.
func (in *ProposalFilter) SetUnread(err error) { in.Unread = err }

// ProposalQuery is a ProposalFilter with who reads it, for the store: the
// proposals of Token on jobs Viewer reaches (or on no job); with Review,
// also those of Team on jobs Viewer reaches, and, with Manager (Viewer is
// an owner or admin of Team), Team's on no job. Now decides which pending
// ones read as expired.
type ProposalQuery struct {
	ProposalFilter
	Viewer, Token, Team int64
	Review, Manager     bool
	Now                 time.Time
}

// TokenRef is a token by id and name.
type TokenRef struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// ProposalActor is who requested or decided a proposal: a user, and the
// token used (nil: decided on a page or by the CLI).
type ProposalActor struct {
	User  User      `json:"user"`
	Token *TokenRef `json:"token"`
}

// ProposalResult is what the approved run answered: the HTTP status and
// the body (the write's, or its error envelope) the REST face would have.
type ProposalResult struct {
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body"`
}

// Proposal is a write held for a person's decision (oversight.md §3): the
// REST request it stands for, whichever face it came from, and what became
// of it.
type Proposal struct {
	ID          int64           `json:"id"`
	TeamID      int64           `json:"team_id"` // its job's team, or the requester's team then
	Operation   Op              `json:"operation"`
	Method      string          `json:"method"`
	Path        string          `json:"path"`  // below /api/v1, ids filled in
	Input       json.RawMessage `json:"input"` // the REST body; {} when none
	Reason      *string         `json:"reason"`
	Status      string          `json:"status"`
	RequestedBy ProposalActor   `json:"requested_by"`
	JobID       int64           `json:"job_id"` // 0: on no job
	CandidateID int64           `json:"-"`      // 0: its path names no candidate
	Digest      string          `json:"-"`      // the request (see RequestDigest), for the same request again
	CreatedAt   time.Time       `json:"created_at"`
	ExpiresAt   time.Time       `json:"expires_at"`
	DecidedBy   *ProposalActor  `json:"decided_by"`
	DecidedAt   *time.Time      `json:"decided_at"`
	Note        *string         `json:"note"`
	Result      *ProposalResult `json:"result"`
}

// readAt is p as it reads at now: pending past its expiry reads expired.
func (p Proposal) readAt(now time.Time) Proposal {
	if p.Status == ProposalPending && !now.Before(p.ExpiresAt) {
		p.Status = ProposalExpired
	}
	return p
}

// Proposed is what a write by a token under an approval policy returns
// (see Caller.Held), as an error value: nothing changed; a person decides.
// Faces answer it as a success (202 and the proposal). Replayed: it is the
// proposal an idempotency key stored, as it reads now.
type Proposed struct {
	Proposal Proposal
	Replayed bool
}

func (p *Proposed) Error() string {
	return "pipeline: proposal " + strconv.FormatInt(p.Proposal.ID, 10) + " waits for a decision"
}

// ProposalDecision is the body of approving or rejecting a proposal.
type ProposalDecision struct {
	Reasoned
	// Note is at most 1,000 characters; nil: none.
	Note        *string
	Idempotency *Idempotency
	Unread      error
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *ProposalDecision) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *ProposalDecision) SetUnread(err error) { in.Unread = err }

func (d ProposalDecision) check() FieldErrors {
	f := FieldErrors{}
	if d.Note != nil && checkText(f, "note", *d.Note) && utf8.RuneCountInString(*d.Note) > MaxDecisionNoteLength {
		f.Add("note", "The note may not be greater than 1000 characters.")
	}
	return f
}

// errPropose rolls back a held write's transaction once its checks passed.
var errPropose = errors.New("pipeline: propose instead")

// errAlreadyDecided answers a decision on a proposal that is no longer
// pending; an approved run that finds it so returns this very value.
var errAlreadyDecided = Errorf(EConflict, "The proposal has already been decided.")

func errDecided() error { return errAlreadyDecided }

// proposalMarker is what a key stores for a write that became a proposal,
// so that its replay reads the proposal as it is now.
type proposalMarker struct {
	Proposal int64 `json:"$proposal"`
}

// storedProposal is the proposal a key's stored result names, if any.
func storedProposal(stored []byte) (int64, bool) {
	if !strings.HasPrefix(string(stored), `{"$proposal":`) {
		return 0, false
	}
	var m proposalMarker
	if json.Unmarshal(stored, &m) != nil || m.Proposal == 0 {
		return 0, false
	}
	return m.Proposal, true
}

// propose stores a held write as a proposal, in a transaction of its own
// once the write's checked and rolled back: the same request of the same
// token still pending is that proposal; a token may have
// MaxPendingProposals waiting.
func (s *Service) propose(ctx context.Context, c Caller, w writeCall, busy bool) (Proposal, bool, error) {
	input, err := storedInput(w.input)
	if err != nil {
		return Proposal{}, false, err
	}
	var out Proposal
	replayed := false
	err = s.store.Write(ctx, func(tx Tx) error {
		k := w.key
		if k != nil {
			cl := s.claim(ctx, tx, c, k.key, busy)
			stored, err := cl.replay(ctx, c, k)
			if err != nil {
				return err
			}
			if stored != nil {
				id, ok := storedProposal(stored)
				if !ok {
					return errDecided() // cannot happen: this request was held
				}
				p, err := tx.Proposals().Get(ctx, ProposalParams{ID: id})
				out, replayed = p, true
				return err
			}
		}
		now := s.now()
		p, err := tx.Proposals().Pending(ctx, PendingProposalParams{TokenID: c.tokenID, Digest: w.digest, Now: now})
		if err != nil {
			return err
		}
		if p == nil {
			n, err := tx.Proposals().CountPending(ctx, CountPendingParams{TokenID: c.tokenID, Now: now})
			if err != nil {
				return err
			}
			if n >= MaxPendingProposals {
				return Errorf(EForbidden, "Too many proposals are waiting for a decision.")
			}
			teamID := c.team.ID
			if w.ref.Job != 0 {
				j, err := s.store.Jobs().Get(ctx, JobParams{Viewer: c.user.ID, ID: w.ref.Job})
				if err != nil {
					return err
				}
				teamID = j.TeamID
			}
			np, err := tx.Proposals().Insert(ctx, Proposal{
				TeamID: teamID, Operation: w.op, Method: w.op.Method(), Path: w.op.FilledPath(w.ref), Input: input,
				Reason: w.reason, Status: ProposalPending, RequestedBy: ProposalActor{User: c.user, Token: &TokenRef{ID: c.tokenID}},
				JobID: w.ref.Job, CandidateID: w.ref.Candidate, Digest: w.digest, CreatedAt: now, ExpiresAt: now.Add(ProposalLifetime),
			})
			if err != nil {
				return err
			}
			if err := s.log(ctx, reasonTx{Tx: tx, reason: w.reason}, c, teamID, w.ref.Job, ActionProposalCreated, SubjectProposal, np.ID, proposalChanges(w.op, w.ref.Candidate, nil, ProposalPending)); err != nil {
				return err
			}
			p = &np
		}
		out = *p
		if k != nil {
			return s.remember(ctx, tx, c, k, proposalMarker{Proposal: p.ID})
		}
		return nil
	})
	if err != nil {
		return Proposal{}, false, err
	}
	if out.ID != 0 && out.CreatedAt.IsZero() {
		out, err = s.store.Proposals().Get(ctx, ProposalParams{ID: out.ID})
	} else if out.RequestedBy.Token != nil && out.RequestedBy.Token.Name == "" {
		out, err = s.store.Proposals().Get(ctx, ProposalParams{ID: out.ID})
	}
	return out.readAt(s.now()), replayed, err
}

// proposedReplay is the Proposed a key's stored marker names, read now.
func (s *Service) proposedReplay(ctx context.Context, id int64) error {
	p, err := s.store.Proposals().Get(ctx, ProposalParams{ID: id})
	if err != nil {
		return err
	}
	return &Proposed{Proposal: p.readAt(s.now()), Replayed: true}
}

// approvalRun is on the context of an approved proposal's run: the write
// path claims the proposal inside the write's transaction, and every entry
// the run logs names the approver.
type approvalRun struct {
	proposal Proposal
	approver Caller
	note     *string
	reason   *string // the decider's reason, on the decision's entry
}

type approvalKey struct{}

func approvalFrom(ctx context.Context) (approvalRun, bool) {
	r, ok := ctx.Value(approvalKey{}).(approvalRun)
	return r, ok
}

// ApprovedBy is who approved the write an activity entry records.
type ApprovedBy struct {
	User    User   `json:"user"`
	TokenID *int64 `json:"token_id"` // nil: decided on a page or by the CLI
}

// approvedBy is the ApprovedBy of r's approver.
func (r approvalRun) approvedBy() *ApprovedBy {
	a := &ApprovedBy{User: User{ID: r.approver.user.ID, Name: r.approver.user.Name}}
	if r.approver.tokenID != 0 {
		id := r.approver.tokenID
		a.TokenID = &id
	}
	return a
}

// approvedTx is an approved run's transaction: every entry it logs names
// the approver.
type approvedTx struct {
	Tx
	by *ApprovedBy
}

func (t approvedTx) Activity() ActivityTx {
	return stampedActivity{ActivityTx: t.Tx.Activity(), stamp: func(a *Activity) { a.ApprovedBy = t.by }}
}

// decide claims r's proposal for outcome (applied or failed) if it is
// still pending, inside tx, and logs proposal.approved; errDecided when
// another decision came first.
func (s *Service) decide(ctx context.Context, tx Tx, r approvalRun, status string, result *ProposalResult) error {
	now := s.now()
	ok, err := tx.Proposals().Decide(ctx, ProposalDecisionRecord{ID: r.proposal.ID, Status: status, UserID: r.approver.user.ID,
		TokenID: r.approver.tokenID, At: now, Note: r.note, Result: result, Now: now})
	if err != nil {
		return err
	}
	if !ok {
		return errDecided()
	}
	action := ActionProposalApproved
	if status == ProposalRejected {
		action = ActionProposalRejected
	}
	return s.log(ctx, reasonTx{Tx: tx, reason: r.reason}, r.approver, r.proposal.TeamID, r.proposal.JobID, action, SubjectProposal, r.proposal.ID,
		proposalChanges(r.proposal.Operation, r.proposal.CandidateID, ProposalPending, status))
}

// proposalChanges are the changes of a proposal's entry: its operation,
// its status, and the candidate it names (none: 0), never its input, so
// that the feed alone tells who proposed what for whom.
func proposalChanges(op Op, candidate int64, before any, after string) map[string]any {
	c := map[string]any{"operation": op, "status": Change{Before: before, After: after}}
	if candidate != 0 {
		c["candidate_id"] = candidate
	}
	return c
}

// decisionReason is the reason a decision's entry carries: the reason its
// body gave, as every write's entry does (oversight.md §1), else the
// decider's note (§3), which is what a person deciding on a page writes.
func decisionReason(note, reason *string) *string {
	if reason != nil {
		return reason
	}
	return note
}

// ProposalDecisionRecord is a decision the store makes of a pending
// proposal, conditionally: only one not yet expired at Now.
type ProposalDecisionRecord struct {
	ID      int64
	Status  string
	UserID  int64
	TokenID int64 // 0: none
	At      time.Time
	Note    *string
	Result  *ProposalResult
	Now     time.Time
}

// sees reports whether c may read p: its own proposals, and with
// proposals:review its team's, on jobs c's user reaches now; on no job,
// its own, and its team's for owners and admins.
func (s *Service) sees(ctx context.Context, c Caller, p Proposal) (bool, error) {
	own := c.tokenID != 0 && p.RequestedBy.Token != nil && p.RequestedBy.Token.ID == c.tokenID
	review := c.Has(ScopeProposalsReview) && p.TeamID == c.team.ID
	if !own && !review {
		return false, nil
	}
	if p.JobID != 0 {
		_, err := s.store.Jobs().Get(ctx, JobParams{Viewer: c.user.ID, ID: p.JobID})
		if ErrorCode(err) == ENotFound {
			return false, nil
		}
		return err == nil, err
	}
	if own {
		return true, nil
	}
	role, err := s.store.Members().Role(ctx, MemberParams{UserID: c.user.ID, TeamID: p.TeamID})
	return role == RoleOwner || role == RoleAdmin, err
}

// visibleProposal is proposal id if c may read it, else not_found.
func (s *Service) visibleProposal(ctx context.Context, c Caller, id int64) (Proposal, error) {
	p, err := s.store.Proposals().Get(ctx, ProposalParams{ID: id})
	if err != nil {
		return Proposal{}, err
	}
	ok, err := s.sees(ctx, c, p)
	if err != nil {
		return Proposal{}, err
	}
	if !ok {
		return Proposal{}, errNotFound("Proposal")
	}
	return p.readAt(s.now()), nil
}

// GetProposal returns a proposal the caller may read (see ListProposals).
// Needs no scope. Errors: unauthenticated, not_found.
func (s *Service) GetProposal(ctx context.Context, id int64) (Proposal, error) {
	c, err := authorize(ctx, OpGetProposal)
	if err != nil {
		return Proposal{}, err
	}
	return s.visibleProposal(ctx, c, id)
}

// ListProposals returns a page of the proposals the caller may read,
// newest first: those its token made on jobs its user reaches now; with
// proposals:review also its team's on jobs its user reaches (and, for
// owners and admins, those on no job). A token's own proposals on no job
// are its to read too. Needs no scope. Errors: unauthenticated,
// validation_failed (status, job_id, page).
func (s *Service) ListProposals(ctx context.Context, f ProposalFilter) (List[Proposal], error) {
	c, err := authorize(ctx, OpListProposals)
	if err != nil {
		return List[Proposal]{}, err
	}
	if err := inputVerdict(f.Unread, checkProposalStatus(f.Status).Err()); err != nil {
		return List[Proposal]{}, err
	}
	f.Page = max(f.Page, 1)
	q := ProposalQuery{ProposalFilter: f, Viewer: c.user.ID, Token: c.tokenID, Team: c.team.ID,
		Review: c.Has(ScopeProposalsReview), Now: s.now()}
	if q.Review {
		role, err := s.store.Members().Role(ctx, MemberParams{UserID: c.user.ID, TeamID: c.team.ID})
		if err != nil {
			return List[Proposal]{}, err
		}
		q.Manager = role == RoleOwner || role == RoleAdmin
	}
	l, err := s.store.Proposals().List(ctx, q)
	for i := range l.Items {
		l.Items[i] = l.Items[i].readAt(q.Now)
	}
	return l, err
}

// checkProposalStatus refuses a status filter that is no proposal's
// status; "" is any.
func checkProposalStatus(status string) FieldErrors {
	bad := FieldErrors{}
	if status != "" && !containsString(ProposalStatuses, status) {
		bad.Add("status", "The status must be one of "+strings.Join(ProposalStatuses, ", ")+".")
	}
	return bad
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// loadDecision is the proposal id as a decider c may decide it, in the
// check order: not_found (c's user cannot reach it), insufficient_scope
// (c lacks the operation's own scope), forbidden (c's user requested it).
func (s *Service) loadDecision(ctx context.Context, c Caller, id int64) (Proposal, error) {
	p, err := s.visibleProposal(ctx, c, id)
	if err != nil {
		return Proposal{}, err
	}
	if scope := p.Operation.Scope(); scope != "" && !c.Has(scope) {
		return Proposal{}, &Error{Code: EInsufficientScope,
			Message: "The token does not carry the scope " + string(scope) + ".",
			Details: map[string]string{"required_scope": string(scope)}}
	}
	// An agent's token cannot approve what its user's other agent asked;
	// the person decides their own agent's proposals without a token (on
	// the approvals page, or with pipelined proposal).
	if c.tokenID != 0 && p.RequestedBy.User.ID == c.user.ID {
		return Proposal{}, Errorf(EForbidden, "A proposal must be decided by another user.")
	}
	return p, nil
}

// checkPending is the conflict of deciding p when it is not pending.
func checkPending(p Proposal) error {
	if p.Status != ProposalPending {
		return errDecided()
	}
	return nil
}

// RejectProposal rejects a pending proposal: nothing of it is done.
// Needs proposals:review. Errors: unauthenticated, insufficient_scope
// (also when the token lacks the proposal's operation's scope), not_found,
// validation_failed (note, idempotency_key), forbidden (the caller's user
// requested it), conflict (it was decided, expired or withdrawn).
func (s *Service) RejectProposal(ctx context.Context, id int64, in ProposalDecision) (Result[Proposal], error) {
	c, err := authorize(ctx, OpRejectProposal)
	if err != nil {
		return Result[Proposal]{}, err
	}
	k, err := takeKey(OpRejectProposal, Ref{Proposal: id}, &in, &in.Idempotency)
	if err != nil {
		return Result[Proposal]{}, err
	}
	res, err := write(s, ctx, c, k, func(Tx, KeyClaim) (Proposal, error) { return s.loadDecision(ctx, c, id) },
		func(tx Tx, p Proposal) (Proposal, error) {
			if err := inputVerdict(in.Unread, in.check().Err()); err != nil {
				return Proposal{}, err
			}
			if err := checkPending(p); err != nil {
				return Proposal{}, err
			}
			r := approvalRun{proposal: p, approver: c, note: in.Note, reason: decisionReason(in.Note, k.reason)}
			if err := s.decide(ctx, tx, r, ProposalRejected, nil); err != nil {
				return Proposal{}, err
			}
			return tx.Proposals().Get(ctx, ProposalParams{ID: p.ID})
		})
	res.Value = res.Value.readAt(s.now())
	return res, err
}

// ApproveProposal runs a pending proposal's operation now, as its
// requester (the user, token and scopes as they are now, from the
// approver's address, without the token's approval policy and without
// spending its rate limit), with the stored request, through the
// operation's whole check order. The run claims the proposal inside its
// own transaction, so of concurrent approvals on any replica one runs; a
// refused run leaves it failed with the answer, and nothing changed.
// Either way the proposal is returned. Needs proposals:review. Errors: as
// RejectProposal.
func (s *Service) ApproveProposal(ctx context.Context, id int64, in ProposalDecision) (Result[Proposal], error) {
	c, err := authorize(ctx, OpApproveProposal)
	if err != nil {
		return Result[Proposal]{}, err
	}
	k, err := takeKey(OpApproveProposal, Ref{Proposal: id}, &in, &in.Idempotency)
	if err != nil {
		return Result[Proposal]{}, err
	}
	busy, release := s.reserveKey(c, k.key)
	defer release()
	// The checks, and a replay, in a transaction rolled back: the run
	// writes in its own.
	var p Proposal
	checked := errors.New("checked")
	var replay *Result[Proposal]
	err = s.store.Write(ctx, func(tx Tx) error {
		var cl claimedKey
		if k.key != nil {
			cl = s.claim(ctx, tx, c, k.key.key, busy)
		}
		var err error
		if p, err = s.loadDecision(ctx, c, id); err != nil {
			return err
		}
		if k.key != nil {
			stored, err := cl.replay(ctx, c, k.key)
			if err != nil {
				return err
			}
			if stored != nil {
				replay = &Result[Proposal]{Replayed: true}
				return json.Unmarshal(stored, &replay.Value)
			}
		}
		if err := withReason(inputVerdict(in.Unread, in.check().Err()), checkReason(k.reason)); err != nil {
			return err
		}
		if err := checkPending(p); err != nil {
			return err
		}
		return checked
	})
	if replay != nil && err == nil {
		v, err := s.store.Proposals().Get(ctx, ProposalParams{ID: replay.Value.ID})
		return Result[Proposal]{Value: v.readAt(s.now()), Replayed: true}, err
	}
	if !errors.Is(err, checked) {
		return Result[Proposal]{}, err
	}
	r := approvalRun{proposal: p, approver: c, note: in.Note, reason: decisionReason(in.Note, k.reason)}
	runCtx := context.WithValue(ctx, approvalKey{}, r)
	if requester, err := s.requester(ctx, p); err != nil {
		return Result[Proposal]{}, err
	} else if requester != nil {
		runCtx = NewContext(runCtx, requester.WithIP(c.ip))
	} else {
		runCtx = NewContext(runCtx, Caller{})
	}
	result, answer, runErr := s.runProposal(runCtx, p)
	if runErr == errAlreadyDecided {
		return Result[Proposal]{}, runErr
	}
	err = s.store.Write(ctx, func(tx Tx) error {
		if runErr == nil {
			// Applied in the run's transaction; the answer is known now.
			if err := tx.Proposals().SetResult(ctx, ProposalResultParams{ID: p.ID, Result: result}); err != nil {
				return err
			}
		} else if err := s.decide(ctx, tx, r, ProposalFailed, &result); err != nil {
			return err
		}
		if k.key != nil {
			cl := s.claim(ctx, tx, c, k.key.key, busy)
			if _, err := cl.replay(ctx, c, k.key); err != nil {
				return err
			}
			return s.remember(ctx, tx, c, k.key, Proposal{ID: p.ID})
		}
		return nil
	})
	if err != nil {
		return Result[Proposal]{}, err
	}
	v, err := s.store.Proposals().Get(ctx, ProposalParams{ID: p.ID})
	if err == nil && v.Result != nil && answer != nil {
		// The approver hands on what the stored result keeps back (a
		// new webhook's secret): this answer alone shows it.
		v.Result.Body = answer
	}
	return Result[Proposal]{Value: v.readAt(s.now())}, err
}

// runProposal runs p's stored input through its operation as the caller
// on ctx (its requester): result is the answer as the proposal keeps it,
// answer the whole body when result keeps part of it back (nil when it
// keeps all), err the run's error.
func (s *Service) runProposal(ctx context.Context, p Proposal) (result ProposalResult, answer json.RawMessage, err error) {
	refused := func(err error) (ProposalResult, json.RawMessage, error) {
		status, env, _ := ErrorAnswer(err)
		body, merr := json.Marshal(env)
		if merr != nil {
			return ProposalResult{}, nil, merr
		}
		return ProposalResult{Status: status, Body: body}, nil, err
	}
	run := opRuns[p.Operation]
	if run == nil {
		return refused(Errorf(EValidation, "No operation %s can be proposed.", p.Operation))
	}
	ref, err := p.Ref()
	if err != nil {
		return refused(err)
	}
	in, err := run.decode(p.Input)
	if err != nil {
		return refused(err)
	}
	body, err := run.call(ctx, s, ref, in)
	if err != nil {
		return refused(err)
	}
	result = ProposalResult{Status: p.Operation.Status(), Body: json.RawMessage("null")}
	if body == nil {
		return result, nil, nil
	}
	if result.Body, err = json.Marshal(body); err != nil {
		return ProposalResult{}, nil, err
	}
	kept, ok := body.(dataBody).Data.(interface{ kept() any })
	if !ok {
		return result, nil, nil
	}
	answer = result.Body
	result.Body, err = json.Marshal(dataBody{Data: kept.kept()})
	return result, answer, err
}

// requester is the caller of p's requesting token as it is now, acting in
// p's team; nil when the token no longer works (revoked, expired, gone)
// or its user is no longer a member of that team: the run answers
// unauthenticated, as the token now does.
func (s *Service) requester(ctx context.Context, p Proposal) (*Caller, error) {
	if p.RequestedBy.Token == nil {
		return nil, nil
	}
	a, err := s.store.Tokens().Auth(ctx, TokenAuthParams{ID: p.RequestedBy.Token.ID})
	if ErrorCode(err) == ENotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !a.Token.Active(s.now()) {
		return nil, nil
	}
	teams, err := s.store.Users().Teams(ctx, UserParams{ID: a.User.ID})
	if err != nil {
		return nil, err
	}
	for _, tr := range teams {
		if tr.Team.ID == p.TeamID {
			return &Caller{user: a.User, team: tr.Team, tokenID: a.Token.ID, scopes: a.Token.Scopes,
				approval: a.Token.Approval, valid: true}, nil
		}
	}
	return nil, nil
}

// ProposalSweepInterval is how often the server closes pending proposals
// past their time (see CloseProposals), so that proposal.expired is logged
// within a minute of the expiry.
const ProposalSweepInterval = 30 * time.Second

// CloseProposals closes, now, the pending proposals whose seven days ran
// out (expired) and those whose requesting token was revoked or expired
// (withdrawn), each with its activity entry, which the server makes
// itself (no user, token or IP). It returns how many it closed. A
// decision that meets a closed proposal answers conflict; an approval
// made before the pass, of a revoked token's proposal, runs and fails as
// the write would (unauthenticated).
func (s *Service) CloseProposals(ctx context.Context) (int, error) {
	closed := 0
	err := s.store.Write(ctx, func(tx Tx) error {
		now := s.now()
		ps, err := tx.Proposals().ToClose(ctx, now)
		if err != nil {
			return err
		}
		for _, p := range ps {
			status := ProposalWithdrawn
			if !now.Before(p.ExpiresAt) {
				status = ProposalExpired
			}
			ok, err := s.closeProposal(ctx, tx, p, status, now)
			if err != nil {
				return err
			}
			if ok {
				closed++
			}
		}
		return nil
	})
	return closed, err
}

// closeProposal ends p, if still pending, in status (expired or
// withdrawn), logged as the server's own entry.
func (s *Service) closeProposal(ctx context.Context, tx Tx, p Proposal, status string, now time.Time) (bool, error) {
	ok, err := tx.Proposals().Close(ctx, CloseProposalParams{ID: p.ID, Status: status, At: now})
	if err != nil || !ok {
		return false, err
	}
	action := ActionProposalExpired
	if status == ProposalWithdrawn {
		action = ActionProposalWithdrawn
	}
	return true, s.log(ctx, tx, Caller{}, p.TeamID, p.JobID, action, SubjectProposal, p.ID,
		proposalChanges(p.Operation, p.CandidateID, ProposalPending, status))
}

// TeamProposals returns every proposal of a team, newest first, each as it
// reads now (pipelined proposal list): an operator's view, which no
// user's reach limits. A status other than "" keeps those that read so.
// Errors: validation_failed (status).
func (o *Operator) TeamProposals(ctx context.Context, teamID int64, status string) ([]Proposal, error) {
	if err := checkProposalStatus(status).Err(); err != nil {
		return nil, err
	}
	now := o.now()
	ps, err := o.store.Proposals().OfTeam(ctx, TeamProposalsParams{TeamID: teamID, Status: status, Now: now})
	for i := range ps {
		ps[i] = ps[i].readAt(now)
	}
	return ps, err
}

// ActOnProposal returns the caller as whom a user, named by email,
// decides proposal id without a token (pipelined proposal approve and
// reject): as ActAs with every scope, but in the proposal's team instead
// of the user's current team, so that a person decides the proposals of
// any of their teams. The Service then checks the decision as any other:
// the user must reach the proposal's job now (on no job, be an owner or
// admin of its team). Errors: not_found (the user; the proposal, also
// when the user is no member of its team).
func (o *Operator) ActOnProposal(ctx context.Context, email string, id int64) (Caller, error) {
	u, err := o.store.Users().ByEmail(ctx, UserByEmailParams{Email: email})
	if err != nil {
		return Caller{}, err
	}
	p, err := o.store.Proposals().Get(ctx, ProposalParams{ID: id})
	if err != nil {
		return Caller{}, err
	}
	teams, err := o.store.Users().Teams(ctx, UserParams{ID: u.ID})
	if err != nil {
		return Caller{}, err
	}
	for _, tr := range teams {
		if tr.Team.ID == p.TeamID {
			return Caller{user: u, team: tr.Team, scopes: append([]Scope{}, AllScopes...), valid: true}, nil
		}
	}
	return Caller{}, errNotFound("Proposal")
}

// The operations on proposals.
const (
	OpListProposals    Op = "list_proposals"
	OpGetProposal      Op = "get_proposal"
	OpApproveProposal  Op = "approve_proposal"
	OpRejectProposal   Op = "reject_proposal"
	OpWithdrawProposal Op = "withdraw_proposal"
)

// proposalPath is the path of one proposal, below /api/v1.
const proposalPath = "/proposals/{proposal}"

// proposalOps are the rows of opTable for these operations, in the order of
// the API's document.
var proposalOps = []opRow{
	// Reading needs no scope: what a token sees depends on whether it
	// made the proposal or carries proposals:review (see Proposal).
	{OpListProposals, opTraits{"", mGet, "/proposals", 0}, nil, &Words{Title: "List proposals", Description: "A page of 15 of the proposals the token may read, newest first: its own, and with proposals:review its team's, on jobs its user reaches (GET /api/v1/proposals)."}, Doc{
		Tag: "Proposals", Summary: "List proposals",
		Description: "Any valid token, no particular scope. The proposals the token may read, newest first, 15 a " +
			"page: those it made, on jobs its user reaches now (or on no job); with `proposals:review` also its " +
			"current team's on jobs its user reaches, and, for owners and admins, the team's on no job. A " +
			"pending proposal past `expires_at` reads, and filters, as `expired`.",
		Success: "A page of proposals, possibly empty.",
	}},
	{OpGetProposal, opTraits{"", mGet, proposalPath, 0}, nil, &Words{Title: "Get a proposal", Description: "One proposal: the write it stands for, its status and, once decided, who decided and what the write answered (GET /api/v1/proposals/{proposal})."}, Doc{
		Tag: "Proposals", Summary: "Get a proposal",
		Description: "Any valid token, no particular scope; a proposal the token may not read (see List proposals) " +
			"answers 404.",
		Success: "The proposal.",
	}},
	{OpApproveProposal, opTraits{ScopeProposalsReview, mPost, proposalPath + "/approve", forbids | conflicts | neverHeld}, nil, &Words{Title: "Approve a proposal",
		Description: "Runs the proposed write now, as its requester, and returns the proposal, applied or failed with the write's answer (POST /api/v1/proposals/{proposal}/approve). " +
			"Needs the write's own scope too; the requester's user cannot decide it."}, Doc{
		Tag: "Proposals", Summary: "Approve a proposal",
		Description: "Scope: `proposals:review`, and the proposed write's own scope (403 `insufficient_scope` " +
			"names it). Checks, in order: 404 when the user cannot reach the proposal's job now; 403 " +
			"`insufficient_scope`; 403 `forbidden` when the deciding user is the requester's user (a person " +
			"decides their own agent's proposals on the approvals page or with `pipelined proposal`); 409 when " +
			"it is not pending (decided, expired or withdrawn). Then the write runs now, as the requester (their " +
			"user, token and scopes as they are now, through the write's whole check order, without the token's " +
			"approval policy, and without spending the requester's rate limit): `applied` with `result` the " +
			"write's answer, or `failed` with `result` the error envelope and nothing changed. Either way 200. " +
			"Of concurrent decisions one wins; the others answer 409, and the write runs at most once. The " +
			"write's activity entries name the requester and carry `approved_by`.",
		Success: "The proposal, applied or failed.",
	}},
	{OpRejectProposal, opTraits{ScopeProposalsReview, mPost, proposalPath + "/reject", forbids | conflicts | neverHeld}, nil, &Words{Title: "Reject a proposal",
		Description: "Rejects a pending proposal: the write is never made (POST /api/v1/proposals/{proposal}/reject). The requester's user cannot decide it."}, Doc{
		Tag: "Proposals", Summary: "Reject a proposal",
		Description: "Scope: `proposals:review`, and the proposed write's own scope. The same checks as approving; " +
			"then the proposal is `rejected` and the write is never made.",
		Success: "The proposal, rejected.",
	}},
	// Withdrawing needs no scope: only the token that made a proposal may.
	{OpWithdrawProposal, opTraits{"", mPost, proposalPath + "/withdraw", forbids | conflicts | neverHeld}, nil, &Words{Title: "Withdraw a proposal",
		Description: "Withdraws a pending proposal this token made: the write is never made, and proposal.withdrawn is logged (POST /api/v1/proposals/{proposal}/withdraw). " +
			"Another token's proposal is forbidden; one no longer pending is a conflict."}, Doc{
		Tag: "Proposals", Summary: "Withdraw a proposal",
		Description: "No scope: only the token that made the proposal may withdraw it. A pending proposal becomes " +
			"`withdrawn` (`decided_by` null) and the write is never made; `proposal.withdrawn` is logged with " +
			"the token as its actor. Another token that can read the proposal is answered 403 `forbidden`; one " +
			"that cannot, 404. A proposal no longer pending is a 409 `conflict`.",
		Success: "The proposal, withdrawn.",
	}},
}

// ProposalWithdrawal is the body of withdrawing a proposal.
type ProposalWithdrawal struct {
	Idempotency *Idempotency `json:"-"`
	Reasoned
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *ProposalWithdrawal) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *ProposalWithdrawal) SetUnread(err error) { in.Unread = err }

// WithdrawProposal withdraws a pending proposal that the caller's token
// made: it will never run, and proposal.withdrawn names the token as its
// actor. Needs no scope. Errors: unauthenticated, not_found (the caller
// cannot read it), validation_failed (reason, idempotency_key), forbidden
// (another token made it), conflict (it is no longer pending).
func (s *Service) WithdrawProposal(ctx context.Context, id int64, in ProposalWithdrawal) (Result[Proposal], error) {
	c, err := authorize(ctx, OpWithdrawProposal)
	if err != nil {
		return Result[Proposal]{}, err
	}
	k, err := takeKey(OpWithdrawProposal, Ref{Proposal: id}, &in, &in.Idempotency)
	if err != nil {
		return Result[Proposal]{}, err
	}
	res, err := write(s, ctx, c, k, func(Tx, KeyClaim) (Proposal, error) { return s.visibleProposal(ctx, c, id) },
		func(tx Tx, p Proposal) (Proposal, error) {
			if err := inputVerdict(in.Unread, nil); err != nil {
				return Proposal{}, err
			}
			if c.tokenID == 0 || p.RequestedBy.Token == nil || p.RequestedBy.Token.ID != c.tokenID {
				return Proposal{}, Errorf(EForbidden, "Only the token that made a proposal may withdraw it.")
			}
			if err := checkPending(p); err != nil {
				return Proposal{}, err
			}
			ok, err := tx.Proposals().Close(ctx, CloseProposalParams{ID: p.ID, Status: ProposalWithdrawn, At: s.now()})
			if err != nil {
				return Proposal{}, err
			}
			if !ok {
				return Proposal{}, errDecided()
			}
			if err := s.log(ctx, tx, c, p.TeamID, p.JobID, ActionProposalWithdrawn, SubjectProposal, p.ID,
				proposalChanges(p.Operation, p.CandidateID, ProposalPending, ProposalWithdrawn)); err != nil {
				return Proposal{}, err
			}
			return tx.Proposals().Get(ctx, ProposalParams{ID: p.ID})
		})
	res.Value = res.Value.readAt(s.now())
	return res, err
}

// ProposalStore is what the Service and the Operator read of proposals
// outside a write.
type ProposalStore interface {
	// Get returns a proposal with the names of its requester and decider
	// (and their tokens), as stored: a pending one may be past its
	// expiry.
	Get(ctx context.Context, p ProposalParams) (Proposal, error)
	// List returns a page of the proposals q selects, newest first
	// (created_at, then id, descending); a status filter of expired or
	// pending reads the expiry at q.Now.
	List(ctx context.Context, q ProposalQuery) (List[Proposal], error)
	// OfTeam returns every proposal of a team, newest first (created_at,
	// then id, descending); Status, unless "", keeps those that read so
	// at Now.
	OfTeam(ctx context.Context, p TeamProposalsParams) ([]Proposal, error)
	// AboutCandidate returns the proposals about a candidate (those whose
	// path names it), oldest first.
	AboutCandidate(ctx context.Context, p CandidateProposalsParams) ([]Proposal, error)
}

// ProposalParams names a proposal.
type ProposalParams struct {
	ID int64
}

// TeamProposalsParams selects the proposals of a team.
type TeamProposalsParams struct {
	TeamID int64
	Status string
	Now    time.Time
}

// CandidateProposalsParams names the candidate whose proposals are read.
type CandidateProposalsParams struct {
	CandidateID int64
}

// ProposalTx is what a write transaction does to proposals.
type ProposalTx interface {
	// Insert stores a proposal and returns it with its id.
	Insert(ctx context.Context, p Proposal) (Proposal, error)
	// Get is ProposalStore.Get inside the transaction.
	Get(ctx context.Context, p ProposalParams) (Proposal, error)
	// Pending returns the proposal of a token with that request digest
	// that is pending and not expired at Now, or nil.
	Pending(ctx context.Context, p PendingProposalParams) (*Proposal, error)
	// CountPending counts a token's proposals pending and not expired at
	// Now.
	CountPending(ctx context.Context, p CountPendingParams) (int, error)
	// Decide stores a decision of a proposal if it is pending and not
	// expired at d.Now, in one conditional update, and reports whether it
	// was.
	Decide(ctx context.Context, d ProposalDecisionRecord) (bool, error)
	// SetResult stores what an applied proposal's run answered.
	SetResult(ctx context.Context, p ProposalResultParams) error
	// ToClose returns pending proposals past their expiry at now, or
	// whose requesting token was revoked or expired, oldest first; at most
	// a few hundred, so that a pass is short.
	ToClose(ctx context.Context, now time.Time) ([]Proposal, error)
	// Close ends a proposal in Status at At if it is still pending, and
	// reports whether it was: of concurrent passes, one closes it.
	Close(ctx context.Context, p CloseProposalParams) (bool, error)
	// About returns a team's proposals on the candidates given, and those
	// on no candidate.
	About(ctx context.Context, p ProposalsAboutParams) ([]Proposal, error)
	// Erase drops a proposal's input (to {}), reason and note, sets its
	// result to Result (nil: none), and makes the reasons of its activity
	// entries ErasedValue.
	Erase(ctx context.Context, p EraseProposalParams) error
}

// PendingProposalParams asks for a token's pending proposal of a request
// (its digest) at a time.
type PendingProposalParams struct {
	TokenID int64
	Digest  string
	Now     time.Time
}

// CountPendingParams asks how many proposals of a token are pending at a
// time.
type CountPendingParams struct {
	TokenID int64
	Now     time.Time
}

// ProposalResultParams is what an applied proposal's run answered.
type ProposalResultParams struct {
	ID     int64
	Result ProposalResult
}

// CloseProposalParams ends a proposal in a status at a time.
type CloseProposalParams struct {
	ID     int64
	Status string
	At     time.Time
}

// ProposalsAboutParams selects a team's proposals on candidates.
type ProposalsAboutParams struct {
	TeamID       int64
	CandidateIDs []int64
}

// EraseProposalParams is a proposal to erase and the result it keeps.
type EraseProposalParams struct {
	ID     int64
	Result *ProposalResult
}
