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
		stages, err := s.store.Stages(ctx, c.user.ID, jobID)
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
	l, err := s.store.ListCandidates(ctx, c.user.ID, jobID, f)
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
	return s.store.Candidate(ctx, c.user.ID, jobID, id)
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
	load := func(tx Tx) (moving, error) {
		cand, st, err := tx.CandidateForMove(ctx, c.user.ID, jobID, id, in.StageID)
		return moving{cand, st}, err
	}
	return write(s, ctx, c, k, load, func(tx Tx, m moving) (Candidate, error) {
		cand, st := m.cand, m.stage
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
		if err := tx.SetCandidateStage(ctx, cand.ID, st.ID, s.now()); err != nil {
			return Candidate{}, err
		}
		changes := map[string]Change{"stage": {Before: cand.Stage, After: st.Name}}
		cand.StageID, cand.Stage = st.ID, st.Name
		return cand, s.log(ctx, tx, c, cand.TeamID, cand.JobID, ActionCandidateStageChanged, SubjectCandidate, cand.ID, changes)
	})
}

// moving is a candidate to move and the stage it is to move to.
type moving struct {
	cand  Candidate
	stage *Stage
}

// loadCandidate finds, for a write, a candidate of a job the caller can
// reach and locks it.
func (s *Service) loadCandidate(ctx context.Context, c Caller, jobID, id int64) func(Tx) (Candidate, error) {
	return func(tx Tx) (Candidate, error) { return tx.CandidateForUpdate(ctx, c.user.ID, jobID, id) }
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
