package pipelinehttp

import (
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/mail/mailtest"
)

// hourFrom is the RFC 3339 text, in UTC, of h hours after the start of the
// hour two days after the env's clock.
func (e *env) hourFrom(h int) string {
	return e.clock.Now().UTC().Truncate(time.Hour).Add(time.Duration(48+h) * time.Hour).Format(time.RFC3339)
}

func interviewsPath(job, cand int64) string { return candidatePath(job, cand) + "/interviews" }

// scheduleAt schedules an hour's interview of ada on backend as olivia from
// hour h with the interviewers of the fixture user keys, and returns its
// body's data.
func (e *env) scheduleAt(t *testing.T, h int, interviewers ...string) map[string]any {
	t.Helper()
	r := e.do(t, "POST", interviewsPath(e.Res.Jobs["backend"], e.Res.Candidates["ada"]), e.token("olivia"), e.interviewBody(h, interviewers...))
	require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
	return r.Data(t)
}

func (e *env) interviewBody(h int, interviewers ...string) map[string]any {
	ids := []int64{}
	for _, u := range interviewers {
		ids = append(ids, e.User(u))
	}
	return map[string]any{"start": e.hourFrom(h), "end": e.hourFrom(h + 1), "interviewer_ids": ids}
}

func TestAPI_ScheduleInterview(t *testing.T) {
	each(t, "201 with the interview and its Location", func(t *testing.T, e *env) {
		job, ada := e.Res.Jobs["backend"], e.Res.Candidates["ada"]
		start := e.clock.Now().UTC().Truncate(time.Hour).Add(48 * time.Hour)
		paris, err := time.LoadLocation("Europe/Paris")
		require.NoError(t, err)
		r := e.do(t, "POST", interviewsPath(job, ada), e.token("mia"), map[string]any{
			"start": start.In(paris).Format(time.RFC3339), "end": start.Add(time.Hour).In(paris).Format(time.RFC3339),
			"timezone": "Europe/Paris", "interviewer_ids": []int64{e.User("mia"), e.User("olivia")},
			"video_url": "https://meet.example.test/ada",
		})
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		d := r.Data(t)
		id := num(t, d["id"])
		assert.Equal(t, interviewsPath(job, ada)+"/"+itoa(id), r.Header.Get("Location"))
		assert.Equal(t, start.Format(time.RFC3339), d["start"], "in UTC")
		assert.Equal(t, map[string]any{
			"id": float64(id), "job_id": float64(job), "candidate_id": float64(ada),
			"start": start.Format(time.RFC3339), "end": start.Add(time.Hour).Format(time.RFC3339), "timezone": "Europe/Paris",
			"location": nil, "video_url": "https://meet.example.test/ada",
			"interviewers": []any{
				map[string]any{"id": float64(e.User("mia")), "name": "Mia Member", "email": "mia@acme.test"},
				map[string]any{"id": float64(e.User("olivia")), "name": "Olivia Owner", "email": "olivia@acme.test"},
			},
			"status": "scheduled", "sequence": 0.0, "created_by": map[string]any{"id": float64(e.User("mia")), "name": "Mia Member"},
			"created_at": d["created_at"], "updated_at": d["created_at"],
		}, d)
		assert.Equal(t, r.JSON, e.do(t, "GET", r.Header.Get("Location"), e.token("mia"), nil).JSON)
		list := e.do(t, "GET", interviewsPath(job, ada), e.token("mia"), nil)
		require.Equal(t, http.StatusOK, list.Code)
		assert.Equal(t, []int64{id}, list.IDs(t))
		assert.Equal(t, d, list.Items(t)[0])
		acts := e.Activity(t)
		require.Len(t, acts, 1)
		assert.Equal(t, pipeline.ActionInterviewScheduled, acts[0].Action)
	})
	each(t, "a double booking is 409 with the busy times alone", func(t *testing.T, e *env) {
		first := e.scheduleAt(t, 1, "mia")
		body := e.interviewBody(1, "adam", "mia")
		body["start"] = e.hourFrom(0)
		r := e.do(t, "POST", interviewsPath(e.Res.Jobs["backend"], e.Res.Candidates["grace"]), e.token("adam"), body)
		requireError(t, r, http.StatusConflict, pipeline.EConflict)
		assert.Equal(t, map[string]any{"error": map[string]any{
			"code": "conflict", "message": "An interviewer or the candidate is already booked at that time.",
			"details": map[string]any{"busy": []any{
				map[string]any{"user_id": float64(e.User("mia")), "start": first["start"], "end": first["end"]},
			}},
		}}, r.JSON)
		r = e.do(t, "POST", interviewsPath(e.Res.Jobs["backend"], e.Res.Candidates["ada"]), e.token("adam"), e.interviewBody(1, "adam"))
		requireError(t, r, http.StatusConflict, pipeline.EConflict)
		assert.Equal(t, map[string]any{"busy": []any{
			map[string]any{"candidate_id": float64(e.Res.Candidates["ada"]), "start": first["start"], "end": first["end"]},
		}}, r.Details(t), "the candidate's own")
		r = e.do(t, "POST", interviewsPath(e.Res.Jobs["backend"], e.Res.Candidates["grace"]), e.token("adam"), e.interviewBody(2, "mia"))
		assert.Equal(t, http.StatusCreated, r.Code, "back to back: %s", r.Body)
	})
	each(t, "errors in the envelope, in the check order", func(t *testing.T, e *env) {
		path := interviewsPath(e.Res.Jobs["backend"], e.Res.Candidates["ada"])
		requireValidation(t, e.do(t, "POST", path, e.token("olivia"), map[string]any{}), "end", "interviewer_ids", "start")
		requireValidation(t, e.do(t, "POST", path, e.token("olivia"), map[string]any{
			"start": e.hourFrom(1), "end": e.hourFrom(1), "timezone": "Mars/Base", "interviewer_ids": []int64{e.User("gary")}}),
			"end", "interviewer_ids", "timezone")
		requireValidation(t, e.do(t, "POST", path, e.token("olivia"), map[string]any{
			"start": e.hourFrom(1), "end": e.hourFrom(2), "interviewer_ids": []int64{e.User("gary")}}), "interviewer_ids")
		requireValidation(t, e.do(t, "POST", path, e.token("olivia"), map[string]any{
			"start": e.hourFrom(1), "end": e.hourFrom(2), "interviewer_ids": "1", "location": 3}), "interviewer_ids", "location")
		linus := interviewsPath(e.Res.Jobs["backend"], e.Res.Candidates["linus"])
		requireError(t, e.do(t, "POST", linus, e.token("olivia"), e.interviewBody(1, "olivia")), http.StatusForbidden, pipeline.EForbidden)
		requireError(t, e.do(t, "POST", path, e.token("olivia_candidates_read"), e.interviewBody(1, "olivia")),
			http.StatusForbidden, pipeline.EInsufficientScope)
		requireError(t, e.do(t, "POST", interviewsPath(e.Res.Jobs["backend"], e.Res.Candidates["ken"]), e.token("olivia"), map[string]any{}),
			http.StatusNotFound, pipeline.ENotFound)
		assert.Empty(t, e.Activity(t))
	})
}

func TestAPI_RescheduleAndCancelInterview(t *testing.T) {
	each(t, "sequence and status; a cancelled interview is forbidden", func(t *testing.T, e *env) {
		iv := e.scheduleAt(t, 1, "olivia")
		path := interviewsPath(e.Res.Jobs["backend"], e.Res.Candidates["ada"]) + "/" + itoa(num(t, iv["id"]))
		r := e.do(t, "PATCH", path, e.token("olivia"), map[string]any{"start": e.hourFrom(2), "end": e.hourFrom(3), "location": "Room 1"})
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.Equal(t, 1.0, r.Data(t)["sequence"])
		assert.Equal(t, "Room 1", r.Data(t)["location"])
		r = e.do(t, "PATCH", path, e.token("olivia"), `{"location": null}`)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.Nil(t, r.Data(t)["location"])
		assert.Equal(t, 2.0, r.Data(t)["sequence"])
		requireValidation(t, e.do(t, "PATCH", path, e.token("olivia"), map[string]any{}), "body")
		r = e.do(t, "POST", path+"/cancel", e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.Equal(t, "cancelled", r.Data(t)["status"])
		assert.Equal(t, 3.0, r.Data(t)["sequence"])
		again := e.do(t, "POST", path+"/cancel", e.token("olivia"), map[string]any{})
		assert.Equal(t, r.JSON, again.JSON, "unchanged")
		requireError(t, e.do(t, "PATCH", path, e.token("olivia"), map[string]any{"location": "Room 2"}), http.StatusForbidden, pipeline.EForbidden)
		var actions []string
		for _, a := range e.Activity(t) {
			actions = append(actions, a.Action)
		}
		assert.Equal(t, []string{"interview.scheduled", "interview.rescheduled", "interview.rescheduled", "interview.cancelled"}, actions)
		feed := e.do(t, "GET", "/api/v1/activity?action=interview.rescheduled&action=interview.cancelled", e.token("olivia"), nil)
		assert.Equal(t, http.StatusOK, feed.Code, "the feed takes the actions: %s", feed.Body)
	})
}

// invite reads an interview's invite.ics, which is not JSON, and parses
// it with an iCalendar library.
func (e *env) invite(t *testing.T, path string) (*ics.Calendar, *ics.VEvent) {
	t.Helper()
	req := httptest.NewRequest("GET", path+"/invite.ics", nil)
	req.Header.Set("Authorization", "Bearer "+e.token("mia"))
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code, "%s", rec.Body)
	assert.Equal(t, "text/calendar; charset=utf-8", rec.Header().Get("Content-Type"))
	assert.NotEmpty(t, rec.Header().Get(HeaderRateRemaining))
	cal, err := ics.ParseCalendar(strings.NewReader(rec.Body.String()))
	require.NoError(t, err)
	require.Len(t, cal.Events(), 1)
	return cal, cal.Events()[0]
}

func method(cal *ics.Calendar) string {
	for _, p := range cal.CalendarProperties {
		if p.IANAToken == string(ics.PropertyMethod) {
			return p.Value
		}
	}
	return ""
}

func TestAPI_InterviewInvite(t *testing.T) {
	each(t, "one UID across schedule, reschedule and cancel; the sequence grows", func(t *testing.T, e *env) {
		iv := e.scheduleAt(t, 1, "olivia", "nina")
		path := interviewsPath(e.Res.Jobs["backend"], e.Res.Candidates["ada"]) + "/" + itoa(num(t, iv["id"]))
		cal, ev := e.invite(t, path)
		uid := ev.Id()
		assert.Regexp(t, "^interview-"+itoa(num(t, iv["id"]))+"-[0-9a-f]{16}@localhost$", uid, "without mail or a base URL")
		assert.Equal(t, "REQUEST", method(cal))
		assert.Equal(t, "0", ev.GetProperty(ics.ComponentPropertySequence).Value)
		start := ev.GetProperty(ics.ComponentPropertyDtStart).Value
		assert.True(t, strings.HasSuffix(start, "Z"), "DTSTART in UTC: %s", start)
		at, err := ev.GetStartAt()
		require.NoError(t, err)
		assert.Equal(t, iv["start"], at.UTC().Format(time.RFC3339))
		var emails []string
		for _, a := range ev.Attendees() {
			emails = append(emails, a.Email())
		}
		assert.Equal(t, []string{"olivia@acme.test", "nina@acme.test", "ada@example.test"}, emails)

		r := e.do(t, "PATCH", path, e.token("olivia"), map[string]any{"start": e.hourFrom(3), "end": e.hourFrom(4)})
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		cal, ev = e.invite(t, path)
		assert.Equal(t, uid, ev.Id())
		assert.Equal(t, "REQUEST", method(cal))
		assert.Equal(t, "1", ev.GetProperty(ics.ComponentPropertySequence).Value)
		at, err = ev.GetStartAt()
		require.NoError(t, err)
		assert.Equal(t, e.hourFrom(3), at.UTC().Format(time.RFC3339))

		require.Equal(t, http.StatusOK, e.do(t, "POST", path+"/cancel", e.token("olivia"), nil).Code)
		cal, ev = e.invite(t, path)
		assert.Equal(t, uid, ev.Id())
		assert.Equal(t, "CANCEL", method(cal))
		assert.Equal(t, "CANCELLED", ev.GetProperty(ics.ComponentPropertyStatus).Value)
		assert.Equal(t, "2", ev.GetProperty(ics.ComponentPropertySequence).Value)

		requireError(t, e.do(t, "GET", path+"/invite.ics", e.token("gary"), nil), http.StatusNotFound, pipeline.ENotFound)
		requireError(t, e.do(t, "GET", path+"/invite.ics", e.token("olivia_jobs_read"), nil), http.StatusForbidden, pipeline.EInsufficientScope)
	})
}

func TestAPI_Availability(t *testing.T) {
	each(t, "busy times, whose they are not told", func(t *testing.T, e *env) {
		iv := e.scheduleAt(t, 1, "olivia", "mia")
		q := "/api/v1/availability?user_ids=" + itoa(e.User("mia")) + "," + itoa(e.User("nina")) +
			"&from=" + urlQuery(e.hourFrom(0)) + "&to=" + urlQuery(e.hourFrom(24))
		r := e.do(t, "GET", q, e.token("mia"), nil)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.Equal(t, map[string]any{"data": []any{
			map[string]any{"user_id": float64(e.User("mia")), "busy": []any{map[string]any{"start": iv["start"], "end": iv["end"]}}},
			map[string]any{"user_id": float64(e.User("nina")), "busy": []any{}},
		}}, r.JSON)
	})
	each(t, "the query", func(t *testing.T, e *env) {
		window := "&from=" + urlQuery(e.hourFrom(0)) + "&to=" + urlQuery(e.hourFrom(24))
		requireValidation(t, e.do(t, "GET", "/api/v1/availability?user_ids="+itoa(e.User("gary"))+window, e.token("olivia"), nil), "user_ids")
		requireValidation(t, e.do(t, "GET", "/api/v1/availability?user_ids=1,x"+window, e.token("olivia"), nil), "user_ids")
		requireValidation(t, e.do(t, "GET", "/api/v1/availability?user_ids="+itoa(e.User("mia"))+
			"&from="+urlQuery(e.hourFrom(0))+"&to="+urlQuery(e.hourFrom(32*24)), e.token("olivia"), nil), "to")
		requireValidation(t, e.do(t, "GET", "/api/v1/availability", e.token("olivia"), nil), "from", "to", "user_ids")
		requireError(t, e.do(t, "GET", "/api/v1/availability?user_ids=1"+window, e.token("olivia_candidates_read"), nil),
			http.StatusForbidden, pipeline.EInsufficientScope)
	})
}

// TestMCP_InterviewTools: the interview tools answer the API's bodies.
func TestMCP_InterviewTools(t *testing.T) {
	each(t, "the API's bodies", func(t *testing.T, e *env) {
		cs := e.mcpSession(t, "olivia")
		job, ada := e.Res.Jobs["backend"], e.Res.Candidates["ada"]
		args := e.interviewBody(1, "olivia")
		args["job_id"], args["candidate_id"] = job, ada
		created := content(t, callTool(t, cs, "schedule_interview", args)).(map[string]any)
		id := num(t, created["data"].(map[string]any)["id"])
		path := interviewsPath(job, ada) + "/" + itoa(id)
		assert.Equal(t, e.do(t, "GET", path, e.token("olivia"), nil).JSON, created)
		ref := map[string]any{"job_id": job, "candidate_id": ada, "interview_id": id}
		assert.Equal(t, e.do(t, "GET", path, e.token("olivia"), nil).JSON, content(t, callTool(t, cs, "get_interview", ref)))
		assert.Equal(t, e.do(t, "GET", interviewsPath(job, ada), e.token("olivia"), nil).JSON,
			content(t, callTool(t, cs, "list_interviews", map[string]any{"job_id": job, "candidate_id": ada})))
		window := map[string]any{"user_ids": itoa(e.User("olivia")), "from": e.hourFrom(0), "to": e.hourFrom(5)}
		assert.Equal(t, e.do(t, "GET", "/api/v1/availability?user_ids="+itoa(e.User("olivia"))+"&from="+urlQuery(e.hourFrom(0))+
			"&to="+urlQuery(e.hourFrom(5)), e.token("olivia"), nil).JSON, content(t, callTool(t, cs, "get_availability", window)))
		clash := e.interviewBody(1, "olivia")
		clash["job_id"], clash["candidate_id"] = job, e.Res.Candidates["grace"]
		body, code := toolError(t, callTool(t, cs, "schedule_interview", clash))
		assert.Equal(t, pipeline.EConflict, code)
		assert.Equal(t, e.do(t, "POST", interviewsPath(job, e.Res.Candidates["grace"]), e.token("olivia"), e.interviewBody(1, "olivia")).JSON, body)
		moved := map[string]any{"job_id": job, "candidate_id": ada, "interview_id": id, "location": "Room 9"}
		assert.Equal(t, 1.0, content(t, callTool(t, cs, "reschedule_interview", moved)).(map[string]any)["data"].(map[string]any)["sequence"])
		cancelled := content(t, callTool(t, cs, "cancel_interview", ref)).(map[string]any)
		assert.Equal(t, e.do(t, "GET", path, e.token("olivia"), nil).JSON, cancelled)
	}, withBaseURL)
}

// calendarPart is the text/calendar part of a received mail and the
// method its type names.
func calendarPart(t *testing.T, r mailtest.Received) (string, []byte) {
	t.Helper()
	msg := r.Message(t)
	var walk func(contentType string, body io.Reader) (string, []byte)
	walk = func(contentType string, body io.Reader) (string, []byte) {
		mt, params, err := mime.ParseMediaType(contentType)
		require.NoError(t, err)
		if mt == "text/calendar" {
			b, err := io.ReadAll(body) // quoted-printable, decoded by the multipart reader
			require.NoError(t, err)
			return params["method"], b
		}
		if !strings.HasPrefix(mt, "multipart/") {
			return "", nil
		}
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				return "", nil
			}
			require.NoError(t, err)
			if m, b := walk(p.Header.Get("Content-Type"), p); b != nil {
				return m, b
			}
		}
	}
	return walk(msg.Header.Get("Content-Type"), msg.Body)
}

func TestAPI_InterviewInvitations(t *testing.T) {
	each(t, "with mail, each person is emailed what invite.ics answers", func(t *testing.T, e *env) {
		s := mailtest.Start(t, mailtest.Options{})
		e.withMail(t, s)
		iv := e.scheduleAt(t, 1, "olivia", "nina")
		path := interviewsPath(e.Res.Jobs["backend"], e.Res.Candidates["ada"]) + "/" + itoa(num(t, iv["id"]))
		got := s.WaitReceived(t, 3, 30*time.Second)
		req := httptest.NewRequest("GET", path+"/invite.ics", nil)
		req.Header.Set("Authorization", "Bearer "+e.token("mia"))
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code, "%s", rec.Body)
		var to []string
		for _, r := range got {
			to = append(to, r.To...)
			m, b := calendarPart(t, r)
			assert.Equal(t, "REQUEST", m)
			assert.Equal(t, rec.Body.String(), string(b))
		}
		slices.Sort(to)
		assert.Equal(t, []string{"ada@example.test", "nina@acme.test", "olivia@acme.test"}, to)
		_, ev := e.invite(t, path)
		assert.Regexp(t, "^interview-"+itoa(num(t, iv["id"]))+"-[0-9a-f]{16}@acme\\.example$", ev.Id(), "the From address's domain")
		assert.Equal(t, "mailto:jobs@acme.example", strings.ToLower(ev.GetProperty(ics.ComponentPropertyOrganizer).Value))

		messages := e.do(t, "GET", messagesPath(e), e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, messages.Code, "%s", messages.Body)
		assert.Empty(t, messages.Items(t), "invitations are not messages")
	})
}
