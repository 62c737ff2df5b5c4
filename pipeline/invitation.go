package pipeline

import (
	"context"
	"os"
	"strconv"
	"strings"
)

// Calendar is who invitations to interviews come from.
type Calendar struct {
	// Domain completes the UID of each interview's invitations,
	// interview-{id}@{Domain}, kept for the interview's whole life.
	Domain string
	// Organizer is the invitations' organizer; its zero value: the user
	// who scheduled the interview.
	Organizer User
}

// DefaultCalendar is the Calendar of a Service without WithCalendar: the
// domain is the host's name (localhost when it has none), the organizer
// whoever scheduled the interview.
func DefaultCalendar() Calendar {
	host, err := os.Hostname()
	if err != nil || strings.TrimSpace(host) == "" {
		host = "localhost"
	}
	return Calendar{Domain: strings.ToLower(host)}
}

// WithCalendar sets who invitations to interviews come from; the default
// is DefaultCalendar.
func WithCalendar(c Calendar) Option { return func(o *options) { o.calendar = &c } }

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
}

// invitation is iv's invitation from cal.
func (cal Calendar) invitation(iv Interview) Invitation {
	inv := Invitation{Interview: iv, UID: "interview-" + strconv.FormatInt(iv.ID, 10) + "@" + cal.Domain,
		Method: MethodRequest, Organizer: cal.Organizer}
	if iv.Status == InterviewCancelled {
		inv.Method = MethodCancel
	}
	if inv.Organizer.Email == "" {
		inv.Organizer = iv.CreatedBy
	}
	return inv
}

// InterviewInvite returns an interview of a candidate of a job as its
// invitation carries it. Scope: candidates:read. Errors: unauthenticated,
// insufficient_scope, not_found.
func (s *Service) InterviewInvite(ctx context.Context, jobID, candidateID, id int64) (Invitation, error) {
	iv, err := s.Interview(ctx, jobID, candidateID, id)
	if err != nil {
		return Invitation{}, err
	}
	return s.calendar.invitation(iv), nil
}
