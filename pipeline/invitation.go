package pipeline

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Calendar is who invitations to interviews come from, as a new
// interview stores it: the UID of its invitations,
// interview-{id}-{16 random hex digits}@{Domain}, and their organizer, kept
// for the interview's whole life whatever the settings become.
type Calendar struct {
	Domain string
	// Organizer is the invitations' organizer; its zero value:
	// noreply@{Domain}.
	Organizer User
}

// DefaultCalendar is the Calendar of a Service without WithCalendar or
// WithMail: the domain localhost, the organizer noreply@localhost.
func DefaultCalendar() Calendar { return Calendar{Domain: "localhost"} }

// WithCalendar sets who invitations to interviews come from when mail is
// not configured (a program names the host of its base URL); the default
// is DefaultCalendar. With mail configured (WithMail) the From address
// takes its place.
func WithCalendar(c Calendar) Option { return func(o *options) { o.calendar = &c } }

// calendarOf is the Calendar of the options. With mail, invitations come
// from the From address: its domain completes the UIDs and it is the
// organizer, so that invite.ics and the emails agree.
func (o options) calendarOf() Calendar {
	cal := DefaultCalendar()
	switch {
	case o.mail != nil:
		cal = Calendar{Domain: mailDomain(o.mail.From), Organizer: User{Name: o.mail.From.Name, Email: o.mail.From.Address}}
	case o.calendar != nil && o.calendar.Domain != "":
		cal = *o.calendar
	}
	cal.Domain = strings.ToLower(cal.Domain)
	if cal.Organizer.Email == "" {
		cal.Organizer = User{Email: "noreply@" + cal.Domain}
	}
	return cal
}

// uid is a new UID of the invitations of interview id: its id, 16 random
// hex digits so that two installations never share one, and the domain.
func (cal Calendar) uid(id int64) (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "interview-" + strconv.FormatInt(id, 10) + "-" + hex.EncodeToString(b) + "@" + cal.Domain, nil
}

// set sets the UID and the organizer of the interview iv once it has an
// id; before, it leaves them unset.
func (cal Calendar) set(iv *Interview) error {
	if iv.ID == 0 {
		return nil
	}
	uid, err := cal.uid(iv.ID)
	if err != nil {
		return err
	}
	iv.UID, iv.Organizer = uid, cal.Organizer
	return nil
}

// InvitationRenderer writes an invitation as the iCalendar object its
// emails carry; package pipeline/ical's Render is one.
type InvitationRenderer func(Invitation) []byte

// WithInvitations has a Service with mail configured (WithMail) email
// each change of an interview to its interviewers and its candidate, the
// invitation written by render. Without it, or without mail, interviews
// work and no invitation is sent.
func WithInvitations(render InvitationRenderer) Option { return func(o *options) { o.render = render } }

// Invitation methods (RFC 5546).
const (
	MethodRequest = "REQUEST"
	MethodCancel  = "CANCEL"
)

// Invitation is an interview as its invitation carries it: the calendar
// entry's UID, the method (a request while scheduled, a cancellation once
// cancelled) and the organizer.
type Invitation struct {
	Interview Interview
	UID       string
	Method    string
	Organizer User // Name and Email
	// Removed, on a cancellation of a scheduled interview, are the
	// interviewers a change took off it, whom alone it cancels the
	// interview for (RFC 5546 §3.2.5).
	Removed []User
	// First, on a request, says its recipients never had the interview
	// (interviewers a change added): it is worded as a new invitation.
	First bool
}

// ForRemoved reports whether inv cancels a scheduled interview only for
// the interviewers a change removed (Removed).
func (inv Invitation) ForRemoved() bool { return inv.Method == MethodCancel && len(inv.Removed) > 0 }

// invitation is iv's invitation, with the UID and organizer iv stored
// when it was scheduled.
func invitation(iv Interview) Invitation {
	inv := Invitation{Interview: iv, UID: iv.UID, Method: MethodRequest, Organizer: iv.Organizer}
	if iv.Status == InterviewCancelled {
		inv.Method = MethodCancel
	}
	return inv
}

// GetInterviewInvite returns an interview of a candidate of a job as its
// invitation carries it. Scope: candidates:read. Errors: unauthenticated,
// insufficient_scope, not_found.
func (s *Service) GetInterviewInvite(ctx context.Context, jobID, candidateID, id int64) (Invitation, error) {
	iv, err := s.GetInterview(ctx, jobID, candidateID, id)
	if err != nil {
		return Invitation{}, err
	}
	return invitation(iv), nil
}

// InvitationMail is one email of an interview's invitation to one person,
// queued in the transaction of the change it tells of, with its content
// as it was then: the invitation of sequence N says what N was, however
// the interview changed since.
type InvitationMail struct {
	ID          int64
	InterviewID int64
	Sequence    int
	Method      string // MethodRequest or MethodCancel
	To          User   // Name and Email
	Subject     string
	Body        string // text/plain
	Calendar    []byte // the invitation as an iCalendar object
	Status      string // queued, sent or failed (as a message's)
	Attempts    int
	LastError   string // the last failed attempt's reply or error; "": none
	CreatedAt   time.Time
}

// invite enqueues, in the write's transaction, the invitation of an
// interview as it now is to each of its interviewers and its candidate.
// Without mail configured, or without a renderer, none is sent.
func (s *Service) invite(ctx context.Context, tx Tx, iv Interview) error {
	to := append(slices.Clone(iv.Interviewers), User{Name: iv.CandidateName, Email: iv.CandidateEmail})
	return s.mailInvitation(ctx, tx, invitation(iv), to)
}

// reinvite enqueues, in a change's transaction, the invitation of the
// interview as it now is: worded as a change to those who had it before,
// as a new invitation to the interviewers the change added.
func (s *Service) reinvite(ctx context.Context, tx Tx, before, iv Interview) error {
	var kept, added []User
	for _, u := range iv.Interviewers {
		if slices.ContainsFunc(before.Interviewers, func(v User) bool { return v.ID == u.ID }) {
			kept = append(kept, u)
		} else {
			added = append(added, u)
		}
	}
	kept = append(kept, User{Name: iv.CandidateName, Email: iv.CandidateEmail})
	if err := s.mailInvitation(ctx, tx, invitation(iv), kept); err != nil {
		return err
	}
	if len(added) == 0 {
		return nil
	}
	inv := invitation(iv)
	inv.First = true
	return s.mailInvitation(ctx, tx, inv, added)
}

// uninvite enqueues, in the change's transaction, a cancellation of the
// interview as it was before the change (the time they had), at the
// change's sequence, to each interviewer the change took off it, so that
// their calendars drop it.
func (s *Service) uninvite(ctx context.Context, tx Tx, before, iv Interview, removed []User) error {
	if len(removed) == 0 {
		return nil
	}
	before.Sequence, before.UpdatedAt = iv.Sequence, iv.UpdatedAt
	inv := invitation(before)
	inv.Method, inv.Removed = MethodCancel, removed
	return s.mailInvitation(ctx, tx, inv, removed)
}

// mailInvitation enqueues an email of inv to each of to. Without mail
// configured, or without a renderer, none is sent.
func (s *Service) mailInvitation(ctx context.Context, tx Tx, inv Invitation, to []User) error {
	if s.mail == nil || s.render == nil {
		return nil
	}
	ics := s.render(inv)
	subject, body := invitationText(inv)
	mails := make([]InvitationMail, len(to))
	for i, u := range to {
		mails[i] = InvitationMail{InterviewID: inv.Interview.ID, Sequence: inv.Interview.Sequence, Method: inv.Method, To: u,
			Subject: subject, Body: body, Calendar: ics, Status: MessageQueued, CreatedAt: s.now()}
	}
	return tx.Invitations().Insert(ctx, mails)
}

// removed are the interviewers of before that after no longer has.
func removed(before, after Interview) []User {
	var out []User
	for _, u := range before.Interviewers {
		if !slices.ContainsFunc(after.Interviewers, func(v User) bool { return v.ID == u.ID }) {
			out = append(out, u)
		}
	}
	return out
}

// invitationText is the subject and the plain text of an invitation: the
// time in UTC and in the interview's time zone, the place and the
// interviewers.
func invitationText(inv Invitation) (subject, body string) {
	iv := inv.Interview
	what := "Interview with " + oneLine(iv.CandidateName)
	if iv.JobTitle != "" {
		what += " for " + oneLine(iv.JobTitle)
	}
	var b strings.Builder
	switch {
	case inv.ForRemoved():
		subject = "No longer invited: " + what
		b.WriteString("You are no longer an interviewer of this interview.\n\n")
	case inv.Method == MethodCancel:
		subject = "Cancelled: " + what
		b.WriteString("This interview is cancelled.\n\n")
	case iv.Sequence > 0 && !inv.First:
		subject = "Updated invitation: " + what
		b.WriteString("This interview has changed.\n\n")
	default:
		subject = "Invitation: " + what
	}
	b.WriteString(what + ".\n\n")
	loc, err := time.LoadLocation(iv.Timezone)
	if err != nil {
		loc = time.UTC
	}
	b.WriteString("When:  " + span(iv.Start.In(loc), iv.End.In(loc)) + " (" + iv.Timezone + ")\n")
	if loc.String() != "UTC" {
		b.WriteString("       " + span(iv.Start.UTC(), iv.End.UTC()) + " (UTC)\n")
	}
	if iv.Location != "" {
		b.WriteString("Where: " + iv.Location + "\n")
	}
	if iv.VideoURL != "" {
		b.WriteString("Video: " + iv.VideoURL + "\n")
	}
	names := make([]string, len(iv.Interviewers))
	for i, u := range iv.Interviewers {
		names[i] = u.Name
	}
	b.WriteString("Interviewers: " + strings.Join(names, ", ") + "\n")
	return subject, b.String()
}

// span is a time from start to end, each in its own location, the date
// written once when they share it.
func span(start, end time.Time) string {
	const day, clock = "Monday 2 January 2006, ", "15:04"
	if start.Format(day) == end.Format(day) {
		return start.Format(day+clock) + "–" + end.Format(clock)
	}
	return start.Format(day+clock) + " – " + end.Format(day+clock)
}

// oneLine is s with each control character, a line break included, a
// space: a subject is one line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}

// InvitationStore is what the Postman reads and records of invitation
// mails outside a write.
type InvitationStore interface {
	// ToSend returns an invitation mail by id, for its queue, as the last
	// committed write left it; not_found when it is gone.
	ToSend(ctx context.Context, p InvitationByIDParams) (InvitationMail, error)
	// RecordAttempt stores the outcome of an attempt of an invitation
	// mail (a.MessageID is its id): its count, error and status, and the
	// time a sent one was sent. As with MessageTx.RecordAttempt, a retry
	// or a failure changes only a queued mail, and a sent outcome any: a
	// sent outcome wins over a failure reported before or after it, in
	// whichever order the two commit.
	RecordAttempt(ctx context.Context, a MessageAttempt) error
}

// InvitationByIDParams names an invitation mail by its id alone.
type InvitationByIDParams struct {
	ID int64
}

// InvitationTx is what a write transaction does to invitation mails.
type InvitationTx interface {
	// Insert stores queued invitation mails and enqueues, in the same
	// transaction, the sending of each. The mails of one change of an
	// interview (its id and sequence) are all queued in one transaction:
	// a store may name a mail by its place among them.
	Insert(ctx context.Context, ms []InvitationMail) error
}
