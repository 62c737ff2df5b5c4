package pipeline

import (
	"context"
	"errors"
	"slices"
	"time"
)

// SubjectInterview is the subject type of the interview.* activity entries.
const SubjectInterview = "interview"

// ScheduleInterview schedules an interview of a candidate of a job and
// returns it, scheduled, at sequence 0. Scope: scheduling:write. Errors:
// unauthenticated, insufficient_scope, not_found, validation_failed (the
// fields; an interviewer who is not a member of the job's team), forbidden
// (the candidate is not active), conflict (an interviewer or the candidate
// is booked at that time, with the busy times as details; idempotency key
// in flight).
func (s *Service) ScheduleInterview(ctx context.Context, jobID, candidateID int64, in NewInterview) (Result[Interview], error) {
	c, err := authorize(ctx, OpScheduleInterview)
	if err != nil {
		return Result[Interview]{}, err
	}
	k, err := takeKey(OpScheduleInterview, Ref{Job: jobID, Candidate: candidateID}, &in, &in.Idempotency)
	if err != nil {
		return Result[Interview]{}, err
	}
	var booking BusyQuery
	load := func(tx Tx, kc KeyClaim) (LockedCandidate, error) {
		return tx.Candidates().Lock(ctx, LockCandidateParams{Viewer: c.user.ID, JobID: jobID, ID: candidateID, Draw: SubjectInterview, Claim: kc})
	}
	res, err := write(s, ctx, c, k, load, func(tx Tx, l LockedCandidate) (Interview, error) {
		cand, now := l.Candidate, s.now()
		iv := Interview{JobID: cand.JobID, CandidateID: cand.ID, TeamID: cand.TeamID, CandidateStatus: cand.Status,
			CandidateName: cand.Name, CandidateEmail: cand.Email, CandidateErased: cand.ErasedAt != nil, Status: InterviewScheduled,
			CreatedBy: c.user, CreatedAt: now, UpdatedAt: now}
		if err := s.checkSlot(ctx, tx, &iv, nil, FieldErrors{}, in.slot(), in.Unread, now); err != nil {
			return Interview{}, err
		}
		booking = iv.booking()
		// The UID names the id: stored with the insert when the id was
		// drawn, else once the insert has assigned it.
		iv.ID, iv.JobTitle = l.Drawn, l.JobTitle
		if err := s.calendar.set(&iv); err != nil {
			return Interview{}, err
		}
		iv, err := tx.Interviews().Insert(ctx, iv)
		if err != nil {
			return Interview{}, err
		}
		if iv.UID == "" {
			if err := s.calendar.set(&iv); err != nil {
				return Interview{}, err
			}
			if err := tx.Interviews().SetCalendar(ctx, iv); err != nil {
				return Interview{}, err
			}
		}
		return iv, s.logInterview(ctx, tx, c, iv, ActionInterviewScheduled, scheduledChanges(iv))
	})
	return res, s.booked(ctx, err, booking)
}

// checkSlot checks the fields sc of iv as they are to be, and sets them on
// iv: the fields themselves and whether the interviewers are members of
// the team (known: of some, as its lock read them), in one
// validation_failed with what f holds already, then whether the candidate
// is active (forbidden).
func (s *Service) checkSlot(ctx context.Context, tx Tx, iv *Interview, known []TeamMember, f FieldErrors, sc slotCheck, unread error, now time.Time) error {
	start, end := sc.check(f, now)
	var users []User
	if checkable(unread, f, "interviewer_ids") {
		var err error
		if users, err = tx.Interviews().Interviewers(ctx, InterviewersParams{TeamID: iv.TeamID, IDs: sc.interviewerIDs, Known: known}); err != nil {
			return err
		}
		if len(users) != len(sc.interviewerIDs) {
			f.Add("interviewer_ids", msgNotTeamMember)
		}
	}
	if err := inputVerdict(unread, f.Err()); err != nil {
		return err
	}
	if iv.CandidateStatus != CandidateActive {
		return Errorf(EForbidden, msgNotActive)
	}
	if iv.CandidateErased {
		return errErased()
	}
	iv.Start, iv.End, iv.Timezone = start, end, sc.timezone
	if iv.Timezone == "" {
		iv.Timezone = "UTC"
	}
	iv.Location, iv.VideoURL, iv.Interviewers = sc.location, sc.videoURL, users
	return nil
}

// booking is the query of the busy times iv would clash with.
func (iv Interview) booking() BusyQuery {
	return BusyQuery{UserIDs: iv.interviewerIDs(), CandidateID: iv.CandidateID, From: iv.Start, To: iv.End, Except: iv.ID}
}

// booked is err with the store's ErrBooked, which the database may report
// once the transaction rolled back, answered as a conflict whose details
// are the busy times that clash, read again.
func (s *Service) booked(ctx context.Context, err error, q BusyQuery) error {
	if !errors.Is(err, ErrBooked) {
		return err
	}
	busy, err := s.store.Interviews().Busy(ctx, q)
	if err != nil {
		return err
	}
	return &Error{Code: EConflict, Message: msgBooked, Details: BusyDetails{Busy: busy}}
}

// scheduledChanges are the fields of a new interview, each from null.
func scheduledChanges(iv Interview) map[string]Change {
	changes := map[string]Change{
		"start":           {After: iv.Start.Format(time.RFC3339)},
		"end":             {After: iv.End.Format(time.RFC3339)},
		"timezone":        {After: iv.Timezone},
		"interviewer_ids": {After: iv.interviewerIDs()},
		"status":          {After: iv.Status},
	}
	if iv.Location != "" {
		changes["location"] = Change{After: iv.Location}
	}
	if iv.VideoURL != "" {
		changes["video_url"] = Change{After: iv.VideoURL}
	}
	return changes
}

// logInterview logs a change of an interview, and sends its invitations.
func (s *Service) logInterview(ctx context.Context, tx Tx, c Caller, iv Interview, action string, changes map[string]Change) error {
	if err := s.log(ctx, tx, c, iv.TeamID, iv.JobID, action, SubjectInterview, iv.ID, changes); err != nil {
		return err
	}
	return s.invite(ctx, tx, iv)
}

// RescheduleInterview changes any of the start, end, time zone,
// interviewers, location and video URL of a scheduled interview; a change
// adds 1 to its sequence. A patch that changes nothing writes nothing.
// Scope: scheduling:write. Errors: unauthenticated, insufficient_scope,
// not_found, validation_failed, forbidden (the interview is cancelled; the
// candidate is not active), conflict (as ScheduleInterview).
func (s *Service) RescheduleInterview(ctx context.Context, jobID, candidateID, id int64, p InterviewPatch) (Result[Interview], error) {
	c, err := authorize(ctx, OpRescheduleInterview)
	if err != nil {
		return Result[Interview]{}, err
	}
	k, err := takeKey(OpRescheduleInterview, Ref{Job: jobID, Candidate: candidateID, Interview: id}, &p, &p.Idempotency)
	if err != nil {
		return Result[Interview]{}, err
	}
	var booking BusyQuery
	res, err := write(s, ctx, c, k, s.loadInterview(ctx, c, jobID, candidateID, id), func(tx Tx, l LockedInterview) (Interview, error) {
		f := FieldErrors{}
		if p.checkSent(f); len(f) > 0 {
			return Interview{}, inputVerdict(p.Unread, f.Err()) // nothing sent: no slot to judge
		}
		iv, before := l.Interview, l.Interview
		if err := s.checkSlot(ctx, tx, &iv, l.Interviewers, f, p.slot(before), p.Unread, s.now()); err != nil {
			return Interview{}, err
		}
		if before.Status == InterviewCancelled {
			return Interview{}, Errorf(EForbidden, msgCancelled)
		}
		changes := rescheduled(before, iv)
		if len(changes) == 0 {
			return before, nil
		}
		iv.Sequence++
		iv.UpdatedAt = s.now()
		booking = iv.booking()
		if err := tx.Interviews().Update(ctx, iv); err != nil {
			return Interview{}, err
		}
		if err := s.log(ctx, tx, c, iv.TeamID, iv.JobID, ActionInterviewRescheduled, SubjectInterview, iv.ID, changes); err != nil {
			return Interview{}, err
		}
		if err := s.reinvite(ctx, tx, before, iv); err != nil {
			return Interview{}, err
		}
		return iv, s.uninvite(ctx, tx, before, iv, removed(before, iv))
	})
	return res, s.booked(ctx, err, booking)
}

// rescheduled is what changed from before to after, each field as
// {before, after}; the interviewers change when the set of them does.
func rescheduled(before, after Interview) map[string]Change {
	changes := map[string]Change{}
	orNull := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	if !before.Start.Equal(after.Start) {
		changes["start"] = Change{Before: before.Start.Format(time.RFC3339), After: after.Start.Format(time.RFC3339)}
	}
	if !before.End.Equal(after.End) {
		changes["end"] = Change{Before: before.End.Format(time.RFC3339), After: after.End.Format(time.RFC3339)}
	}
	if before.Timezone != after.Timezone {
		changes["timezone"] = Change{Before: before.Timezone, After: after.Timezone}
	}
	if !slices.Equal(distinct(before.interviewerIDs()), distinct(after.interviewerIDs())) {
		changes["interviewer_ids"] = Change{Before: before.interviewerIDs(), After: after.interviewerIDs()}
	}
	if before.Location != after.Location {
		changes["location"] = Change{Before: orNull(before.Location), After: orNull(after.Location)}
	}
	if before.VideoURL != after.VideoURL {
		changes["video_url"] = Change{Before: orNull(before.VideoURL), After: orNull(after.VideoURL)}
	}
	return changes
}

// loadInterview finds, for a write, an interview of a candidate of a job
// the caller can reach, and locks it.
func (s *Service) loadInterview(ctx context.Context, c Caller, jobID, candidateID, id int64) func(Tx, KeyClaim) (LockedInterview, error) {
	return func(tx Tx, kc KeyClaim) (LockedInterview, error) {
		return tx.Interviews().Lock(ctx, LockInterviewParams{Viewer: c.user.ID, JobID: jobID, CandidateID: candidateID, ID: id, Claim: kc})
	}
}

// InterviewCancellation is the input of CancelInterview.
type InterviewCancellation struct {
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *InterviewCancellation) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *InterviewCancellation) SetUnread(err error) { in.Unread = err }

// CancelInterview cancels a scheduled interview, adding 1 to its
// sequence, and returns it; a cancelled one is returned unchanged. Scope:
// scheduling:write. Errors: unauthenticated, insufficient_scope,
// not_found, validation_failed (what could not be read), conflict
// (idempotency key in flight).
func (s *Service) CancelInterview(ctx context.Context, jobID, candidateID, id int64, in InterviewCancellation) (Result[Interview], error) {
	c, err := authorize(ctx, OpCancelInterview)
	if err != nil {
		return Result[Interview]{}, err
	}
	k, err := takeKey(OpCancelInterview, Ref{Job: jobID, Candidate: candidateID, Interview: id}, &in, &in.Idempotency)
	if err != nil {
		return Result[Interview]{}, err
	}
	return write(s, ctx, c, k, s.loadInterview(ctx, c, jobID, candidateID, id), func(tx Tx, l LockedInterview) (Interview, error) {
		iv := l.Interview
		if in.Unread != nil {
			return Interview{}, in.Unread
		}
		if iv.Status == InterviewCancelled {
			return iv, nil
		}
		if iv.CandidateErased {
			return Interview{}, errErased()
		}
		return s.cancelInterview(ctx, tx, c, iv)
	})
}

// cancelInterview cancels the scheduled interview iv, locked, as c's
// act: its sequence grows by 1, the cancellation is logged and its
// invitations are sent.
func (s *Service) cancelInterview(ctx context.Context, tx Tx, c Caller, iv Interview) (Interview, error) {
	iv.Status, iv.Sequence, iv.UpdatedAt = InterviewCancelled, iv.Sequence+1, s.now()
	if err := tx.Interviews().Update(ctx, iv); err != nil {
		return Interview{}, err
	}
	changes := map[string]Change{"status": {Before: InterviewScheduled, After: InterviewCancelled}}
	return iv, s.logInterview(ctx, tx, c, iv, ActionInterviewCancelled, changes)
}

// CancelsInterviews reports whether a candidate's status change from
// before to after cancels their scheduled interviews that end after now
// (see Interview.CancelledOnLeaving): a candidate who left the running is
// interviewed no more.
func CancelsInterviews(before, after string) bool {
	return before == CandidateActive && after != CandidateActive
}

// CancelledOnLeaving reports whether iv is cancelled at now when its
// candidate leaves the running (see CancelsInterviews).
func (iv Interview) CancelledOnLeaving(now time.Time) bool {
	return iv.Status == InterviewScheduled && iv.End.After(now)
}

// cancelInterviewsOf cancels, as c's act, each scheduled interview of the
// candidate cand that ends after now: a candidate who left the running
// is interviewed no more.
func (s *Service) cancelInterviewsOf(ctx context.Context, tx Tx, c Caller, cand Candidate) error {
	ivs, err := tx.Interviews().LockScheduled(ctx, LockScheduledParams{CandidateID: cand.ID, EndsAfter: s.now()})
	if err != nil {
		return err
	}
	for _, iv := range ivs {
		if _, err := s.cancelInterview(ctx, tx, c, iv); err != nil {
			return err
		}
	}
	return nil
}

// InterviewFilter selects a page of a candidate's interviews. The zero
// value selects the first page.
type InterviewFilter struct {
	Page int // from 1; 0: the first page
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error
}

// SetUnread sets what a face could not read of the request.
func (in *InterviewFilter) SetUnread(err error) { in.Unread = err }

// ListInterviews returns a page of the interviews of a candidate of a
// job, by start (then id). Scope: candidates:read. Errors:
// unauthenticated, insufficient_scope, not_found, validation_failed
// (page).
func (s *Service) ListInterviews(ctx context.Context, jobID, candidateID int64, f InterviewFilter) (List[Interview], error) {
	c, err := authorize(ctx, OpListInterviews)
	if err != nil {
		return List[Interview]{}, err
	}
	bad := FieldErrors{}
	if f.Page < 0 {
		bad.Add("page", msgPage)
	}
	if err := inputVerdict(f.Unread, bad.Err()); err != nil {
		// Not found comes before invalid.
		if _, err := s.store.Candidates().Get(ctx, CandidateParams{Viewer: c.user.ID, JobID: jobID, ID: candidateID}); err != nil {
			return List[Interview]{}, err
		}
		return List[Interview]{}, err
	}
	return s.store.Interviews().List(ctx, ListInterviewsParams{Viewer: c.user.ID, JobID: jobID, CandidateID: candidateID, Page: max(f.Page, 1)})
}

// GetInterview returns an interview of a candidate of a job. Scope:
// candidates:read. Errors: unauthenticated, insufficient_scope, not_found
// (also for an interview of another candidate).
func (s *Service) GetInterview(ctx context.Context, jobID, candidateID, id int64) (Interview, error) {
	c, err := authorize(ctx, OpGetInterview)
	if err != nil {
		return Interview{}, err
	}
	return s.store.Interviews().Get(ctx, InterviewParams{Viewer: c.user.ID, JobID: jobID, CandidateID: candidateID, ID: id})
}

// GetAvailability returns the busy times, from scheduled interviews, of
// members of the caller's current team in a window of at most 31 days:
// one entry per user, in the order asked, each by start. Scope:
// scheduling:write. Errors: unauthenticated, insufficient_scope,
// validation_failed (user_ids, a user who is no member of the team
// included; from; to).
func (s *Service) GetAvailability(ctx context.Context, q AvailabilityQuery) ([]UserBusy, error) {
	c, err := authorize(ctx, OpGetAvailability)
	if err != nil {
		return nil, err
	}
	f := FieldErrors{}
	from, to := q.check(f)
	var ids []int64 // as asked, each once
	for _, id := range q.UserIDs {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if checkable(q.Unread, f, "user_ids") {
		users, err := s.store.Users().InTeam(ctx, TeamUsersParams{TeamID: c.team.ID, IDs: ids})
		if err != nil {
			return nil, err
		}
		if len(users) != len(ids) {
			f.Add("user_ids", "Each user must be a member of the token's current team.")
		}
	}
	if err := inputVerdict(q.Unread, f.Err()); err != nil {
		return nil, err
	}
	busy, err := s.store.Interviews().Busy(ctx, BusyQuery{UserIDs: ids, From: from, To: to})
	if err != nil {
		return nil, err
	}
	out := make([]UserBusy, len(ids))
	for i, id := range ids {
		out[i] = UserBusy{UserID: id, Busy: []Busy{}}
		for _, b := range busy {
			if b.UserID == id {
				out[i].Busy = append(out[i].Busy, Busy{Start: b.Start, End: b.End})
			}
		}
	}
	return out, nil
}

// The operations on interviews (invitation.go holds the invite).
const (
	OpScheduleInterview   Op = "schedule_interview"
	OpListInterviews      Op = "list_interviews"
	OpGetInterview        Op = "get_interview"
	OpRescheduleInterview Op = "reschedule_interview"
	OpCancelInterview     Op = "cancel_interview"
	OpGetInterviewInvite  Op = "get_interview_invite"
	OpGetAvailability     Op = "get_availability"
)

// interviewPath is the path of one interview, below /api/v1.
const interviewPath = candidatePath + "/interviews/{interview}"

// interviewOps are the rows of opTable for these operations, in the order of
// the API's document.
var interviewOps = []opRow{
	{OpScheduleInterview, opTraits{ScopeSchedulingWrite, mPost, candidatePath + "/interviews", forbids | conflicts | creates}, runs(onCandidate((*Service).ScheduleInterview), Interview.Record), &Words{Title: "Schedule an interview",
		Description: "Schedules an interview of an active candidate with 1 to 10 interviewers of the job's team and returns it (POST .../candidates/{candidate}/interviews). " +
			"15 minutes to 8 hours, starting from now to 365 days ahead. An interviewer or the candidate already booked at an overlapping time is conflict, whose details list the busy times. " +
			"Each call schedules one: send an idempotency_key to retry safely."}, Doc{
		Tag: "Interviews", Summary: "Schedule an interview",
		Description: "Scope: `scheduling:write`. Schedules an interview of the candidate with 1 to 10 " +
			"interviewers, each a member of the job's team; it is `scheduled`, at `sequence` 0. The checks, in " +
			"order: the fields (422, each field named: `timezone` not an IANA name; on `end`, an end not after " +
			"the start or a length outside 15 minutes to 8 hours; on `start`, a start in the past or more than " +
			"365 days ahead; on `interviewer_ids`, none, more than 10, one listed twice or one who is not a " +
			"member of the job's team; `location` over 255 characters; `video_url` not an `https` URL of at most " +
			"2,048 characters), then a candidate who is not `active` (403 `forbidden`), then double booking: an " +
			"interviewer or the candidate who already has a `scheduled` interview overlapping `[start, end)` " +
			"answers 409 `conflict` with the busy times in `details`. Back-to-back interviews (one's end the " +
			"next one's start) do not overlap. Of overlapping bookings made at the same moment, on any number of " +
			"replicas, exactly one succeeds. Logged as `interview.scheduled`, each field from `null`.",
		Success: "The interview was scheduled (or this is the replay of its scheduling).",
		Invalid: "`validation_failed`: a field breaks a rule listed above, is not valid text, has the wrong type " +
			"or is not taken, the body is not a JSON object, or the `Idempotency-Key` is invalid or was used for " +
			"a different request.",
	}},
	{OpListInterviews, opTraits{ScopeCandidatesRead, mGet, candidatePath + "/interviews", 0}, nil, &Words{Title: "List a candidate's interviews", Description: "A page of 15 of a candidate's interviews, scheduled and cancelled, by start, with links and meta (GET .../candidates/{candidate}/interviews)."}, Doc{
		Tag: "Interviews", Summary: "List a candidate's interviews",
		Description: "Scope: `candidates:read`. The candidate's interviews, `scheduled` and `cancelled`, by " +
			"`start` (then `id`), 15 a page.",
		Success: "A page of interviews.",
		Invalid: invalidPage,
	}},
	{OpGetInterview, opTraits{ScopeCandidatesRead, mGet, interviewPath, 0}, nil, &Words{Title: "Get an interview", Description: "One interview of a candidate (GET .../interviews/{interview})."}, Doc{
		Tag: "Interviews", Summary: "Read an interview",
		Description: "Scope: `candidates:read`. One interview of the candidate.",
		Success:     "The interview.",
	}},
	{OpRescheduleInterview, opTraits{ScopeSchedulingWrite, mPatch, interviewPath, forbids | conflicts}, runs(onRecord(interviewOf, (*Service).RescheduleInterview), Interview.Record), &Words{Title: "Reschedule an interview", Idempotent: true,
		Description: "Changes any of start, end, timezone, interviewer_ids, location and video_url (null clears the last two) of a scheduled interview, checked as schedule_interview checks them, and returns it " +
			"(PATCH .../interviews/{interview}); a change adds 1 to sequence. A cancelled interview is forbidden; an overlapping booking is conflict with the busy times."}, Doc{
		Tag: "Interviews", Summary: "Reschedule an interview",
		Description: "Scope: `scheduling:write`. Changes the fields sent, at least one of `start`, `end`, " +
			"`timezone`, `interviewer_ids`, `location` and `video_url` (`null` clears the last two), checked as " +
			"on scheduling against the other interviews (the interview's own old time does not count). A " +
			"cancelled interview answers 403 `forbidden`, after the body. A change adds 1 to `sequence` and is " +
			"logged as `interview.rescheduled` with the before and after of each field changed; a request that " +
			"changes nothing answers 200 and is not logged. With mail configured, the interviewers and the " +
			"candidate get the updated invitation, and each interviewer the change took off gets a " +
			"`METHOD:CANCEL` naming only them, without `STATUS:CANCELLED` (RFC 5546 §3.2.5).",
		Success: "The interview as it is now.",
		Invalid: "`validation_failed`: none of the fields was sent (reported under `body`), a field breaks a rule " +
			"of scheduling, has the wrong type or is not taken, or the `Idempotency-Key` is invalid or was used " +
			"for a different request.",
	}},
	{OpCancelInterview, opTraits{ScopeSchedulingWrite, mPost, interviewPath + "/cancel", 0}, runs(onRecord(interviewOf, (*Service).CancelInterview), Interview.Record), &Words{Title: "Cancel an interview", Idempotent: true,
		Description: "Cancels an interview, adding 1 to its sequence, and returns it (POST .../interviews/{interview}/cancel); a cancelled one is returned unchanged."}, Doc{
		Tag: "Interviews", Summary: "Cancel an interview",
		Description: "Scope: `scheduling:write`. The interview becomes `cancelled`, its `sequence` grows by 1, its " +
			"time is free again, and it is logged as `interview.cancelled`. A cancelled interview answers 200 " +
			"unchanged and is not logged. Its body takes only a `reason`.",
		Success: "The interview, cancelled.",
		Invalid: invalidReasonOnly,
	}},
	{OpGetInterviewInvite, opTraits{ScopeCandidatesRead, mGet, interviewPath + "/invite.ics", 0}, nil, nil, Doc{
		Tag: "Interviews", Summary: "Read an interview as iCalendar",
		Description: "Scope: `candidates:read`. The interview as its invitation carries it (RFC 5545): " +
			"`METHOD:REQUEST` while scheduled, `METHOD:CANCEL` with `STATUS:CANCELLED` once cancelled; `UID` " +
			"`interview-{id}-{16 random hex digits}@{domain}`, decided when the interview is scheduled and " +
			"stored, so that it never changes for the interview's whole life whatever the server's settings " +
			"become (the domain is that of `PIPELINE_MAIL_FROM`; without mail the host of `PIPELINE_BASE_URL`, " +
			"else `localhost`); `SEQUENCE` the interview's; `DTSTART` and `DTEND` in UTC, with the `timezone` " +
			"named for display (`X-WR-TIMEZONE` and the description); `ORGANIZER` the From address, stored with " +
			"the `UID` (without mail `noreply@{that host}`), and an `ATTENDEE` for each interviewer and the " +
			"candidate, named as their record names them. Not an MCP tool.",
		Success: "The iCalendar object.",
	}},
	{OpGetAvailability, opTraits{ScopeSchedulingWrite, mGet, "/availability", 0}, nil, &Words{Title: "Read availability",
		Description: "The busy times, from scheduled interviews, of members of the token's current team between from and to (at most 31 days), one entry per user " +
			"(GET /api/v1/availability?user_ids=3,7&from=…&to=…). Never tells whose interviews they are."}, Doc{
		Tag: "Interviews", Summary: "Read when team members are busy",
		Description: "Scope: `scheduling:write`. The busy times, from `scheduled` interviews, of members of the " +
			"token's current team in a window of at most 31 days, one entry per user: when they are busy, never " +
			"whose or which interviews those are.",
		Success: "The busy times.",
		Invalid: "`validation_failed`: `user_ids` is missing, not ids separated by commas, lists more than 50 " +
			"users or a user who is not a member of the token's current team; `from` or `to` is missing or not " +
			"an RFC 3339 date and time with an offset; `to` is not after `from` or more than 31 days after it.",
		Params: map[string]string{
			"user_ids": "Ids of members of the token's current team, separated by commas (`3,7`); at most 50.",
			"from":     "The window's start, RFC 3339 with an offset.",
			"to":       "The window's end, RFC 3339 with an offset, after `from` and at most 31 days after it.",
		},
	}},
}
