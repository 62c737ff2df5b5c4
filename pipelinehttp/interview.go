package pipelinehttp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/ical"
)

// userBusy is a user's busy times, as availability shows them.
type userBusy struct {
	UserID int64 `json:"user_id" schema:"ref: Id"`
	// The times of the user's `scheduled` interviews that overlap the
	// window, by start; whose interviews they are is not told.
	Busy []busyTime `json:"busy"`
}

// busyTime is a time when a user is busy.
type busyTime struct {
	Start string `json:"start" schema:"ref: Timestamp"`
	End   string `json:"end" schema:"ref: Timestamp"`
}

func newUserBusy(u pipeline.UserBusy) userBusy {
	out := userBusy{UserID: u.UserID, Busy: []busyTime{}}
	for _, b := range u.Busy {
		out.Busy = append(out.Busy, busyTime{Start: pipeline.FormatTime(b.Start), End: pipeline.FormatTime(b.End)})
	}
	return out
}

// calendar is an invitation's iCalendar text, sent as it is.
type calendar []byte

func (c calendar) media() (string, []byte) { return ical.ContentType, c }

// Schemas of the interview operations' parameters.
var (
	instantSchema   = &jsonschema.Schema{Type: "string", Format: "date-time"}
	timezoneSchema  = textSchema(1, 0, "")
	locationSchema  = textSchema(0, pipeline.MaxLocationLength, "")
	videoURLSchema  = textSchema(0, pipeline.MaxVideoURLLength, "^https://")
	interviewersDoc = "1 to 10 distinct ids of members of the job's team, from get_me's team or the team's members."
	interviewersSch = &jsonschema.Schema{Type: "array", Items: idSchema(), MinItems: jsonschema.Ptr(1), MaxItems: jsonschema.Ptr(pipeline.MaxInterviewers)}
)

func interviewID[In any]() param[In] {
	return pathID[In]("interview", "The interview's id.")
}

// idListField is a body field of a list of ids; at points to where it
// goes, set when the field is sent.
func idListField[In any](name string, required bool, s *jsonschema.Schema, at func(*In) *[]int64) param[In] {
	return param[In]{name: name, place: inBody, required: required, schema: s,
		fromJSON: func(in *input[In], raw []byte) string {
			var items []json.RawMessage
			if bytes.Equal(raw, []byte("null")) || json.Unmarshal(raw, &items) != nil {
				return wrongType(name, "an array of integers")
			}
			ids := make([]int64, len(items))
			for i, item := range items {
				id, ok := integerOf(bytes.TrimSpace(item))
				if !ok {
					return wrongType(name, "an array of integers")
				}
				ids[i] = id
			}
			*at(&in.value) = ids
			return ""
		}}
}

// requiredParam is p, required: its absence is the domain's to answer.
func requiredParam[In any](p param[In]) param[In] {
	p.required = true
	return p
}

// onInterview renders the result of a write on an interview.
func onInterview[In any](call func(*pipeline.Service, context.Context, int64, int64, int64, In) (pipeline.Result[pipeline.Interview], error)) func(context.Context, *pipeline.Service, *input[In]) (data[pipeline.InterviewRecord], bool, error) {
	return func(ctx context.Context, svc *pipeline.Service, in *input[In]) (data[pipeline.InterviewRecord], bool, error) {
		res, err := call(svc, ctx, in.ref.Job, in.ref.Candidate, in.ref.Interview, in.domain())
		return data[pipeline.InterviewRecord]{Data: res.Value.Record()}, res.Replayed, err
	}
}

// msgUserIDs is the message of a user_ids parameter that cannot be read.
const msgUserIDs = "The user_ids must be user ids separated by commas, such as 3,7."

// interviewOperations are the operations on interviews, in the order of the
// document.
var interviewOperations = []operation{
	newOperation(opSpec[pipeline.NewInterview, data[pipeline.InterviewRecord]]{
		op: pipeline.OpScheduleInterview,
		params: []param[pipeline.NewInterview]{
			jobID[pipeline.NewInterview](), candidateID[pipeline.NewInterview](),
			textField("start", true, described(instantSchema, "RFC 3339 date and time with an offset; not in the past, at most 365 days ahead."), func(in *pipeline.NewInterview) *string { return &in.Start }),
			textField("end", true, described(instantSchema, "RFC 3339 date and time with an offset; 15 minutes to 8 hours after start."), func(in *pipeline.NewInterview) *string { return &in.End }),
			textField("timezone", false, described(timezoneSchema, "IANA time zone name the interview is shown in, such as Europe/Paris; UTC when absent."), func(in *pipeline.NewInterview) *string { return &in.Timezone }),
			idListField("interviewer_ids", true, described(interviewersSch, interviewersDoc), func(in *pipeline.NewInterview) *[]int64 { return &in.InterviewerIDs }),
			textField("location", false, described(locationSchema, "Up to 255 characters."), func(in *pipeline.NewInterview) *string { return &in.Location }),
			textField("video_url", false, described(videoURLSchema, "An absolute https URL, up to 2,048 characters."), func(in *pipeline.NewInterview) *string { return &in.VideoURL }),
		},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.NewInterview]) (data[pipeline.InterviewRecord], bool, error) {
			res, err := svc.ScheduleInterview(ctx, in.ref.Job, in.ref.Candidate, in.domain())
			return data[pipeline.InterviewRecord]{Data: res.Value.Record()}, res.Replayed, err
		},
		created: func(out data[pipeline.InterviewRecord]) int64 { return out.Data.ID },
	}),
	newOperation(opSpec[pipeline.InterviewFilter, list[pipeline.InterviewRecord]]{
		op: pipeline.OpListInterviews,
		params: []param[pipeline.InterviewFilter]{
			jobID[pipeline.InterviewFilter](), candidateID[pipeline.InterviewFilter](),
			pageParam(pageSchema, func(in *pipeline.InterviewFilter) *int { return &in.Page }),
		},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.InterviewFilter]) (list[pipeline.InterviewRecord], bool, error) {
			l, err := svc.ListInterviews(ctx, in.ref.Job, in.ref.Candidate, in.domain())
			return listOf(in.self, url.Values{}, l, pipeline.Interview.Record), false, err
		},
	}),
	newOperation(opSpec[struct{}, data[pipeline.InterviewRecord]]{
		op:     pipeline.OpGetInterview,
		params: []param[struct{}]{jobID[struct{}](), candidateID[struct{}](), interviewID[struct{}]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[struct{}]) (data[pipeline.InterviewRecord], bool, error) {
			iv, err := svc.GetInterview(ctx, in.ref.Job, in.ref.Candidate, in.ref.Interview)
			return data[pipeline.InterviewRecord]{Data: iv.Record()}, false, err
		},
	}),
	newOperation(opSpec[pipeline.InterviewPatch, data[pipeline.InterviewRecord]]{
		op: pipeline.OpRescheduleInterview,
		params: []param[pipeline.InterviewPatch]{
			jobID[pipeline.InterviewPatch](), candidateID[pipeline.InterviewPatch](), interviewID[pipeline.InterviewPatch](),
			optionalField("start", described(instantSchema, "RFC 3339 date and time with an offset; not in the past, at most 365 days ahead."), func(in *pipeline.InterviewPatch) **string { return &in.Start }),
			optionalField("end", described(instantSchema, "RFC 3339 date and time with an offset; 15 minutes to 8 hours after start."), func(in *pipeline.InterviewPatch) **string { return &in.End }),
			optionalField("timezone", described(timezoneSchema, "IANA time zone name, such as Europe/Paris."), func(in *pipeline.InterviewPatch) **string { return &in.Timezone }),
			idListField("interviewer_ids", false, described(interviewersSch, interviewersDoc), func(in *pipeline.InterviewPatch) *[]int64 {
				if in.InterviewerIDs == nil {
					in.InterviewerIDs = new([]int64)
				}
				return in.InterviewerIDs
			}),
			nullableField("location", described(locationSchema, "Up to 255 characters; null clears it."), func(in *pipeline.InterviewPatch) **string { return &in.Location }),
			nullableField("video_url", described(videoURLSchema, "An absolute https URL, up to 2,048 characters; null clears it."), func(in *pipeline.InterviewPatch) **string { return &in.VideoURL }),
		},
		call: onInterview((*pipeline.Service).RescheduleInterview),
	}),
	newOperation(opSpec[pipeline.InterviewCancellation, data[pipeline.InterviewRecord]]{
		op: pipeline.OpCancelInterview,
		params: []param[pipeline.InterviewCancellation]{
			jobID[pipeline.InterviewCancellation](), candidateID[pipeline.InterviewCancellation](), interviewID[pipeline.InterviewCancellation](),
		},
		call: onInterview((*pipeline.Service).CancelInterview),
	}),
	newOperation(opSpec[struct{}, calendar]{
		op:     pipeline.OpGetInterviewInvite,
		params: []param[struct{}]{jobID[struct{}](), candidateID[struct{}](), interviewID[struct{}]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[struct{}]) (calendar, bool, error) {
			inv, err := svc.GetInterviewInvite(ctx, in.ref.Job, in.ref.Candidate, in.ref.Interview)
			if err != nil {
				return nil, false, err
			}
			return calendar(ical.Render(inv)), false, nil
		},
	}),
	newOperation(opSpec[pipeline.AvailabilityQuery, data[[]userBusy]]{
		op: pipeline.OpGetAvailability,
		params: []param[pipeline.AvailabilityQuery]{
			requiredParam(queryParam("user_ids", described(textSchema(1, 0, `^[1-9][0-9]*(,[1-9][0-9]*)*$`), "Ids of members of the token's current team, separated by commas, such as 3,7; at most 50."),
				msgUserIDs, func(in *input[pipeline.AvailabilityQuery], text string) bool {
					in.value.UserIDs = nil
					for part := range strings.SplitSeq(text, ",") {
						id, ok := parseID(part)
						if !ok {
							return false
						}
						in.value.UserIDs = append(in.value.UserIDs, id)
					}
					return true
				})),
			requiredParam(queryParam("from", described(instantSchema, "RFC 3339 date and time with an offset: the window's start."), "",
				func(in *input[pipeline.AvailabilityQuery], text string) bool { in.value.From = text; return true })),
			requiredParam(queryParam("to", described(instantSchema, "RFC 3339 date and time with an offset: the window's end, at most 31 days after from."), "",
				func(in *input[pipeline.AvailabilityQuery], text string) bool { in.value.To = text; return true })),
		},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.AvailabilityQuery]) (data[[]userBusy], bool, error) {
			users, err := svc.GetAvailability(ctx, in.domain())
			out := make([]userBusy, len(users))
			for i, u := range users {
				out[i] = newUserBusy(u)
			}
			return data[[]userBusy]{Data: out}, false, err
		},
	}),
}
