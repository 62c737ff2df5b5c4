package pipeline

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits of a candidate's fields.
const (
	// MaxCandidateNameLength is the longest name, in characters, once trimmed.
	MaxCandidateNameLength = 255
	// MaxEmailLength is the longest email address, in characters.
	MaxEmailLength = 254
	// MaxResumeURLLength is the longest resume URL, in characters.
	MaxResumeURLLength = 2048
)

// ErrEmailTaken is what the store returns for a candidate whose email, in
// any letter case, another candidate of the same job has.
var ErrEmailTaken = errors.New("pipeline: the email is taken on the job")

const (
	msgEmailTaken      = "The email has already been taken."
	msgEmail           = "The email must be a valid email address."
	msgResumeURL       = "The resume url must be an absolute http or https URL."
	msgCandidateStatus = "The status must be one of active, hired, rejected, withdrawn."
	msgJobClosed       = "The job is closed."
)

// NewCandidate is the input of AddCandidate.
type NewCandidate struct {
	Name      string `json:"name"`                 // required; stored trimmed
	Email     string `json:"email"`                // required; stored as sent
	Applied   string `json:"applied,omitempty"`    // YYYY-MM-DD, not after today; "": today (UTC)
	StageID   int64  `json:"stage,omitempty"`      // a stage of the job; 0: its first stage
	ResumeURL string `json:"resume_url,omitempty"` // absolute http or https URL; "": none
	// Idempotency is the key of the call; nil: none.
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *NewCandidate) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *NewCandidate) SetUnread(err error) { in.Unread = err }

// Validate reports what is wrong with the input without consulting
// storage; whether the stage belongs to the job and whether the email is
// taken are checked by AddCandidate.
func (in NewCandidate) Validate() error { return inputVerdict(in.Unread, in.check(time.Now()).Err()) }

func (in NewCandidate) check(now time.Time) FieldErrors {
	f := FieldErrors{}
	validateCandidateName(f, in.Name)
	validateEmail(f, in.Email)
	if checkText(f, "applied", in.Applied) && in.Applied != "" {
		d, err := time.Parse(time.DateOnly, in.Applied)
		switch {
		case err != nil:
			f.Add("applied", "The applied date must be a date in the form YYYY-MM-DD.")
		case d.After(Date(now)):
			f.Add("applied", "The applied date may not be after today.")
		}
	}
	if in.StageID < 0 {
		f.Add("stage", msgStage)
	}
	validateResumeURL(f, in.ResumeURL)
	return f
}

// CandidatePatch is the input of UpdateCandidate; nil fields are left as
// they are.
type CandidatePatch struct {
	Name      *string `json:"name,omitempty"`
	Email     *string `json:"email,omitempty"`
	ResumeURL *string `json:"resume_url,omitempty"` // "": clears it
	Status    *string `json:"status,omitempty"`     // one of CandidateStatuses
	// Idempotency is the key of the call; nil: none.
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *CandidatePatch) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *CandidatePatch) SetUnread(err error) { in.Unread = err }

// Validate reports what is wrong with the patch without consulting
// storage; whether the email is taken is checked by UpdateCandidate.
func (p CandidatePatch) Validate() error { return inputVerdict(p.Unread, p.check().Err()) }

func (p CandidatePatch) check() FieldErrors {
	f := FieldErrors{}
	if p.Name == nil && p.Email == nil && p.ResumeURL == nil && p.Status == nil {
		f.Add("body", "At least one of name, email, resume_url, status is required.")
	}
	if p.Name != nil {
		validateCandidateName(f, *p.Name)
	}
	if p.Email != nil {
		validateEmail(f, *p.Email)
	}
	if p.ResumeURL != nil {
		validateResumeURL(f, *p.ResumeURL)
	}
	if p.Status != nil && !slices.Contains(CandidateStatuses, *p.Status) {
		f.Add("status", msgCandidateStatus)
	}
	return f
}

func validateCandidateName(f FieldErrors, name string) {
	switch n := utf8.RuneCountInString(strings.TrimSpace(name)); {
	case !checkText(f, "name", name):
	case n == 0:
		f.Add("name", "The name field is required.")
	case n > MaxCandidateNameLength:
		f.Add("name", "The name may not be greater than 255 characters.")
	}
}

func validateEmail(f FieldErrors, email string) {
	switch {
	case !checkText(f, "email", email):
	case email == "":
		f.Add("email", "The email field is required.")
	case utf8.RuneCountInString(email) > MaxEmailLength:
		f.Add("email", "The email may not be greater than 254 characters.")
	case !validEmail(email):
		f.Add("email", msgEmail)
	}
}

// validEmail reports whether s has one @ with something on each side, and
// no white space.
func validEmail(s string) bool {
	local, domain, ok := strings.Cut(s, "@")
	return ok && local != "" && domain != "" && !strings.Contains(domain, "@") &&
		strings.IndexFunc(s, unicode.IsSpace) < 0
}

// validateResumeURL checks a resume URL; "" is none.
func validateResumeURL(f FieldErrors, s string) {
	if !checkText(f, "resume_url", s) || s == "" {
		return
	}
	if utf8.RuneCountInString(s) > MaxResumeURLLength {
		f.Add("resume_url", "The resume url may not be greater than 2048 characters.")
		return
	}
	u, err := url.Parse(s)
	if err != nil || (!strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https")) || u.Host == "" ||
		strings.IndexFunc(s, unicode.IsSpace) >= 0 {
		f.Add("resume_url", msgResumeURL)
	}
}

// Intake is what adding a candidate to a job reads first, in one go: the
// job, the stage the candidate is to enter, and whether the email is taken.
type Intake struct {
	Job Job
	// Stage is the stage asked for, or the job's first when none was;
	// nil when the job has no such stage.
	Stage *Stage
	// EmailTaken: a candidate of the job has the email, in any letter case.
	EmailTaken bool
	// Drawn is the new candidate's id when drawn, else 0.
	Drawn int64
}

// AddCandidate adds a candidate to a job, active, in the stage asked for
// or the job's first, and returns it. Scope: candidates:write. Errors:
// unauthenticated, insufficient_scope, not_found, validation_failed (the
// fields; a stage of another job; an email another candidate of the job
// has, in any letter case), forbidden (the job is closed), conflict
// (idempotency key in flight).
func (s *Service) AddCandidate(ctx context.Context, jobID int64, in NewCandidate) (Result[Candidate], error) {
	c, err := authorize(ctx, OpAddCandidate)
	if err != nil {
		return Result[Candidate]{}, err
	}
	k, err := takeKey(OpAddCandidate, Ref{Job: jobID}, &in, &in.Idempotency)
	if err != nil {
		return Result[Candidate]{}, err
	}
	email := in.Email
	if !ValidText(email) {
		email = "" // no candidate has it; the check says what is wrong
	}
	load := func(tx Tx, kc KeyClaim) (Intake, error) {
		return tx.Candidates().Intake(ctx, IntakeParams{Viewer: c.user.ID, JobID: jobID, Stage: max(in.StageID, 0), Email: email, Draw: true, Claim: kc})
	}
	res, err := write(s, ctx, c, k, load, func(tx Tx, it Intake) (Candidate, error) {
		now := s.now()
		f := in.check(now)
		if it.Stage == nil && checkable(in.Unread, f, "stage") {
			f.Add("stage", msgStage)
		}
		if it.EmailTaken && checkable(in.Unread, f, "email") {
			f.Add("email", msgEmailTaken)
		}
		if err := inputVerdict(in.Unread, f.Err()); err != nil {
			return Candidate{}, err
		}
		if it.Job.Status == JobClosed {
			return Candidate{}, Errorf(EForbidden, msgJobClosed)
		}
		return s.insertCandidate(ctx, tx, c, it, in, it.Drawn, now)
	})
	return res, emailTaken(err)
}

// insertCandidate stores the candidate of an intake that passed its
// checks, with the id drawn for it (0: none), and logs it.
func (s *Service) insertCandidate(ctx context.Context, tx Tx, c Caller, it Intake, in NewCandidate, id int64, now time.Time) (Candidate, error) {
	applied := Date(now)
	if in.Applied != "" {
		applied, _ = time.Parse(time.DateOnly, in.Applied) // checked
	}
	cand, err := tx.Candidates().Insert(ctx, WriteCandidateParams{Candidate: Candidate{
		ID: id, JobID: it.Job.ID, TeamID: it.Job.TeamID, Name: strings.TrimSpace(in.Name), Email: in.Email,
		Applied: applied, StageID: it.Stage.ID, Stage: it.Stage.Name, Status: CandidateActive, ResumeURL: in.ResumeURL,
	}, At: now})
	if err != nil {
		return Candidate{}, err
	}
	changes := map[string]Change{
		"name":    {After: cand.Name},
		"email":   {After: cand.Email},
		"applied": {After: cand.Applied.Format(time.DateOnly)},
		"stage":   {After: cand.Stage},
		"status":  {After: cand.Status},
	}
	if cand.ResumeURL != "" {
		changes["resume_url"] = Change{After: cand.ResumeURL}
	}
	return cand, s.log(ctx, tx, c, cand.TeamID, cand.JobID, ActionCandidateCreated, SubjectCandidate, cand.ID, changes)
}

// UpdateCandidate changes the name, email, resume URL or status of a
// candidate; any status may follow any. A patch that changes nothing
// writes nothing. A candidate leaving active cancels each of their
// scheduled interviews that ends after now, as CancelInterview does, in
// the same transaction and as the same caller. Scope: candidates:write.
// Errors: unauthenticated,
// insufficient_scope, not_found, validation_failed (the fields; an email
// another candidate of the job has, in any letter case), conflict
// (idempotency key in flight).
func (s *Service) UpdateCandidate(ctx context.Context, jobID, id int64, p CandidatePatch) (Result[Candidate], error) {
	c, err := authorize(ctx, OpUpdateCandidate)
	if err != nil {
		return Result[Candidate]{}, err
	}
	k, err := takeKey(OpUpdateCandidate, Ref{Job: jobID, Candidate: id}, &p, &p.Idempotency)
	if err != nil {
		return Result[Candidate]{}, err
	}
	// A status that may cancel the candidate's interviews: their locks are
	// taken with the candidate's, so that a change of one that takes
	// effect first comes first in the feed too.
	lock := LockCandidateParams{Viewer: c.user.ID, JobID: jobID, ID: id,
		Interviews: p.Status != nil && CancelsInterviews(CandidateActive, *p.Status)}
	load := func(tx Tx, kc KeyClaim) (Candidate, error) {
		lock.Claim = kc
		return lockCandidate(ctx, tx, lock)
	}
	res, err := write(s, ctx, c, k, load, func(tx Tx, cand Candidate) (Candidate, error) {
		f := p.check()
		// A taken email is otherwise left to the unique index; asked
		// first only when the answer is a 422 anyway, so that it names it.
		if (len(f) > 0 || p.Unread != nil) && p.Email != nil && checkable(p.Unread, f, "email") &&
			Fold(*p.Email) != Fold(cand.Email) {
			taken, err := tx.Candidates().EmailTaken(ctx, EmailTakenParams{JobID: cand.JobID, Email: *p.Email, Except: cand.ID})
			if err != nil {
				return Candidate{}, err
			}
			if taken {
				f.Add("email", msgEmailTaken)
			}
		}
		if err := inputVerdict(p.Unread, f.Err()); err != nil {
			return Candidate{}, err
		}
		// An erased candidate's status may still change, so that counts
		// and reports stay true; its person's fields may not come back.
		if cand.ErasedAt != nil && (p.Name != nil || p.Email != nil || p.ResumeURL != nil) {
			return Candidate{}, errErased()
		}
		before := cand.Status
		changes := p.apply(&cand)
		if len(changes) == 0 {
			return cand, nil
		}
		if err := tx.Candidates().Update(ctx, WriteCandidateParams{Candidate: cand, At: s.now()}); err != nil {
			return Candidate{}, err
		}
		if err := s.log(ctx, tx, c, cand.TeamID, cand.JobID, ActionCandidateUpdated, SubjectCandidate, cand.ID, changes); err != nil {
			return Candidate{}, err
		}
		if CancelsInterviews(before, cand.Status) {
			return cand, s.cancelInterviewsOf(ctx, tx, c, cand)
		}
		return cand, nil
	})
	return res, emailTaken(err)
}

// apply changes k as p says and returns what changed; an empty resume URL
// is logged as null.
func (p CandidatePatch) apply(k *Candidate) map[string]Change {
	changes := map[string]Change{}
	set := func(name string, field *string, v *string, shown func(string) any) {
		if v != nil && *v != *field {
			changes[name] = Change{Before: shown(*field), After: shown(*v)}
			*field = *v
		}
	}
	asIs := func(s string) any { return s }
	orNull := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	if p.Name != nil {
		name := strings.TrimSpace(*p.Name)
		set("name", &k.Name, &name, asIs)
	}
	set("email", &k.Email, p.Email, asIs)
	set("resume_url", &k.ResumeURL, p.ResumeURL, orNull)
	set("status", &k.Status, p.Status, asIs)
	return changes
}

// emailTaken is err with the store's ErrEmailTaken, which a unique index
// may report only once the write is sent, answered on the email.
func emailTaken(err error) error {
	if errors.Is(err, ErrEmailTaken) {
		return Invalid("email", msgEmailTaken)
	}
	return err
}
