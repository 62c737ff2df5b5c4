package pipeline

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // IANA names resolve on a host without a zoneinfo database
	"unicode"
	"unicode/utf8"
)

// Interview statuses.
const (
	InterviewScheduled = "scheduled"
	InterviewCancelled = "cancelled"
)

// Limits of an interview.
const (
	// MinInterviewLength and MaxInterviewLength bound an interview's length.
	MinInterviewLength = 15 * time.Minute
	MaxInterviewLength = 8 * time.Hour
	// MaxInterviewAhead is how far ahead an interview may start.
	MaxInterviewAhead = 365 * 24 * time.Hour
	// MaxInterviewers is the most interviewers an interview may have.
	MaxInterviewers = 10
	// MaxLocationLength is the longest location, in characters.
	MaxLocationLength = 255
	// MaxVideoURLLength is the longest video URL, in characters.
	MaxVideoURLLength = 2048
	// MaxAvailabilityWindow is the longest window Availability reads.
	MaxAvailabilityWindow = 31 * 24 * time.Hour
)

// Interview is a meeting of interviewers with a candidate of a job.
type Interview struct {
	ID          int64
	JobID       int64
	CandidateID int64
	TeamID      int64 // the team of the job
	Start, End  time.Time
	// Timezone is the IANA name the interview is shown to people in.
	Timezone     string
	Location     string
	VideoURL     string
	Interviewers []User // ID, Name and Email, in the order given
	Status       string
	// Sequence starts at 0 and grows by 1 with every change.
	Sequence int
	// UID is the calendar entry's UID of the interview's invitations, and
	// Organizer (Name and Email) their organizer: both decided when it is
	// scheduled (see Calendar) and never changed.
	UID       string
	Organizer User
	CreatedBy User // ID, Name and Email
	CreatedAt time.Time
	UpdatedAt time.Time
	// CandidateName and CandidateEmail are the candidate's, for
	// invitations; CandidateStatus is the candidate's status, for the
	// rules of a change.
	CandidateName, CandidateEmail, CandidateStatus string
	// CandidateErased: the candidate's person was erased.
	CandidateErased bool `json:",omitempty"`
	// JobTitle is the job's title, for invitations.
	JobTitle string
}

// interviewerIDs are the ids of the interview's interviewers, in order.
func (iv Interview) interviewerIDs() []int64 {
	ids := make([]int64, len(iv.Interviewers))
	for i, u := range iv.Interviewers {
		ids[i] = u.ID
	}
	return ids
}

// ErrBooked is what the store returns for an interview that would overlap
// a scheduled interview of one of its interviewers or of its candidate.
var ErrBooked = errors.New("pipeline: an interviewer or the candidate is booked at that time")

const msgBooked = "An interviewer or the candidate is already booked at that time."

// Busy is a time when a user (UserID) or a candidate (CandidateID) has a
// scheduled interview; it tells whose time it is, never which interview.
type Busy struct {
	UserID      int64     `json:"user_id,omitempty"`
	CandidateID int64     `json:"candidate_id,omitempty"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
}

// BusyDetails are the details of the conflict of a double booking.
type BusyDetails struct {
	Busy []Busy `json:"busy"`
}

// BusyQuery selects the busy times of users and a candidate that overlap
// [From, To).
type BusyQuery struct {
	UserIDs     []int64
	CandidateID int64 // 0: none
	From, To    time.Time
	// Except is an interview to leave out (the one being rescheduled); 0:
	// none.
	Except int64
}

// Messages of an interview's fields.
const (
	msgTimezone       = "The timezone must be an IANA time zone name, such as Europe/Paris."
	msgEndAfterStart  = "The end must be after the start."
	msgLength         = "The interview must last from 15 minutes to 8 hours."
	msgPast           = "The start may not be in the past."
	msgTooFarAhead    = "The start may not be more than 365 days ahead."
	msgInstant        = " must be an RFC 3339 date and time with an offset, such as 2026-01-05T10:00:00+01:00."
	msgInterviewers   = "The interviewer_ids must list 1 to 10 user ids."
	msgTwice          = "An interviewer may be listed only once."
	msgNotTeamMember  = "Each interviewer must be a member of the job's team."
	msgLocationLength = "The location may not be greater than 255 characters."
	msgVideoURL       = "The video url must be an absolute https URL."
	msgVideoURLLength = "The video url may not be greater than 2048 characters."
	msgNotActive      = "The candidate is not active."
	msgCancelled      = "The interview is cancelled."
)

// NewInterview is the input of ScheduleInterview.
type NewInterview struct {
	Start          string  `json:"start"` // RFC 3339 with an offset; required
	End            string  `json:"end"`
	Timezone       string  `json:"timezone,omitempty"`  // IANA name; "": UTC
	InterviewerIDs []int64 `json:"interviewer_ids"`     // 1–10 distinct members of the job's team
	Location       string  `json:"location,omitempty"`  // "": none
	VideoURL       string  `json:"video_url,omitempty"` // absolute https URL; "": none
	// Idempotency is the key of the call; nil: none.
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *NewInterview) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *NewInterview) SetUnread(err error) { in.Unread = err }

// InterviewPatch is the input of RescheduleInterview; nil fields are left
// as they are.
type InterviewPatch struct {
	Start          *string  `json:"start,omitempty"`
	End            *string  `json:"end,omitempty"`
	Timezone       *string  `json:"timezone,omitempty"`
	InterviewerIDs *[]int64 `json:"interviewer_ids,omitempty"`
	Location       *string  `json:"location,omitempty"`  // "": clears it
	VideoURL       *string  `json:"video_url,omitempty"` // "": clears it
	// Idempotency is the key of the call; nil: none.
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *InterviewPatch) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *InterviewPatch) SetUnread(err error) { in.Unread = err }

// slotCheck is an interview's fields as they are to be, checked field by
// field: what a new interview takes, or an interview with a patch applied.
type slotCheck struct {
	start, end     string
	startChanged   bool // the start is checked against now
	timezone       string
	interviewerIDs []int64
	location       string
	videoURL       string
}

// check records in f what is wrong with the fields, in the order of the
// API's rules, and returns the times read.
func (sc slotCheck) check(f FieldErrors, now time.Time) (start, end time.Time) {
	if checkText(f, "timezone", sc.timezone) && !validTimezone(sc.timezone) {
		f.Add("timezone", msgTimezone)
	}
	start, okStart := instant(f, "start", sc.start)
	end, okEnd := instant(f, "end", sc.end)
	if okStart && okEnd {
		switch length := end.Sub(start); {
		case length <= 0:
			f.Add("end", msgEndAfterStart)
		case length < MinInterviewLength, length > MaxInterviewLength:
			f.Add("end", msgLength)
		}
	}
	if okStart && sc.startChanged {
		switch {
		case start.Before(now):
			f.Add("start", msgPast)
		case start.After(now.Add(MaxInterviewAhead)):
			f.Add("start", msgTooFarAhead)
		}
	}
	checkInterviewerIDs(f, sc.interviewerIDs)
	if checkText(f, "location", sc.location) && utf8.RuneCountInString(sc.location) > MaxLocationLength {
		f.Add("location", msgLocationLength)
	}
	checkVideoURL(f, sc.videoURL)
	return start, end
}

// instant reads an RFC 3339 time with an offset, to the second, in UTC.
func instant(f FieldErrors, field, s string) (time.Time, bool) {
	if !checkText(f, field, s) {
		return time.Time{}, false
	}
	if s == "" {
		f.Add(field, "The "+field+" field is required.")
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		f.Add(field, "The "+field+msgInstant)
		return time.Time{}, false
	}
	return t.UTC().Truncate(time.Second), true
}

// validTimezone reports whether name is an IANA time zone name; "" is UTC.
func validTimezone(name string) bool {
	if name == "" {
		return true
	}
	if name == "Local" || strings.ContainsAny(name, `\ `) {
		return false
	}
	_, err := time.LoadLocation(name)
	return err == nil
}

func checkInterviewerIDs(f FieldErrors, ids []int64) {
	switch {
	case len(ids) == 0 || len(ids) > MaxInterviewers:
		f.Add("interviewer_ids", msgInterviewers)
	case slices.ContainsFunc(ids, func(id int64) bool { return id <= 0 }):
		f.Add("interviewer_ids", msgNotTeamMember)
	case len(distinct(ids)) != len(ids):
		f.Add("interviewer_ids", msgTwice)
	}
}

// distinct is ids sorted, without repeats.
func distinct(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

func checkVideoURL(f FieldErrors, s string) {
	if !checkText(f, "video_url", s) || s == "" {
		return
	}
	if utf8.RuneCountInString(s) > MaxVideoURLLength {
		f.Add("video_url", msgVideoURLLength)
		return
	}
	u, err := url.Parse(s)
	if err != nil || !strings.EqualFold(u.Scheme, "https") || u.Host == "" || strings.IndexFunc(s, unicode.IsSpace) >= 0 {
		f.Add("video_url", msgVideoURL)
	}
}

// slot is the input as it is to be checked.
func (in NewInterview) slot() slotCheck {
	return slotCheck{start: in.Start, end: in.End, startChanged: true, timezone: in.Timezone,
		interviewerIDs: in.InterviewerIDs, location: in.Location, videoURL: in.VideoURL}
}

// Validate reports what is wrong with the input without consulting
// storage or the clock; whether the interviewers are members of the job's
// team and the start is ahead are checked by ScheduleInterview.
func (in NewInterview) Validate() error {
	f := FieldErrors{}
	sc := in.slot()
	sc.startChanged = false
	sc.check(f, time.Time{})
	return inputVerdict(in.Unread, f.Err())
}

// Validate reports what is wrong with the patch on its own, without
// consulting storage or the clock.
func (p InterviewPatch) Validate() error {
	f := FieldErrors{}
	p.checkSent(f)
	return inputVerdict(p.Unread, f.Err())
}

// checkSent records what is wrong with the fields sent.
func (p InterviewPatch) checkSent(f FieldErrors) {
	if p.Start == nil && p.End == nil && p.Timezone == nil && p.InterviewerIDs == nil && p.Location == nil && p.VideoURL == nil {
		f.Add("body", "At least one of start, end, timezone, interviewer_ids, location, video_url is required.")
	}
}

// slot is the interview iv as the patch would leave it.
func (p InterviewPatch) slot(iv Interview) slotCheck {
	sc := slotCheck{start: iv.Start.Format(time.RFC3339), end: iv.End.Format(time.RFC3339), timezone: iv.Timezone,
		interviewerIDs: iv.interviewerIDs(), location: iv.Location, videoURL: iv.VideoURL}
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&sc.start, p.Start)
	set(&sc.end, p.End)
	set(&sc.timezone, p.Timezone)
	set(&sc.location, p.Location)
	set(&sc.videoURL, p.VideoURL)
	if p.InterviewerIDs != nil {
		sc.interviewerIDs = *p.InterviewerIDs
	}
	sc.startChanged = p.Start != nil
	return sc
}

// AvailabilityQuery is the input of Availability.
type AvailabilityQuery struct {
	UserIDs  []int64 // members of the caller's current team
	From, To string  // RFC 3339 with an offset; at most 31 days apart
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error
}

// SetUnread sets what a face could not read of the request.
func (in *AvailabilityQuery) SetUnread(err error) { in.Unread = err }

// check records in f what is wrong with the query and returns its window.
func (q AvailabilityQuery) check(f FieldErrors) (from, to time.Time) {
	if len(q.UserIDs) == 0 {
		f.Add("user_ids", "The user_ids parameter is required.")
	} else if len(q.UserIDs) > MaxAvailabilityUsers {
		f.Add("user_ids", "The user_ids parameter may list at most 50 users.")
	}
	from, okFrom := instant(f, "from", q.From)
	to, okTo := instant(f, "to", q.To)
	if okFrom && okTo {
		switch {
		case !to.After(from):
			f.Add("to", "The to must be after the from.")
		case to.Sub(from) > MaxAvailabilityWindow:
			f.Add("to", "The window may not be longer than 31 days.")
		}
	}
	return from, to
}

// MaxAvailabilityUsers is the most users one Availability call reads.
const MaxAvailabilityUsers = 50

// UserBusy is a user's busy times, by start.
type UserBusy struct {
	UserID int64
	Busy   []Busy
}

// InterviewStore is what the Service reads of interviews outside a write.
type InterviewStore interface {
	// Get returns an interview of a candidate of a job the viewer can
	// reach, with its interviewers.
	Get(ctx context.Context, p InterviewParams) (Interview, error)
	// List returns a page of the interviews of a candidate of a job the
	// viewer can reach, by start, then id.
	List(ctx context.Context, p ListInterviewsParams) (List[Interview], error)
	// Busy returns the times of the scheduled interviews q selects, by
	// start; a cancelled interview books nobody.
	Busy(ctx context.Context, q BusyQuery) ([]Busy, error)
}

// InterviewParams names an interview of a candidate of a job, read for a
// viewer.
type InterviewParams struct {
	Viewer, JobID, CandidateID, ID int64
}

// ListInterviewsParams selects a page of a candidate's interviews, read
// for a viewer.
type ListInterviewsParams struct {
	Viewer, JobID, CandidateID int64
	Page                       int // from 1
}

// InterviewTx is what a write transaction does to interviews. An
// interview it changes is one Lock or LockScheduled returned.
type InterviewTx interface {
	// Lock returns an interview of a candidate of a job the viewer can
	// reach, with its interviewers and its candidate's name, email,
	// status and erasure, locked. When the candidate's erasure
	// (PrivacyTx.Erase) or LockScheduled held the lock before, the
	// candidate reads as their transaction left it.
	Lock(ctx context.Context, p LockInterviewParams) (LockedInterview, error)
	// LockScheduled returns the scheduled interviews of a candidate that
	// end after a time, by start, with their interviewers and their
	// candidate's name, email and status, locked. Unless the transaction
	// holds them already, it locks all the candidate's interviews first:
	// a change of one that committed before is read as it left it (one
	// moved to end after the time is returned), and one that waits for
	// the lock reads the candidate as this transaction left it (Lock).
	LockScheduled(ctx context.Context, p LockScheduledParams) ([]Interview, error)
	// Insert stores an interview with its interviewers (and its UID and
	// organizer when set) and returns it with its id (its ID when drawn)
	// and its job's title. No double booking: two scheduled interviews of
	// one interviewer, or of one candidate, never overlap; an interview
	// occupies [start, end), so back-to-back ones do not, and a cancelled
	// one books nobody. Errors: ErrBooked (a scheduled interview of an
	// interviewer or of the candidate overlaps it), here or when the
	// transaction ends: of concurrent transactions booking overlapping
	// times, one commits.
	Insert(ctx context.Context, iv Interview) (Interview, error)
	// SetCalendar stores the UID and the organizer of an interview
	// Insert just stored.
	SetCalendar(ctx context.Context, iv Interview) error
	// Update stores the times, time zone, location, video URL,
	// interviewers, status, sequence and updated_at of a locked
	// interview. Errors: ErrBooked, as Insert; the interview's own former
	// time is no clash.
	Update(ctx context.Context, iv Interview) error
	// Interviewers returns the users among p.IDs who are members of a
	// team, who may interview for its jobs, in the order of p.IDs.
	Interviewers(ctx context.Context, p InterviewersParams) ([]User, error)
}

// LockInterviewParams is a write's read of the interview it is about.
type LockInterviewParams struct {
	Viewer, JobID, CandidateID, ID int64
	// Claim is as LockCandidateParams.Claim.
	Claim KeyClaim
}

// LockedInterview is what LockInterviewParams asked for.
type LockedInterview struct {
	Interview Interview
	// Interviewers are its interviewers, each with whether they are a
	// member of its team, when the read found that too (nil when not),
	// for InterviewersParams.Known.
	Interviewers []TeamMember
}

// TeamMember is a user and whether they are a member of a team, as a read
// found them.
type TeamMember struct {
	User   User
	Member bool
}

// LockScheduledParams selects the scheduled interviews of a candidate
// that end after a time.
type LockScheduledParams struct {
	CandidateID int64
	EndsAfter   time.Time
	// Held: the transaction holds the locks of all the candidate's
	// interviews already (PrivacyTx.Erase takes them), and takes none.
	Held bool
}

// InterviewersParams asks which of some users are members of a team.
type InterviewersParams struct {
	TeamID int64
	IDs    []int64
	// Known are users whose membership of the team was read already
	// (LockedInterview.Interviewers): when they include every one of
	// IDs, the answer is theirs, and nothing is read.
	Known []TeamMember
}
