package pipeline

import (
	"context"
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
}

// CandidateFilter selects a page of a job's candidates.
type CandidateFilter struct {
	Search  string // case-insensitive substring of name or email
	StageID int64  // 0: any stage
	Page    int    // 0 means 1
	// Malformed holds parameters that could not be read; they are reported
	// as validation_failed once the job is found.
	Malformed FieldErrors
}

// ParseStageFilter reads a stage query parameter that was sent: anything but
// a positive integer, the empty string included, is a validation error
// naming "stage".
func ParseStageFilter(raw string) (int64, error) {
	id, ok := ParseID(raw)
	if !ok {
		return 0, Invalid("stage", MsgStage)
	}
	return id, nil
}

// ListCandidates returns a page of a job's candidates, newest applicant
// first. Scope: candidates:read. Errors: unauthenticated,
// insufficient_scope, not_found, validation_failed (stage, page).
func (s *Service) ListCandidates(ctx context.Context, jobID int64, f CandidateFilter) (List[Candidate], error) {
	c, err := authorize(ctx, ScopeCandidatesRead)
	if err != nil {
		return List[Candidate]{}, err
	}
	bad := f.Malformed.clone()
	if f.Page == 0 {
		f.Page = 1
	}
	if f.Page < 0 {
		bad.Add("page", MsgPage)
	}
	if f.StageID < 0 {
		bad.Add("stage", MsgStage)
	}
	if len(bad) > 0 {
		// Not found comes before invalid.
		if _, err := s.store.Job(ctx, c.User.ID, jobID); err != nil {
			return List[Candidate]{}, err
		}
		return List[Candidate]{}, bad.Err()
	}
	return s.store.ListCandidates(ctx, c.User.ID, jobID, f)
}

// Candidate returns one candidate of a job with its resume URL and notes
// count. Scope: candidates:read. Errors: unauthenticated,
// insufficient_scope, not_found (also for a candidate of another job).
func (s *Service) Candidate(ctx context.Context, jobID, id int64) (Candidate, error) {
	c, err := authorize(ctx, ScopeCandidatesRead)
	if err != nil {
		return Candidate{}, err
	}
	return s.store.Candidate(ctx, c.User.ID, jobID, id)
}

// StageMove is the input of MoveCandidate.
type StageMove struct {
	StageID   int64 // required
	Malformed FieldErrors
}

// MoveCandidate moves a candidate to a stage of the same job and returns the
// candidate. A candidate already in that stage is left as it is and nothing
// is logged. Scope: candidates:write. Errors: unauthenticated,
// insufficient_scope, not_found, validation_failed (stage of another job or
// no stage), conflict (idempotency key in flight).
func (s *Service) MoveCandidate(ctx context.Context, jobID, id int64, in StageMove) (Candidate, error) {
	c, err := authorize(ctx, ScopeCandidatesWrite)
	if err != nil {
		return Candidate{}, err
	}
	load := func(tx Tx) (Candidate, error) { return tx.CandidateForUpdate(ctx, c.User.ID, jobID, id) }
	return write(s, ctx, c, load, func(tx Tx, cand Candidate) (Candidate, error) {
		if err := in.Malformed.Err(); err != nil {
			return Candidate{}, err
		}
		if in.StageID == 0 {
			return Candidate{}, Invalid("stage", "The stage field is required.")
		}
		st, err := tx.Stage(ctx, jobID, in.StageID)
		if ErrorCode(err) == ENotFound {
			return Candidate{}, Invalid("stage", MsgStage)
		} else if err != nil {
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
		return cand, s.log(ctx, tx, c, cand.TeamID, ActionCandidateStageChanged, SubjectCandidate, cand.ID, changes)
	})
}
