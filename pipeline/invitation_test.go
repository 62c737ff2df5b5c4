package pipeline_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/ical"
	"github.com/pipeline-dev/pipeline/pipeline/mail/mailtest"
)

// invitationMail is an invitation mail as received: its headers, its
// text, and its calendar object, read from the text/calendar alternative
// with the method that part's type names.
type invitationMail struct {
	To, Subject, MessageID string
	Text                   string
	Method                 string // the text/calendar part's method parameter
	Raw                    []byte // the calendar object as sent
	Attached               []byte // invite.ics
	Cal                    *ics.Calendar
	Event                  *ics.VEvent
}

// readInvitation parses an invitation mail with net/mail, mime/multipart
// and the iCalendar library.
func readInvitation(t *testing.T, r mailtest.Received) invitationMail {
	t.Helper()
	msg := r.Message(t)
	dec := new(mime.WordDecoder)
	subject, err := dec.DecodeHeader(msg.Header.Get("Subject"))
	require.NoError(t, err)
	require.Len(t, r.To, 1)
	out := invitationMail{To: r.To[0], Subject: subject, MessageID: msg.Header.Get("Message-ID")}
	walkParts(t, msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body, "", &out)
	require.NotNil(t, out.Raw, "a text/calendar part")
	cal, err := ics.ParseCalendar(strings.NewReader(string(out.Raw)))
	require.NoError(t, err)
	require.Len(t, cal.Events(), 1)
	out.Cal, out.Event = cal, cal.Events()[0]
	return out
}

// walkParts reads the parts of a MIME entity into out.
func walkParts(t *testing.T, contentType, encoding string, body io.Reader, disposition string, out *invitationMail) {
	t.Helper()
	mt, params, err := mime.ParseMediaType(contentType)
	require.NoError(t, err)
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				return
			}
			require.NoError(t, err)
			walkParts(t, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p, p.Header.Get("Content-Disposition"), out)
		}
	}
	if strings.EqualFold(encoding, "base64") {
		body = base64.NewDecoder(base64.StdEncoding, body)
	}
	b, err := io.ReadAll(body)
	require.NoError(t, err)
	switch {
	case strings.HasPrefix(disposition, "attachment"):
		out.Attached = b
	case mt == "text/calendar":
		out.Method, out.Raw = params["method"], b
	case mt == "text/plain":
		out.Text = string(b)
	}
}

// prop is the value of an event's property, "" when it has none.
func prop(ev *ics.VEvent, p ics.ComponentProperty) string {
	if v := ev.GetProperty(p); v != nil {
		return v.Value
	}
	return ""
}

// calMethod is a calendar's METHOD.
func calMethod(cal *ics.Calendar) string {
	for _, cp := range cal.CalendarProperties {
		if cp.IANAToken == string(ics.PropertyMethod) {
			return cp.Value
		}
	}
	return ""
}

// attendees are the emails of an event's attendees, sorted.
func attendees(ev *ics.VEvent) []string {
	var out []string
	for _, a := range ev.Attendees() {
		out = append(out, a.Email())
	}
	slices.Sort(out)
	return out
}

// waitInvitations waits for n mails in all on s and returns those from
// the mail number from, read.
func waitInvitations(t *testing.T, s *mailtest.Server, from, n int) []invitationMail {
	t.Helper()
	got := s.WaitReceived(t, n, 30*time.Second)
	var out []invitationMail
	for _, r := range got[from:n] {
		out = append(out, readInvitation(t, r))
	}
	return out
}

func TestInvitations_Lifecycle(t *testing.T) {
	eachWorld(t, "a request, an update and a cancellation to each person, one UID", func(t *testing.T, w world) {
		s := mailtest.Start(t, mailtest.Options{})
		sendQueueInOrder(t, w.DB, s)
		ctx, job, ada := w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"]
		res, err := w.Svc.ScheduleInterview(ctx, job, ada, pipeline.NewInterview{
			Start: slotAt(2, 0), End: slotAt(3, 0), Timezone: "Europe/Paris", Location: "Room 1",
			VideoURL: "https://meet.example.test/x", InterviewerIDs: []int64{w.User("mia"), w.User("olivia")},
		})
		require.NoError(t, err)
		iv := res.Value
		uid := iv.UID
		assert.Regexp(t, fmt.Sprintf(`^interview-%d-[0-9a-f]{16}@acme\.example$`, iv.ID), uid)
		people := []string{"ada@example.test", "mia@acme.test", "olivia@acme.test"}
		check := func(t *testing.T, mails []invitationMail, method string, seq int, subject string, start time.Time) {
			t.Helper()
			var to []string
			for _, m := range mails {
				to = append(to, m.To)
				assert.Equal(t, subject, m.Subject)
				assert.Equal(t, method, m.Method, "the part's method")
				assert.Equal(t, method, calMethod(m.Cal))
				assert.Equal(t, uid, m.Event.Id())
				assert.Equal(t, strconv.Itoa(seq), prop(m.Event, ics.ComponentPropertySequence))
				assert.Equal(t, start.Format("20060102T150405Z"), prop(m.Event, ics.ComponentPropertyDtStart), "in UTC")
				assert.Equal(t, start.Add(time.Hour).Format("20060102T150405Z"), prop(m.Event, ics.ComponentPropertyDtEnd))
				assert.Equal(t, "mailto:jobs@acme.example", strings.ToLower(prop(m.Event, ics.ComponentPropertyOrganizer)))
				assert.Equal(t, people, attendees(m.Event))
				assert.Equal(t, m.Raw, m.Attached, "attached as invite.ics too")
				assert.Contains(t, m.Text, "(Europe/Paris)")
				assert.Contains(t, m.Text, start.Format("15:04")+"–"+start.Add(time.Hour).Format("15:04")+" (UTC)")
				assert.Contains(t, m.Text, "Room 1")
				assert.Contains(t, m.Text, "https://meet.example.test/x")
				assert.Regexp(t, fmt.Sprintf(`^<invitation-%d-%d-\d+@acme\.example>$`, iv.ID, seq), m.MessageID)
			}
			slices.Sort(to)
			assert.Equal(t, people, to, "each interviewer and the candidate, once")
		}
		what := "Interview with Ada Lovelace for Backend Engineer"
		check(t, waitInvitations(t, s, 0, 3), "REQUEST", 0, "Invitation: "+what, slotTime(t, 2, 0))

		_, err = w.Svc.RescheduleInterview(ctx, job, ada, iv.ID, pipeline.InterviewPatch{Start: new(slotAt(4, 0)), End: new(slotAt(5, 0))})
		require.NoError(t, err)
		check(t, waitInvitations(t, s, 3, 6), "REQUEST", 1, "Updated invitation: "+what, slotTime(t, 4, 0))

		_, err = w.Svc.CancelInterview(ctx, job, ada, iv.ID, pipeline.InterviewCancellation{})
		require.NoError(t, err)
		cancelled := waitInvitations(t, s, 6, 9)
		check(t, cancelled, "CANCEL", 2, "Cancelled: "+what, slotTime(t, 4, 0))
		inv, err := w.Svc.GetInterviewInvite(ctx, job, ada, iv.ID)
		require.NoError(t, err)
		assert.Equal(t, string(ical.Render(inv)), string(cancelled[0].Raw), "invite.ics is what was sent")

		_, err = w.Svc.CancelInterview(ctx, job, ada, iv.ID, pipeline.InterviewCancellation{})
		require.NoError(t, err)
		assert.Len(t, mailsBeforeMarker(t, w, s, time.Time{}), 9, "nothing more; cancelling again sends nothing")
		list, err := w.Svc.ListMessages(ctx, job, ada, pipeline.MessageFilter{})
		require.NoError(t, err)
		assert.Empty(t, list.Items, "invitations are not messages")
	})
}

func TestInvitations_ReadByPython(t *testing.T) {
	eachWorld(t, "the subject, the To and each ATTENDEE named exactly", func(t *testing.T, w world) {
		s := mailtest.Start(t, mailtest.Options{})
		sendQueue(t, w.DB, s)
		ctx, job, ada := w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"]
		name := "O'Brien, Jane; Ph.D: x — Zoë"
		_, err := w.Svc.UpdateCandidate(ctx, job, ada, pipeline.CandidatePatch{Name: new(name)})
		require.NoError(t, err)
		_, err = w.Svc.ScheduleInterview(ctx, job, ada, interviewAt(w, 2, "mia"))
		require.NoError(t, err)
		got := s.WaitReceived(t, 2, 30*time.Second)
		for _, r := range got {
			py := r.Python(t)
			assert.Equal(t, "Invitation: Interview with "+name+" for Backend Engineer", py.Subject)
			assert.Empty(t, py.Defects)
			require.Len(t, py.To, 1)
			if py.To[0].Address == "ada@example.test" {
				assert.Equal(t, name, py.To[0].Name, "the candidate's name")
			}
			// The calendar as Python's email took it out of the mail, read
			// by the iCalendar library.
			cal, err := ics.ParseCalendar(strings.NewReader(py.Calendar))
			require.NoError(t, err)
			require.Len(t, cal.Events(), 1)
			names := map[string][]string{}
			for _, a := range cal.Events()[0].Attendees() {
				names[a.Email()] = a.ICalParameters[string(ics.ParameterCn)]
			}
			assert.Equal(t, []string{name}, names["ada@example.test"], "the candidate's name as the record has it")
			assert.Len(t, names, 2)
		}
	})
}

func TestInvitations_RemovedInterviewer(t *testing.T) {
	eachWorld(t, "an interviewer taken off gets a cancellation, the others the update", func(t *testing.T, w world) {
		s := mailtest.Start(t, mailtest.Options{})
		sendQueueInOrder(t, w.DB, s)
		ctx, job, ada := w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"]
		res, err := w.Svc.ScheduleInterview(ctx, job, ada, pipeline.NewInterview{
			Start: slotAt(2, 0), End: slotAt(3, 0), Timezone: "UTC", InterviewerIDs: []int64{w.User("mia"), w.User("olivia")},
		})
		require.NoError(t, err)
		iv := res.Value
		waitInvitations(t, s, 0, 3)

		_, err = w.Svc.RescheduleInterview(ctx, job, ada, iv.ID, pipeline.InterviewPatch{InterviewerIDs: &[]int64{w.User("olivia")}})
		require.NoError(t, err)
		mails := waitInvitations(t, s, 3, 6)
		byTo := map[string]invitationMail{}
		for _, m := range mails {
			byTo[m.To] = m
		}
		require.Len(t, byTo, 3, "one mail each")
		what := "Interview with Ada Lovelace for Backend Engineer"
		for _, to := range []string{"ada@example.test", "olivia@acme.test"} {
			m := byTo[to]
			assert.Equal(t, "REQUEST", m.Method, to)
			assert.Equal(t, "Updated invitation: "+what, m.Subject, to)
			assert.Equal(t, []string{"ada@example.test", "olivia@acme.test"}, attendees(m.Event), to)
		}
		mia := byTo["mia@acme.test"]
		assert.Equal(t, "CANCEL", mia.Method)
		assert.Equal(t, "CANCEL", calMethod(mia.Cal))
		assert.Equal(t, "No longer invited: "+what, mia.Subject)
		assert.Contains(t, mia.Text, "You are no longer an interviewer of this interview.")
		assert.Equal(t, iv.UID, mia.Event.Id(), "the same calendar entry")
		assert.Equal(t, "1", prop(mia.Event, ics.ComponentPropertySequence))
		assert.Empty(t, prop(mia.Event, ics.ComponentPropertyStatus), "not the whole interview")
		assert.Equal(t, []string{"mia@acme.test"}, attendees(mia.Event))

		_, err = w.Svc.RescheduleInterview(ctx, job, ada, iv.ID, pipeline.InterviewPatch{Location: new("Room 2")})
		require.NoError(t, err)
		waitInvitations(t, s, 6, 8)
		assert.Len(t, mailsBeforeMarker(t, w, s, time.Time{}), 8, "a change that removes nobody cancels for nobody")
	})
}

func TestInvitations_NotSent(t *testing.T) {
	eachWorld(t, "without mail, interviews work and nothing is queued", func(t *testing.T, w world) {
		s := mailtest.Start(t, mailtest.Options{})
		ctx, job, ada := w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"]
		noMail := pipeline.NewService(w.DB, pipeline.WithInvitations(ical.Render))
		res, err := noMail.ScheduleInterview(ctx, job, ada, interviewAt(w, 1, "mia"))
		require.NoError(t, err)
		_, err = noMail.RescheduleInterview(ctx, job, ada, res.Value.ID, pipeline.InterviewPatch{Location: new("Room 2")})
		require.NoError(t, err)
		_, err = noMail.CancelInterview(ctx, job, ada, res.Value.ID, pipeline.InterviewCancellation{})
		require.NoError(t, err)
		// Sent from a Service with mail: the queue runs, and sends only
		// those.
		// In order, any mail the other Service queued would come first.
		after := schedule(t, w, 3, "mia")
		sendQueueInOrder(t, w.DB, s)
		got := waitInvitations(t, s, 0, 2)
		for _, m := range got {
			assert.Equal(t, after.UID, m.Event.Id(), "only the invitations of the Service with mail")
		}
	})
	eachWorld(t, "a write that rolled back sends nothing", func(t *testing.T, w world) {
		s := mailtest.Start(t, mailtest.Options{})
		ctx, job, ada := w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"]
		first := schedule(t, w, 1, "mia")
		_, err := w.Svc.ScheduleInterview(ctx, job, w.Res.Candidates["grace"], interviewAt(w, 1, "mia", "olivia"))
		require.ErrorIs(t, err, pipeline.ErrConflict, "mia is booked")
		_, err = w.Svc.RescheduleInterview(ctx, job, ada, first.ID, pipeline.InterviewPatch{Timezone: new("Mars/Olympus")})
		require.ErrorIs(t, err, pipeline.ErrValidation)
		rolledBack := errors.New("rolled back")
		err = w.DB.Write(context.Background(), func(tx pipeline.Tx) error {
			require.NoError(t, tx.Invitations().Insert(context.Background(), []pipeline.InvitationMail{{
				InterviewID: first.ID, Sequence: 7, Method: pipeline.MethodRequest,
				To: pipeline.User{Name: "Never", Email: "never@example.test"}, Subject: "Never", Body: "x",
				Calendar: []byte("x"), Status: pipeline.MessageQueued, CreatedAt: time.Now(),
			}}))
			return rolledBack
		})
		require.ErrorIs(t, err, rolledBack)
		sendQueueInOrder(t, w.DB, s)
		got := waitInvitations(t, s, 0, 2)
		assert.Len(t, mailsBeforeMarker(t, w, s, time.Time{}), 2, "only the committed schedule's")
		for _, m := range got {
			assert.Equal(t, first.UID, m.Event.Id())
			assert.Equal(t, "0", prop(m.Event, ics.ComponentPropertySequence))
		}
	})
}

func TestInvitations_Retry(t *testing.T) {
	eachWorld(t, "451 is retried with the same Message-ID", func(t *testing.T, w world) {
		s := mailtest.Start(t, mailtest.Options{})
		s.Script(mailtest.Temporary)
		sendQueue(t, w.DB, s)
		schedule(t, w, 1, "mia")
		got := s.WaitReceived(t, 3, 30*time.Second)
		ids := map[string][]mailtest.Reply{}
		for _, r := range got {
			id := r.Message(t).Header.Get("Message-ID")
			ids[id] = append(ids[id], r.Reply)
		}
		require.Len(t, ids, 2, "one mail to mia, one to ada")
		var retried string
		for id, replies := range ids {
			if len(replies) == 2 {
				retried = id
				assert.Equal(t, []mailtest.Reply{mailtest.Temporary, mailtest.Accept}, replies)
			}
		}
		require.NotEmpty(t, retried, "the refused mail came again")
		n, err := strconv.ParseInt(retried[strings.LastIndex(retried, "-")+1:strings.Index(retried, "@")], 10, 64)
		require.NoError(t, err)
		deadline := time.Now().Add(30 * time.Second)
		for {
			m, err := w.DB.Invitations().ToSend(context.Background(), pipeline.InvitationByIDParams{ID: n})
			require.NoError(t, err)
			if m.Status != pipeline.MessageQueued || time.Now().After(deadline) {
				assert.Equal(t, pipeline.MessageSent, m.Status)
				assert.Equal(t, 2, m.Attempts)
				assert.Contains(t, m.LastError, "451")
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}
