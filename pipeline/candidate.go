package pipeline

import (
	"context"
	"errors"
	"slices"
	"time"
)

// Candidate statuses. The default is active.
const (
	CandidateActive    = "active"
	CandidateHired     = "hired"
	CandidateRejected  = "rejected"
	CandidateWithdrawn = "withdrawn"
)

// CandidateStatuses lists the candidate status labels.
var CandidateStatuses = []string{CandidateActive, CandidateHired, CandidateRejected, CandidateWithdrawn}

// Candidate is an applicant on a job.
type Candidate struct {
	ID         int64
	JobID      int64
	TeamID     int64 // the team of the job
	Name       string
	Email      string
	Applied    time.Time // a date
	StageID    int64
	Stage      string // name of the current stage
	Status     string
	ResumeURL  string
	NotesCount int
	// ErasedAt is when the candidate's person was erased; nil: never.
	ErasedAt *time.Time `json:",omitempty"`
}

// CandidateFilter selects a page of a job's candidates. The zero value
// selects the first page of all of them.
type CandidateFilter struct {
	Search  string // case-insensitive substring of name or email; "": all
	StageID int64  // a stage of the job; 0: any stage
	Status  string // one of CandidateStatuses; "": any status
	Page    int    // from 1; 0: the first page
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error
}

// SetUnread sets what a face could not read of the request.
func (in *CandidateFilter) SetUnread(err error) { in.Unread = err }

const msgStage = "The stage must be the id of a stage of this job."

// Validate reports what is wrong with the filter without consulting
// storage; whether the stage belongs to the job is checked by
// ListCandidates.
func (f CandidateFilter) Validate() error { return inputVerdict(f.Unread, f.check().Err()) }

func (f CandidateFilter) check() FieldErrors {
	bad := FieldErrors{}
	checkText(bad, "search", f.Search)
	if f.StageID < 0 {
		bad.Add("stage", msgStage)
	}
	if f.Status != "" && !slices.Contains(CandidateStatuses, f.Status) {
		bad.Add("status", msgCandidateStatus)
	}
	if f.Page < 0 {
		bad.Add("page", msgPage)
	}
	return bad
}

// ListCandidates returns a page of a job's candidates, newest applicant
// first. Scope: candidates:read. Errors: unauthenticated,
// insufficient_scope, not_found, validation_failed (search, stage, status,
// page).
func (s *Service) ListCandidates(ctx context.Context, jobID int64, f CandidateFilter) (List[Candidate], error) {
	c, err := authorize(ctx, OpListCandidates)
	if err != nil {
		return List[Candidate]{}, err
	}
	if bad := f.check(); len(bad) > 0 || f.Unread != nil {
		// Not found comes before invalid; the stage is judged with the
		// rest, so that the answer names every bad parameter.
		stages, err := s.store.Jobs().Stages(ctx, JobParams{Viewer: c.user.ID, ID: jobID})
		if err != nil {
			return List[Candidate]{}, err
		}
		if f.StageID > 0 && checkable(f.Unread, bad, "stage") &&
			!slices.ContainsFunc(stages, func(st Stage) bool { return st.ID == f.StageID }) {
			bad.Add("stage", msgStage)
		}
		return List[Candidate]{}, inputVerdict(f.Unread, bad.Err())
	}
	f.Page = max(f.Page, 1)
	l, err := s.store.Candidates().List(ctx, ListCandidatesParams{Viewer: c.user.ID, JobID: jobID, Filter: f})
	if errors.Is(err, ErrStageNotInJob) {
		return List[Candidate]{}, Invalid("stage", msgStage)
	}
	return l, err
}

// GetCandidate returns one candidate of a job with its resume URL and notes
// count. Scope: candidates:read. Errors: unauthenticated,
// insufficient_scope, not_found (also for a candidate of another job).
func (s *Service) GetCandidate(ctx context.Context, jobID, id int64) (Candidate, error) {
	c, err := authorize(ctx, OpGetCandidate)
	if err != nil {
		return Candidate{}, err
	}
	return s.store.Candidates().Get(ctx, CandidateParams{Viewer: c.user.ID, JobID: jobID, ID: id})
}

// CandidateMove is the input of MoveCandidate.
type CandidateMove struct {
	StageID     int64        `json:"stage"` // required: a stage of the candidate's job
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *CandidateMove) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *CandidateMove) SetUnread(err error) { in.Unread = err }

// Validate reports what is wrong with the input without consulting
// storage; whether the stage belongs to the job is checked by
// MoveCandidate.
func (in CandidateMove) Validate() error { return inputVerdict(in.Unread, in.check().Err()) }

func (in CandidateMove) check() FieldErrors {
	f := FieldErrors{}
	switch {
	case in.StageID == 0:
		f.Add("stage", "The stage field is required.")
	case in.StageID < 0:
		f.Add("stage", msgStage)
	}
	return f
}

// MoveCandidate moves a candidate to a stage of the same job and returns the
// candidate. A candidate already in that stage is left as it is and nothing
// is logged. Scope: candidates:write. Errors: unauthenticated,
// insufficient_scope, not_found, validation_failed (stage of another job or
// no stage), conflict (idempotency key in flight).
func (s *Service) MoveCandidate(ctx context.Context, jobID, id int64, in CandidateMove) (Result[Candidate], error) {
	c, err := authorize(ctx, OpMoveCandidate)
	if err != nil {
		return Result[Candidate]{}, err
	}
	k, err := takeKey(OpMoveCandidate, Ref{Job: jobID, Candidate: id}, &in, &in.Idempotency)
	if err != nil {
		return Result[Candidate]{}, err
	}
	// The stage is read with the candidate, and checked in its turn.
	load := func(tx Tx, kc KeyClaim) (LockedCandidate, error) {
		return tx.Candidates().Lock(ctx, LockCandidateParams{Viewer: c.user.ID, JobID: jobID, ID: id, Stage: in.StageID, Claim: kc})
	}
	return write(s, ctx, c, k, load, func(tx Tx, m LockedCandidate) (Candidate, error) {
		cand, st := m.Candidate, m.Stage
		f := in.check()
		if st == nil && checkable(in.Unread, f, "stage") {
			f.Add("stage", msgStage)
		}
		if err := inputVerdict(in.Unread, f.Err()); err != nil {
			return Candidate{}, err
		}
		if st.ID == cand.StageID {
			return cand, nil
		}
		if err := tx.Candidates().SetStage(ctx, SetStageParams{CandidateID: cand.ID, StageID: st.ID, At: s.now()}); err != nil {
			return Candidate{}, err
		}
		changes := map[string]Change{"stage": {Before: cand.Stage, After: st.Name}}
		cand.StageID, cand.Stage = st.ID, st.Name
		return cand, s.log(ctx, tx, c, cand.TeamID, cand.JobID, ActionCandidateStageChanged, SubjectCandidate, cand.ID, changes)
	})
}

// loadCandidate finds, for a write, a candidate of a job the caller can
// reach and locks it.
func (s *Service) loadCandidate(ctx context.Context, c Caller, jobID, id int64) func(Tx, KeyClaim) (Candidate, error) {
	return func(tx Tx, kc KeyClaim) (Candidate, error) {
		return lockCandidate(ctx, tx, LockCandidateParams{Viewer: c.user.ID, JobID: jobID, ID: id, Claim: kc})
	}
}

// lockCandidate is the candidate p locks.
func lockCandidate(ctx context.Context, tx Tx, p LockCandidateParams) (Candidate, error) {
	l, err := tx.Candidates().Lock(ctx, p)
	return l.Candidate, err
}

// The operations on candidates (intake.go holds the adding and the updating).
const (
	OpListCandidates  Op = "list_candidates"
	OpAddCandidate    Op = "add_candidate"
	OpGetCandidate    Op = "get_candidate"
	OpUpdateCandidate Op = "update_candidate"
	OpMoveCandidate   Op = "move_candidate"
)

// candidatePath is the path of one candidate, below /api/v1.
const candidatePath = jobPath + "/candidates/{candidate}"

// candidateOps are the rows of opTable for these operations, in the order of
// the API's document.
var candidateOps = []opRow{
	{OpListCandidates, opTraits{ScopeCandidatesRead, mGet, jobPath + "/candidates", 0}, nil, &Words{Title: "List candidates", Description: "A page of 15 of a job's candidates, newest applicant first, with links and meta (GET /api/v1/jobs/{job}/candidates). search matches name or email; stage takes a stage id."}, Doc{
		Tag: "Candidates", Summary: "List the candidates of a job",
		Description: "Scope: `candidates:read`. Newest applicant first (`applied`, then `id`, descending), 15 a " +
			"page.",
		Success: "A page of candidates.",
		Invalid: "`validation_failed`: `stage` is not the id of a stage of this job, `status` is not one of " +
			"`active`, `hired`, `rejected`, `withdrawn` (the message names them), `page` is not an integer of at " +
			"least 1, `search` is not valid text, or a value is not validly percent-encoded; `details` names the " +
			"parameter.",
		Params: map[string]string{
			"stage": "Only candidates in this stage, by id (see the stages of the job); no filter when absent. " +
				"Anything but the id of a stage of this job, an empty value included, answers 422 naming `stage`.",
			"status": "Only candidates of this status; any status when absent. Any other value, an empty one " +
				"included, answers 422 naming `status` and the allowed values.",
		},
	}},
	{OpAddCandidate, opTraits{ScopeCandidatesWrite, mPost, jobPath + "/candidates", forbids | creates}, runs(onJob((*Service).AddCandidate), Candidate.Record), &Words{Title: "Add a candidate",
		Description: "Adds an active candidate to a job, in the stage given or the job's first, and returns it (POST /api/v1/jobs/{job}/candidates). " +
			"An email another candidate of the job has, in any letter case, is validation_failed on email; a closed job is forbidden. Each call adds one: send an idempotency_key to retry safely."}, Doc{
		Tag: "Candidates", Summary: "Add a candidate to a job",
		Description: "Scope: `candidates:write`. Adds an `active` candidate to the job, in the stage sent or the " +
			"job's first. `open` and `draft` jobs take candidates; a `closed` job answers 403 `forbidden` (\"The " +
			"job is closed.\"), checked after the body. The activity entry `candidate.created` lists each field " +
			"set, from `null`.",
		Success: "The candidate was added (or this is the replay of its addition).",
		Invalid: "`validation_failed`: `name` is missing, blank or longer than 255 characters, `email` is missing, " +
			"longer than 254 characters, not an address or already taken on this job (in any letter case), " +
			"`applied` is not a date or is after today, `stage` is not the id of a stage of this job, " +
			"`resume_url` is not an absolute `http` or `https` URL of at most 2,048 characters, a text is not " +
			"valid text, the body is not a JSON object, a field has the wrong type or is not taken, or the " +
			"`Idempotency-Key` is invalid or was used for a different request.",
	}},
	{OpGetCandidate, opTraits{ScopeCandidatesRead, mGet, candidatePath, 0}, nil, &Words{Title: "Get a candidate", Description: "One candidate of a job with resume_url and notes_count; empty fields are left out (GET /api/v1/jobs/{job}/candidates/{candidate})."}, Doc{
		Tag: "Candidates", Summary: "Read a candidate",
		Description: "Scope: `candidates:read`. One candidate with `resume_url` and `notes_count`; fields without " +
			"a value are left out.",
		Success: "The candidate.",
	}},
	{OpUpdateCandidate, opTraits{ScopeCandidatesWrite, mPatch, candidatePath, 0}, runs(onCandidate((*Service).UpdateCandidate), Candidate.Record), &Words{Title: "Update a candidate", Idempotent: true,
		Description: "Changes any of name, email, resume_url (null clears it) and status of a candidate and returns it (PATCH /api/v1/jobs/{job}/candidates/{candidate}); send at least one. Any status may follow any. An email another candidate of the job has, in any letter case, is validation_failed on email."}, Doc{
		Tag: "Candidates", Summary: "Update a candidate",
		Description: "Scope: `candidates:write`. Changes the fields sent, at least one of `name`, `email`, " +
			"`resume_url` (`null` clears it) and `status`. Any status may follow any. A request that changes " +
			"nothing answers 200 and is not logged; one that changes something is logged as `candidate.updated` " +
			"with the before and after of each field changed.",
		Success: "The candidate as it is now.",
		Invalid: "`validation_failed`: none of `name`, `email`, `resume_url`, `status` was sent (reported under " +
			"`body`), or a field sent is invalid as on adding a candidate (an email another candidate of the job " +
			"has, in any letter case; the candidate's own does not count), a status is not one of `active`, " +
			"`hired`, `rejected`, `withdrawn` (the message names them), a field has the wrong type or is not " +
			"taken, or the `Idempotency-Key` is invalid or was used for a different request.",
	}},
	{OpMoveCandidate, opTraits{ScopeCandidatesWrite, mPost, candidatePath + "/stage", 0}, runs(onCandidate((*Service).MoveCandidate), Candidate.Record), &Words{Title: "Move a candidate", Idempotent: true,
		Description: "Moves a candidate to a stage of the same job and returns the candidate, unchanged when already there (POST .../candidates/{candidate}/stage). A stage of another job is validation_failed on stage."}, Doc{
		Tag: "Candidates", Summary: "Move a candidate to a stage",
		Description: "Scope: `candidates:write`. Moves the candidate to a stage of the same job. A candidate " +
			"already in that stage is left as it is (200, nothing logged).",
		Success: "The candidate, in full, in its new stage.",
		Invalid: "`validation_failed`: `stage` is missing, not an integer, or not a stage of this job (a stage of " +
			"another job included), reported under `stage`; or the body or `Idempotency-Key` is invalid.",
	}},
}

// CandidateStore is what the Service reads of candidates outside a write.
type CandidateStore interface {
	// List returns a page of the candidates of a job the viewer can reach,
	// newest applicant first (applied, then id, descending). A stage
	// filter naming no stage of that job is ErrStageNotInJob. Its Total,
	// with or without a stage filter, is the exact number of the job's
	// candidates it selects, however many intakes and moves commit beside
	// the read.
	List(ctx context.Context, p ListCandidatesParams) (List[Candidate], error)
	// Get returns a candidate of a job the viewer can reach, with its
	// stage name and notes count, the exact number of its notes.
	Get(ctx context.Context, p CandidateParams) (Candidate, error)
}

// CandidateParams names a candidate of a job, read for a viewer.
type CandidateParams struct {
	Viewer, JobID, ID int64
}

// ListCandidatesParams selects a page of a job's candidates, read for a
// viewer.
type ListCandidatesParams struct {
	Viewer, JobID int64
	Filter        CandidateFilter
}

// CandidateTx is what a write transaction does to candidates. A candidate
// it changes is one Lock returned.
type CandidateTx interface {
	// Lock returns a candidate of a job the viewer can reach, with its
	// stage and notes count, and holds it until the transaction ends; what
	// else it does is in the params.
	Lock(ctx context.Context, p LockCandidateParams) (LockedCandidate, error)
	// Intake returns what adding a candidate to a job needs, and holds the
	// job against a change of its status until the transaction ends.
	Intake(ctx context.Context, p IntakeParams) (Intake, error)
	// Insert stores a candidate and returns it with its id (its ID when
	// drawn); the job's stage counts follow in the same transaction. A
	// candidate's email is unique among the candidates of its job, in any
	// letter case (compared folded, see Fold), and free on other jobs.
	// Errors: ErrEmailTaken (a candidate of the job has its email), here
	// or when the transaction ends: of concurrent intakes of one email,
	// one is stored.
	Insert(ctx context.Context, p WriteCandidateParams) (Candidate, error)
	// Update stores the name, email, resume URL and status of a locked
	// candidate. Errors: ErrEmailTaken, here or when the transaction ends.
	Update(ctx context.Context, p WriteCandidateParams) error
	// SetStage moves a locked candidate to a stage; the job's stage counts
	// follow in the same transaction, exact however many moves of the job
	// commit at once.
	SetStage(ctx context.Context, p SetStageParams) error
	// EmailTaken reports whether a candidate of a job other than Except
	// has the email, in any letter case (compared folded).
	EmailTaken(ctx context.Context, p EmailTakenParams) (bool, error)
}

// LockCandidateParams is a write's read of the candidate it is about.
type LockCandidateParams struct {
	Viewer, JobID, ID int64
	// Stage, when not 0, is a stage of the job read with the candidate
	// (LockedCandidate.Stage).
	Stage int64
	// Interviews also takes, before the candidate's lock, the locks the
	// writers of each of its interviews take first, in order of id: a
	// write that is to cancel them then waits for a change of one under
	// way before it holds anything of its own, so that the feed lists the
	// two in the order they took effect. A store whose writers take
	// turns takes nothing more.
	Interviews bool
	// Draw, when not "", is the kind of record the transaction is to
	// insert ("interview" or "message") whose id is drawn with the
	// read (LockedCandidate.Drawn), so that its insert need return
	// nothing. Not with Interviews. A store that cannot draw leaves Drawn
	// 0, and the insert assigns the id.
	Draw string
	// Claim, when not nil, is a key's claim the transaction made last and
	// has not sent: the read makes it in its own statement, before it
	// locks anything. A store that cannot sends it as it would have.
	Claim KeyClaim
}

// LockedCandidate is what LockCandidateParams asked for.
type LockedCandidate struct {
	Candidate Candidate
	// Stage is the stage asked for, nil when the job has none such or
	// none was asked for.
	Stage *Stage
	// Drawn is the id drawn, 0 when none was; JobTitle is the candidate's
	// job's title, read with a drawn id.
	Drawn    int64
	JobTitle string
}

// IntakeParams is an intake's read of the job a candidate is added to.
type IntakeParams struct {
	Viewer, JobID int64
	// Stage is the stage asked for, 0 for the job's first.
	Stage int64
	// Email is the new candidate's (Intake.EmailTaken).
	Email string
	// Draw draws the new candidate's id with the read (Intake.Drawn), so
	// that the insert need return nothing; a store that cannot draw
	// leaves it 0.
	Draw bool
	// Claim is as LockCandidateParams.Claim.
	Claim KeyClaim
}

// WriteCandidateParams is a candidate stored at a time.
type WriteCandidateParams struct {
	Candidate Candidate
	At        time.Time
}

// SetStageParams moves a candidate to a stage at a time.
type SetStageParams struct {
	CandidateID, StageID int64
	At                   time.Time
}

// EmailTakenParams asks whether a candidate of a job other than Except
// has an email.
type EmailTakenParams struct {
	JobID  int64
	Email  string
	Except int64
}
