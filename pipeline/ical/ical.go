// Package ical writes an interview's invitation as an iCalendar object
// (RFC 5545) with its iTIP method (RFC 5546): what GET …/invite.ics
// answers, and what invitation emails carry. It is the edge where the
// domain meets the iCalendar library, so package pipeline imports none.
package ical

import (
	"strconv"
	"strings"
	"time"
	"unicode"

	ics "github.com/arran4/golang-ical"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// ContentType is the media type of what Render writes.
const ContentType = "text/calendar; charset=utf-8"

// productID names the software that wrote the object.
const productID = "-//pipeline-dev//pipeline interviews//EN"

// Render writes the invitation as an iCalendar object: METHOD:REQUEST for a
// scheduled interview, METHOD:CANCEL with STATUS:CANCELLED for a cancelled
// one; the event's UID is the invitation's, its SEQUENCE the interview's;
// DTSTART and DTEND are in UTC, the interview's time zone named for
// display (X-WR-TIMEZONE and the description); the organizer and each
// interviewer and the candidate are named. A cancellation for the
// interviewers a change removed names only them as attendees and has no
// STATUS, since the interview itself goes on (RFC 5546 §3.2.5). The same
// invitation always gives the same bytes: DTSTAMP is the interview's last
// change.
func Render(inv pipeline.Invitation) []byte {
	iv := inv.Interview
	cal := ics.NewCalendarFor("pipeline")
	cal.SetProductId(productID)
	cal.SetCalscale("GREGORIAN")
	cal.SetXWRTimezone(iv.Timezone)
	cal.SetMethod(ics.MethodRequest)
	status := ics.ObjectStatusConfirmed
	if inv.Method == pipeline.MethodCancel {
		cal.SetMethod(ics.MethodCancel)
		status = ics.ObjectStatusCancelled
	}
	ev := cal.AddEvent(inv.UID)
	ev.SetDtStampTime(iv.UpdatedAt)
	ev.SetCreatedTime(iv.CreatedAt)
	ev.SetModifiedAt(iv.UpdatedAt)
	ev.SetSequence(iv.Sequence)
	ev.SetStartAt(iv.Start)
	ev.SetEndAt(iv.End)
	if !inv.ForRemoved() {
		ev.SetStatus(status)
	}
	ev.SetSummary(text("Interview with " + iv.CandidateName))
	ev.SetDescription(text(description(iv)))
	if iv.Location != "" {
		ev.SetLocation(text(iv.Location))
	}
	if iv.VideoURL != "" {
		ev.SetURL(iv.VideoURL)
	}
	calAddress(ev, ics.ComponentPropertyOrganizer, inv.Organizer)
	if inv.ForRemoved() {
		for _, u := range inv.Removed {
			calAddress(ev, ics.ComponentPropertyAttendee, u, attendee...)
		}
		return []byte(cal.Serialize(ics.WithNewLineWindows))
	}
	for _, u := range iv.Interviewers {
		calAddress(ev, ics.ComponentPropertyAttendee, u, attendee...)
	}
	calAddress(ev, ics.ComponentPropertyAttendee, pipeline.User{Name: iv.CandidateName, Email: iv.CandidateEmail}, attendee...)
	return []byte(cal.Serialize(ics.WithNewLineWindows))
}

// attendee are the parameters of an attendee who is asked to answer.
var attendee = []ics.PropertyParameter{
	ics.ParticipationRoleReqParticipant, ics.ParticipationStatusNeedsAction, ics.CalendarUserTypeIndividual, ics.WithRSVP(true),
}

// calAddress adds property p (ORGANIZER or ATTENDEE) for u to ev: u's
// email, and u's name as its CN parameter. golang-ical v0.3.4 quotes only
// ALTREP and puts backslashes before the commas, semicolons, colons and
// quotes of other parameter values, which RFC 5545 does not define (other
// parsers keep the backslashes or split the name at its commas). So the
// CN, quoted, goes with the property's name; the library writes the other
// parameters and the value and folds the line as usual.
func calAddress(ev *ics.VEvent, p ics.ComponentProperty, u pipeline.User, params ...ics.PropertyParameter) {
	if cn := paramValue(u.Name); cn != `""` {
		p += ics.ComponentProperty(";" + string(ics.ParameterCn) + "=" + cn)
	}
	ev.AddProperty(p, "mailto:"+u.Email, params...)
}

// description tells the time in the interview's time zone, for people
// whose calendar shows another, and the video link.
func description(iv pipeline.Interview) string {
	var b strings.Builder
	loc, err := time.LoadLocation(iv.Timezone)
	if err != nil {
		loc = time.UTC
	}
	start, end := iv.Start.In(loc), iv.End.In(loc)
	b.WriteString("Interview with " + iv.CandidateName + ", " + start.Format("Monday 2 January 2006, 15:04") + "–" +
		end.Format("15:04") + " (" + iv.Timezone + ").")
	if iv.VideoURL != "" {
		b.WriteString("\nVideo: " + iv.VideoURL)
	}
	if iv.Location != "" {
		b.WriteString("\nLocation: " + iv.Location)
	}
	b.WriteString("\nInterviewers: ")
	for i, u := range iv.Interviewers {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(u.Name)
	}
	b.WriteString("\nSequence " + strconv.Itoa(iv.Sequence) + ".")
	return b.String()
}

// lineBreaks turns CRLF and CR into LF; caretEscapes writes ^ and " as RFC
// 6868 does. Built once: a Replacer is safe for concurrent use, and
// building one costs more than using it.
var (
	lineBreaks   = strings.NewReplacer("\r\n", "\n", "\r", "\n")
	caretEscapes = strings.NewReplacer("^", "^^", `"`, "^'")
)

// text is s with its line breaks as the line feeds that TEXT values
// escape, and no other control character, which could end a line.
func text(s string) string {
	s = lineBreaks.Replace(s)
	return strings.Map(func(r rune) rune {
		if r != '\n' && unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
}

// paramValue is s as a quoted parameter value (RFC 5545 §3.1), in which
// commas, semicolons, colons, apostrophes and backslashes stand as they
// are. A quoted value cannot hold a double quote, which becomes ^', and
// so ^ becomes ^^ (RFC 6868, the update of RFC 5545 for these); control
// characters, which no parameter value holds, become spaces.
func paramValue(s string) string {
	s = caretEscapes.Replace(s)
	return `"` + strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\t' {
			return ' '
		}
		return r
	}, s) + `"`
}
