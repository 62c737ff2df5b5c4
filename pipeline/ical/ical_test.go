package ical_test

import (
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/ical"
)

func invitation(status string, seq int) pipeline.Invitation {
	start := time.Date(2027, 3, 1, 9, 30, 0, 0, time.UTC)
	method := pipeline.MethodRequest
	if status == pipeline.InterviewCancelled {
		method = pipeline.MethodCancel
	}
	return pipeline.Invitation{
		UID: "interview-7@hiring.example.test", Method: method,
		Organizer: pipeline.User{Name: "Acme Hiring", Email: "jobs@acme.example"},
		Interview: pipeline.Interview{
			ID: 7, Start: start, End: start.Add(90 * time.Minute), Timezone: "Europe/Paris",
			Location: "Room 4, floor 2;\r\nBUILDING A", VideoURL: "https://meet.example.test/abc?x=1;y=2",
			Interviewers: []pipeline.User{
				{ID: 1, Name: "Olivia Owner", Email: "olivia@acme.test"},
				{ID: 2, Name: `Mia "M" O'Brien, PhD`, Email: "mia@acme.test"},
			},
			Status: status, Sequence: seq, CandidateName: "Ada Lovelace", CandidateEmail: "ada@example.test",
			CreatedAt: start.Add(-48 * time.Hour), UpdatedAt: start.Add(-24 * time.Hour),
		},
	}
}

// parse reads what Render wrote back with the library, and its one event.
func parse(t *testing.T, b []byte) (*ics.Calendar, *ics.VEvent) {
	t.Helper()
	cal, err := ics.ParseCalendar(strings.NewReader(string(b)))
	require.NoError(t, err)
	require.Len(t, cal.Events(), 1)
	return cal, cal.Events()[0]
}

func prop(c interface {
	GetProperty(ics.ComponentProperty) *ics.IANAProperty
}, p ics.ComponentProperty) string {
	if v := c.GetProperty(p); v != nil {
		return v.Value
	}
	return ""
}

func calProp(cal *ics.Calendar, p ics.Property) string {
	for _, cp := range cal.CalendarProperties {
		if cp.IANAToken == string(p) {
			return cp.Value
		}
	}
	return ""
}

func TestRender(t *testing.T) {
	t.Run("a request", func(t *testing.T) {
		b := ical.Render(invitation(pipeline.InterviewScheduled, 0))
		assert.True(t, strings.HasSuffix(string(b), "\r\n"), "lines end in CRLF")
		for line := range strings.SplitSeq(strings.TrimSuffix(string(b), "\r\n"), "\r\n") {
			assert.LessOrEqual(t, len(line), 75, "lines are folded at 75 octets: %q", line)
		}
		cal, ev := parse(t, b)
		assert.Equal(t, "REQUEST", calProp(cal, ics.PropertyMethod))
		assert.Equal(t, "2.0", calProp(cal, ics.PropertyVersion))
		assert.Equal(t, "Europe/Paris", calProp(cal, ics.PropertyXWRTimezone))
		assert.Equal(t, "interview-7@hiring.example.test", ev.Id())
		assert.Equal(t, "0", prop(ev, ics.ComponentPropertySequence))
		assert.Equal(t, "CONFIRMED", prop(ev, ics.ComponentPropertyStatus))
		assert.Equal(t, "20270301T093000Z", prop(ev, ics.ComponentPropertyDtStart), "in UTC")
		assert.Equal(t, "20270301T110000Z", prop(ev, ics.ComponentPropertyDtEnd))
		assert.Equal(t, "20270228T093000Z", prop(ev, ics.ComponentPropertyDtstamp))
		start, err := ev.GetStartAt()
		require.NoError(t, err)
		assert.True(t, start.Equal(time.Date(2027, 3, 1, 9, 30, 0, 0, time.UTC)))
		assert.Equal(t, "Room 4, floor 2;\nBUILDING A", ics.FromText(prop(ev, ics.ComponentPropertyLocation)), "text escaped and read back")
		assert.Equal(t, "https://meet.example.test/abc?x=1;y=2", prop(ev, ics.ComponentPropertyUrl))
		assert.Contains(t, ics.FromText(prop(ev, ics.ComponentPropertyDescription)), "Monday 1 March 2027, 10:30–12:00 (Europe/Paris)",
			"the time shown in the interview's time zone")
		org := ev.GetProperty(ics.ComponentPropertyOrganizer)
		require.NotNil(t, org)
		assert.Equal(t, "mailto:jobs@acme.example", org.Value)
		assert.Equal(t, []string{"Acme Hiring"}, org.ICalParameters["CN"])
		var emails []string
		for _, a := range ev.Attendees() {
			emails = append(emails, a.Email())
			assert.Equal(t, []string{"NEEDS-ACTION"}, a.ICalParameters["PARTSTAT"])
		}
		assert.Equal(t, []string{"olivia@acme.test", "mia@acme.test", "ada@example.test"}, emails, "each interviewer and the candidate")
	})
	t.Run("a cancellation", func(t *testing.T) {
		cal, ev := parse(t, ical.Render(invitation(pipeline.InterviewCancelled, 2)))
		assert.Equal(t, "CANCEL", calProp(cal, ics.PropertyMethod))
		assert.Equal(t, "CANCELLED", prop(ev, ics.ComponentPropertyStatus))
		assert.Equal(t, "2", prop(ev, ics.ComponentPropertySequence))
		assert.Equal(t, "interview-7@hiring.example.test", ev.Id())
	})
	t.Run("a cancellation for the interviewers a change removed", func(t *testing.T) {
		inv := invitation(pipeline.InterviewScheduled, 3)
		inv.Method = pipeline.MethodCancel
		inv.Removed = []pipeline.User{{ID: 3, Name: "Ken Thompson", Email: "ken@acme.test"}}
		cal, ev := parse(t, ical.Render(inv))
		assert.Equal(t, "CANCEL", calProp(cal, ics.PropertyMethod))
		assert.Empty(t, prop(ev, ics.ComponentPropertyStatus), "the interview goes on")
		assert.Equal(t, "3", prop(ev, ics.ComponentPropertySequence))
		assert.Equal(t, "interview-7@hiring.example.test", ev.Id())
		require.Len(t, ev.Attendees(), 1)
		assert.Equal(t, "ken@acme.test", ev.Attendees()[0].Email(), "only the removed")
	})
	t.Run("the same invitation, the same bytes", func(t *testing.T) {
		assert.Equal(t, ical.Render(invitation(pipeline.InterviewScheduled, 1)), ical.Render(invitation(pipeline.InterviewScheduled, 1)))
	})
	t.Run("no line can be injected", func(t *testing.T) {
		inv := invitation(pipeline.InterviewScheduled, 0)
		inv.Interview.CandidateName = "Ada\r\nATTENDEE:mailto:evil@example.test"
		inv.Interview.Interviewers[0].Name = "Olivia\r\nX-EVIL:1"
		b := string(ical.Render(inv))
		assert.NotContains(t, b, "\r\nATTENDEE:mailto:evil")
		assert.NotContains(t, b, "\r\nX-EVIL")
		_, ev := parse(t, []byte(b))
		assert.Len(t, ev.Attendees(), 3)
	})
}

func TestRender_Names(t *testing.T) {
	// Each name as the records hold it, read back by the library's parser;
	// RFC 5545 allows all of these inside a quoted parameter value.
	names := []string{
		"O'Brien, Jane; Ph.D: x",
		"Zoë Łukasiewicz-Ørsted, née 山田",
		"  two  spaces  ",
		"A name long enough that its line is folded: " + strings.Repeat("Bartholomew ", 8),
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			inv := invitation(pipeline.InterviewScheduled, 0)
			inv.Organizer.Name = name
			inv.Interview.Interviewers[0].Name = name
			inv.Interview.CandidateName = name
			b := ical.Render(inv)
			for line := range strings.SplitSeq(strings.TrimSuffix(string(b), "\r\n"), "\r\n") {
				assert.LessOrEqual(t, len(line), 75, "lines are folded at 75 octets: %q", line)
			}
			_, ev := parse(t, b)
			org := ev.GetProperty(ics.ComponentPropertyOrganizer)
			require.NotNil(t, org)
			assert.Equal(t, []string{name}, org.ICalParameters["CN"])
			assert.Equal(t, "mailto:jobs@acme.example", org.Value)
			attendees := ev.Attendees()
			require.Len(t, attendees, 3)
			assert.Equal(t, []string{name}, attendees[0].ICalParameters["CN"])
			assert.Equal(t, []string{name}, attendees[2].ICalParameters["CN"])
			assert.Equal(t, "ada@example.test", attendees[2].Email())
			assert.Equal(t, []string{"NEEDS-ACTION"}, attendees[2].ICalParameters["PARTSTAT"], "the other parameters stay")
			assert.Equal(t, []string{"true"}, attendees[2].ICalParameters["RSVP"])
		})
	}
	t.Run("a double quote and a caret, as RFC 6868 encodes them", func(t *testing.T) {
		b := string(ical.Render(invitation(pipeline.InterviewScheduled, 0)))
		unfolded := strings.ReplaceAll(b, "\r\n ", "")
		assert.Contains(t, unfolded, `ATTENDEE;CN="Mia ^'M^' O'Brien, PhD";`)
		inv := invitation(pipeline.InterviewScheduled, 0)
		inv.Interview.CandidateName = "x^y"
		_, ev := parse(t, ical.Render(inv))
		assert.Equal(t, []string{"x^^y"}, ev.Attendees()[2].ICalParameters["CN"])
	})
}
