package pipelinehttp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// A proposal in words (web.md, /app/approvals): what its stored request
// would do if approved now, read from the records as they are now through
// the Service, as the person who reads it. One describer per family of
// operations, here or declared with the operation's face (opSpec.describe);
// any other operation shows its request as it is, so every write that can
// be held is covered. Nothing here decides: the rules (what
// a status change cancels, who is mailed) are the domain's.

// description is a proposal as the approvals page says it.
type description struct {
	Title   string
	Details []detail      // labelled lines: the job, an email's recipient…
	Changes []fieldChange // a field's current and proposed value
	Body    string        // an email's or a note's whole text
	Effects []string      // what else it would do now
	Problem string        // why the records it names cannot be read now
	Warning string        // its subject changed since it was made
	Request string        // the REST request it stands for
	Generic bool          // no describer knows the operation
}

type detail struct{ Label, Value string }

type fieldChange struct{ Field, Current, Proposed string }

// describer reads what proposals name, as the signed-in person.
type describer struct {
	ctx     context.Context
	svc     *pipeline.Service
	now     time.Time
	members map[int64]pipeline.User
	// The activity since the oldest proposal read, in feed order: the
	// last entry on each subject, and where each proposal was made.
	changed map[subjectKey]feedMark
	made    map[int64]int
	// The proposals shown, the proposal.withdrawn entries since the
	// oldest, and when erasures were logged (see withdrawal).
	closed      []pipeline.Proposal
	withdrawals map[int64]pipeline.FeedEntry
	erasures    []time.Time
}

type feedMark struct {
	at    int // in feed order
	entry pipeline.FeedEntry
}

type subjectKey struct {
	Type string
	ID   int64
}

func newDescriber(ctx context.Context, svc *pipeline.Service) *describer {
	return &describer{ctx: ctx, svc: svc, now: svc.Now()}
}

// describe says p in words.
func (d *describer) describe(p pipeline.Proposal) description {
	out := description{Request: requestText(p)}
	var err error
	switch p.Operation {
	case pipeline.OpMoveCandidate:
		err = d.move(p, &out)
	case pipeline.OpUpdateCandidate:
		err = d.update(p, &out)
	case pipeline.OpSendMessage:
		err = d.message(p, &out)
	case pipeline.OpScheduleInterview, pipeline.OpRescheduleInterview, pipeline.OpCancelInterview:
		err = d.interview(p, &out)
	case pipeline.OpAddNote:
		err = d.note(p, &out)
	case pipeline.OpRateCandidate:
		err = d.rating(p, &out)
	case pipeline.OpCreateJob, pipeline.OpUpdateJob:
		err = d.job(p, &out)
	case pipeline.OpAddCandidate:
		err = d.intake(p, &out)
	case pipeline.OpErasePerson:
		err = d.erasure(p, &out)
	case pipeline.OpCancelMessage, pipeline.OpRetryMessage:
		err = d.messageChange(p, &out)
	case pipeline.OpRemoveDocument:
		err = d.document(p, &out)
	case pipeline.OpCreateWebhook, pipeline.OpDeleteWebhook:
		err = d.webhook(p, &out)
	default:
		if f := describerOf(p.Operation); f != nil {
			err = f(d, p, &out)
		} else {
			out.Generic = true
		}
	}
	if err != nil {
		out.Problem = "The records it names cannot be read now: " + errorMessage(err)
	}
	if out.Title == "" {
		// No describer, or the records are out of reach: the operation's
		// own words, never its method and path (the request is below).
		out.Title = cmp.Or(opSummaries()[p.Operation], "An operation this page cannot describe ("+string(p.Operation)+")")
		out.Generic = true
	}
	return out
}

// describerOf is the words op's face declares for its proposals
// (opSpec.describe); nil when it declares none.
func describerOf(op pipeline.Op) describeFunc {
	for _, o := range operations {
		if o.op == op {
			return o.describe
		}
	}
	return nil
}

func errorMessage(err error) string {
	var e *pipeline.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "the server failed to read them."
}

// requestText is p's request: method, path and input, indented.
func requestText(p pipeline.Proposal) string {
	var b bytes.Buffer
	if json.Indent(&b, p.Input, "", "  ") != nil {
		b.Reset()
		b.Write(p.Input)
	}
	return p.Method + " /api/v1" + p.Path + "\n" + b.String()
}

// inputOf is p's input as the domain decoded it, of its operation's
// input type: what its approval would run.
func inputOf[In any](p pipeline.Proposal) (In, error) {
	v, err := p.Decoded()
	in, ok := v.(In)
	if err == nil && !ok {
		err = fmt.Errorf("pipelinehttp: proposal %d's input is %T", p.ID, v)
	}
	return in, err
}

// or is *v, or def when v is nil.
func or[T any](v *T, def T) T {
	if v == nil {
		return def
	}
	return *v
}

// candidate is the candidate p names, with its job's title as a detail.
func (d *describer) candidate(p pipeline.Proposal, out *description) (pipeline.Candidate, error) {
	c, err := d.svc.GetCandidate(d.ctx, p.JobID, p.CandidateID)
	if err != nil {
		return c, err
	}
	if j, err := d.svc.GetJob(d.ctx, p.JobID); err == nil {
		out.Details = append(out.Details, detail{"Job", j.Title})
	}
	d.warnIfChanged(p, out, subjectKey{pipeline.SubjectCandidate, c.ID}, c.Name)
	return c, nil
}

// move: "Move Ada Lovelace from Screening to Interview".
func (d *describer) move(p pipeline.Proposal, out *description) error {
	c, err := d.candidate(p, out)
	if err != nil {
		return err
	}
	in, err := inputOf[pipeline.CandidateMove](p)
	if err != nil {
		return err
	}
	stages, err := d.svc.ListStages(d.ctx, p.JobID)
	if err != nil {
		return err
	}
	to := in.StageID
	i := slices.IndexFunc(stages, func(s pipeline.Stage) bool { return s.ID == to })
	if i < 0 {
		out.Title = fmt.Sprintf("Move %s from %s to a stage this job no longer has (id %d)", c.Name, c.Stage, to)
		return nil
	}
	if p.Status != pipeline.ProposalPending {
		// Decided: where the candidate stands now says nothing of it.
		out.Title = fmt.Sprintf("Move %s to %s", c.Name, stages[i].Name)
		return nil
	}
	out.Title = fmt.Sprintf("Move %s from %s to %s", c.Name, c.Stage, stages[i].Name)
	if c.StageID == to {
		out.Effects = append(out.Effects, c.Name+" is in "+c.Stage+" already: nothing would change.")
	}
	return nil
}

// update: each field's current → proposed value, and the interviews a
// status change cancels.
func (d *describer) update(p pipeline.Proposal, out *description) error {
	c, err := d.candidate(p, out)
	if err != nil {
		return err
	}
	in, err := inputOf[pipeline.CandidatePatch](p)
	if err != nil {
		return err
	}
	out.Title = "Change " + c.Name + "’s details"
	for _, f := range []struct {
		label, current string
		proposed       *string
	}{
		{"Name", c.Name, in.Name}, {"Email", c.Email, in.Email}, {"Résumé URL", c.ResumeURL, in.ResumeURL}, {"Status", c.Status, in.Status},
	} {
		if f.proposed != nil {
			out.Changes = append(out.Changes, fieldChange{f.label, orNone(f.current), orNone(*f.proposed)})
		}
	}
	if in.Status == nil || !pipeline.CancelsInterviews(c.Status, *in.Status) {
		return nil
	}
	if len(out.Changes) == 1 {
		out.Title = fmt.Sprintf("Set %s’s status from %s to %s", c.Name, c.Status, *in.Status)
	}
	for page := 1; page <= 20; page++ {
		l, err := d.svc.ListInterviews(d.ctx, p.JobID, p.CandidateID, pipeline.InterviewFilter{Page: page})
		if err != nil {
			return err
		}
		for _, iv := range l.Items {
			if !iv.CancelledOnLeaving(d.now) {
				continue
			}
			out.Effects = append(out.Effects, "Cancel the interview "+whenInterview(iv.Start, iv.End, iv.Timezone)+" with "+names(iv.Interviewers)+".")
			if d.svc.SendsInvitations() {
				out.Effects = append(out.Effects, "Email its cancellation to "+names(append(slices.Clone(iv.Interviewers), pipeline.User{Name: c.Name, Email: c.Email}))+".")
			}
		}
		if page >= l.LastPage() {
			break
		}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// message: the recipient, subject, whole body and send time.
func (d *describer) message(p pipeline.Proposal, out *description) error {
	c, err := d.candidate(p, out)
	if err != nil {
		return err
	}
	in, err := inputOf[pipeline.NewMessage](p)
	if err != nil {
		return err
	}
	out.Title = "Email " + c.Name + ": “" + in.Subject + "”"
	when := "At once, when approved"
	if in.SendAt != "" {
		when = timeText(in.SendAt)
	}
	out.Details = append(out.Details, detail{"To", c.Name + " <" + c.Email + ">"}, detail{"Subject", in.Subject}, detail{"Send", when})
	out.Body = in.Body
	out.Effects = append(out.Effects, "Queue this email to "+c.Email+".")
	return nil
}

// interview: its times in its time zone and its interviewers; for a
// change, each field's current → proposed value.
func (d *describer) interview(p pipeline.Proposal, out *description) error {
	c, err := d.candidate(p, out)
	if err != nil {
		return err
	}
	everyone := func(ivs []pipeline.User) string {
		return names(append(slices.Clone(ivs), pipeline.User{Name: c.Name, Email: c.Email}))
	}
	if p.Operation == pipeline.OpScheduleInterview {
		in, err := inputOf[pipeline.NewInterview](p)
		if err != nil {
			return err
		}
		tz := in.Timezone
		if tz == "" {
			tz = "UTC"
		}
		ivs := d.users(in.InterviewerIDs)
		out.Title = "Schedule an interview with " + c.Name + " " + requestWhen(in.Start, in.End, tz)
		out.Details = append(out.Details, detail{"When", requestWhen(in.Start, in.End, tz)}, detail{"Interviewers", names(ivs)})
		out.Details = appendIf(out.Details, "Location", in.Location)
		out.Details = appendIf(out.Details, "Video", in.VideoURL)
		if d.svc.SendsInvitations() {
			out.Effects = append(out.Effects, "Email invitations to "+everyone(ivs)+".")
		}
		return nil
	}
	ref, err := p.Ref()
	if err != nil {
		return err
	}
	iv, err := d.svc.GetInterview(d.ctx, p.JobID, p.CandidateID, ref.Interview)
	if err != nil {
		return err
	}
	d.warnIfChanged(p, out, subjectKey{pipeline.SubjectInterview, iv.ID}, "The interview")
	current := whenInterview(iv.Start, iv.End, iv.Timezone)
	if p.Operation == pipeline.OpCancelInterview {
		out.Title = "Cancel the interview with " + c.Name + " " + current
		out.Details = append(out.Details, detail{"Interviewers", names(iv.Interviewers)})
		if iv.Status == pipeline.InterviewCancelled {
			out.Effects = append(out.Effects, "It is cancelled already: nothing would change.")
		} else if d.svc.SendsInvitations() {
			out.Effects = append(out.Effects, "Email its cancellation to "+everyone(iv.Interviewers)+".")
		}
		return nil
	}
	in, err := inputOf[pipeline.InterviewPatch](p)
	if err != nil {
		return err
	}
	out.Title = "Change the interview with " + c.Name + " " + current
	tz := or(in.Timezone, iv.Timezone)
	if in.Start != nil || in.End != nil || in.Timezone != nil {
		start, end := or(in.Start, iv.Start.Format(time.RFC3339)), or(in.End, iv.End.Format(time.RFC3339))
		out.Changes = append(out.Changes, fieldChange{"When", current, requestWhen(start, end, tz)})
	}
	proposed := iv.Interviewers
	if in.InterviewerIDs != nil {
		proposed = d.users(*in.InterviewerIDs)
		out.Changes = append(out.Changes, fieldChange{"Interviewers", names(iv.Interviewers), names(proposed)})
	}
	if in.Location != nil {
		out.Changes = append(out.Changes, fieldChange{"Location", orNone(iv.Location), orNone(*in.Location)})
	}
	if in.VideoURL != nil {
		out.Changes = append(out.Changes, fieldChange{"Video", orNone(iv.VideoURL), orNone(*in.VideoURL)})
	}
	if d.svc.SendsInvitations() {
		out.Effects = append(out.Effects, "Email the changed invitation to "+everyone(proposed)+".")
	}
	return nil
}

func appendIf(ds []detail, label, value string) []detail {
	if value == "" {
		return ds
	}
	return append(ds, detail{label, value})
}

func (d *describer) note(p pipeline.Proposal, out *description) error {
	c, err := d.candidate(p, out)
	if err != nil {
		return err
	}
	in, err := inputOf[pipeline.NewNote](p)
	if err != nil {
		return err
	}
	out.Title = "Add a note on " + c.Name
	out.Body = in.Content
	return nil
}

func (d *describer) rating(p pipeline.Proposal, out *description) error {
	c, err := d.candidate(p, out)
	if err != nil {
		return err
	}
	in, err := inputOf[pipeline.NewRating](p)
	if err != nil {
		return err
	}
	out.Title = "Rate " + c.Name + " " + string(in.Value) + " as " + p.RequestedBy.User.Name
	return nil
}

// job: a new job's title and description, or each field's current →
// proposed value. A description is HTML: shown as its text, markup and
// all, never run (the templates escape it).
func (d *describer) job(p pipeline.Proposal, out *description) error {
	if p.Operation == pipeline.OpCreateJob {
		in, err := inputOf[pipeline.NewJob](p)
		if err != nil {
			return err
		}
		out.Title = "Create the job “" + in.Title + "”"
		out.Changes = append(out.Changes, fieldChange{"Title", "(none)", in.Title})
		if in.Description != "" {
			out.Changes = append(out.Changes, fieldChange{"Description (HTML)", "(none)", in.Description})
		}
		out.Effects = append(out.Effects, "Count it against the team’s job limit.")
		return nil
	}
	j, err := d.svc.GetJob(d.ctx, p.JobID)
	if err != nil {
		return err
	}
	in, err := inputOf[pipeline.JobPatch](p)
	if err != nil {
		return err
	}
	d.warnIfChanged(p, out, subjectKey{pipeline.SubjectJob, j.ID}, "The job “"+j.Title+"”")
	out.Title = "Change the job “" + j.Title + "”"
	if in.Title != nil {
		out.Changes = append(out.Changes, fieldChange{"Title", orNone(j.Title), orNone(*in.Title)})
	}
	if in.Description != nil {
		out.Changes = append(out.Changes, fieldChange{"Description (HTML)", orNone(j.Description), orNone(*in.Description)})
	}
	if in.Status != nil {
		out.Changes = append(out.Changes, fieldChange{"Status", string(j.Status), string(*in.Status)})
		if len(out.Changes) == 1 {
			out.Title = fmt.Sprintf("Set the job “%s” from %s to %s", j.Title, j.Status, *in.Status)
		}
	}
	return nil
}

// intake: the person's name, email and stage, on the job.
func (d *describer) intake(p pipeline.Proposal, out *description) error {
	in, err := inputOf[pipeline.NewCandidate](p)
	if err != nil {
		return err
	}
	j, err := d.svc.GetJob(d.ctx, p.JobID)
	if err != nil {
		return err
	}
	stages, err := d.svc.ListStages(d.ctx, p.JobID)
	if err != nil {
		return err
	}
	stage := "a stage this job does not have (id " + strconv.FormatInt(in.StageID, 10) + ")"
	for i, s := range stages {
		if s.ID == in.StageID || in.StageID == 0 && i == 0 {
			stage = s.Name
			break
		}
	}
	applied := in.Applied
	if applied == "" {
		applied = "today"
	}
	out.Title = fmt.Sprintf("Add %s <%s> to “%s” in %s", in.Name, in.Email, j.Title, stage)
	out.Details = append(out.Details, detail{"Job", j.Title}, detail{"Name", in.Name}, detail{"Email", in.Email},
		detail{"Stage", stage}, detail{"Applied", applied})
	out.Details = appendIf(out.Details, "Résumé URL", in.ResumeURL)
	return nil
}

// erasure: whom, and how many applications it would erase now, counted
// as the reader (owners and admins only).
func (d *describer) erasure(p pipeline.Proposal, out *description) error {
	in, err := inputOf[pipeline.PersonErasure](p)
	if err != nil {
		return err
	}
	out.Title = "Erase the person with the email " + in.Email
	out.Details = append(out.Details, detail{"Email", in.Email})
	if p.Status != pipeline.ProposalPending {
		return nil // decided: what an erasure would erase now says nothing of it
	}
	n, err := d.svc.ErasureCount(d.ctx, pipeline.PersonQuery{Email: in.Email})
	switch {
	case err == nil:
		what := strconv.Itoa(n) + " applications"
		if n == 1 {
			what = "1 application"
		}
		out.Title += ": " + what
		out.Details = append(out.Details, detail{"Applications it would erase now", strconv.Itoa(n)})
		if n == 0 {
			out.Effects = append(out.Effects, "Nobody on the team has this email now: nothing would be erased.")
		} else {
			out.Effects = append(out.Effects, "Erase "+what+" of this person: their names, emails, notes, ratings, messages and documents, for good; cancel their future interviews.")
		}
	case errors.Is(err, pipeline.ErrForbidden):
		out.Details = append(out.Details, detail{"Applications it would erase now", "only the team’s owners and admins may count them"})
	default:
		return err
	}
	return nil
}

// messageChange: the email a cancellation or a retry is about.
func (d *describer) messageChange(p pipeline.Proposal, out *description) error {
	c, err := d.candidate(p, out)
	if err != nil {
		return err
	}
	ref, err := p.Ref()
	if err != nil {
		return err
	}
	m, err := d.svc.GetMessage(d.ctx, p.JobID, p.CandidateID, ref.Message)
	if err != nil {
		return err
	}
	out.Details = append(out.Details, detail{"To", c.Name + " <" + m.To + ">"}, detail{"Subject", m.Subject}, detail{"Status", m.Status})
	out.Body = m.Body
	if p.Operation == pipeline.OpCancelMessage {
		out.Title = "Cancel the email to " + c.Name + ": “" + m.Subject + "”"
		out.Details = append(out.Details, detail{"Due", m.SendAt.UTC().Format("Mon 2 Jan 2006, 15:04 UTC")})
		if m.Status == pipeline.MessageCancelled {
			out.Effects = append(out.Effects, "It is cancelled already: nothing would change.")
		} else {
			out.Effects = append(out.Effects, "It would never be sent.")
		}
		return nil
	}
	out.Title = "Send the failed email to " + c.Name + " again: “" + m.Subject + "”"
	out.Details = appendIf(out.Details, "Last error", m.LastError)
	out.Effects = append(out.Effects, "Queue it to "+m.To+" again, due at once.")
	return nil
}

// document: which file of whom it would remove.
func (d *describer) document(p pipeline.Proposal, out *description) error {
	c, err := d.candidate(p, out)
	if err != nil {
		return err
	}
	ref, err := p.Ref()
	if err != nil {
		return err
	}
	doc, err := d.svc.GetDocument(d.ctx, p.JobID, p.CandidateID, ref.Document)
	if err != nil {
		return err
	}
	out.Title = "Remove " + c.Name + "’s document “" + doc.Filename + "”"
	out.Details = append(out.Details, detail{"Kind", doc.Kind}, detail{"Type", doc.ContentType},
		detail{"Size", strconv.FormatInt(doc.Size, 10) + " bytes"},
		detail{"Uploaded", doc.CreatedAt.UTC().Format("2006-01-02 15:04 UTC") + " by " + doc.UploadedBy.Name})
	out.Effects = append(out.Effects, "Delete the file and its text for good.")
	return nil
}

// webhook: where the team's activity would be sent, or no longer.
func (d *describer) webhook(p pipeline.Proposal, out *description) error {
	events := func(es []string) string {
		if len(es) == 0 {
			return "every action"
		}
		return strings.Join(es, ", ")
	}
	if p.Operation == pipeline.OpCreateWebhook {
		in, err := inputOf[pipeline.NewWebhook](p)
		if err != nil {
			return err
		}
		out.Title = "Send the team’s activity to " + in.URL
		out.Details = append(out.Details, detail{"URL", in.URL}, detail{"Events", events(in.Events)})
		out.Details = appendIf(out.Details, "Description", in.Description)
		out.Effects = append(out.Effects, "Post each selected entry of the team’s activity log, names and emails included, to this address.",
			"Give it a new signing secret, shown once to whoever approves.")
		return nil
	}
	ref, err := p.Ref()
	if err != nil {
		return err
	}
	w, err := d.svc.GetWebhook(d.ctx, ref.Webhook)
	if err != nil {
		return err
	}
	d.warnIfChanged(p, out, subjectKey{pipeline.SubjectWebhook, w.ID}, "The webhook")
	out.Title = "Delete the webhook to " + w.URL
	out.Details = append(out.Details, detail{"URL", w.URL}, detail{"Events", events(w.Events)})
	out.Details = appendIf(out.Details, "Description", w.Description)
	out.Effects = append(out.Effects, "Send nothing more to this address.")
	return nil
}

// users are the team's users of ids, in order; an id no member has
// reads as such.
func (d *describer) users(ids []int64) []pipeline.User {
	if d.members == nil {
		d.members = map[int64]pipeline.User{}
		ms, _ := d.svc.TeamMembers(d.ctx)
		for _, m := range ms {
			d.members[m.ID] = m
		}
	}
	out := make([]pipeline.User, len(ids))
	for i, id := range ids {
		u, ok := d.members[id]
		if !ok {
			u = pipeline.User{ID: id, Name: "user " + strconv.FormatInt(id, 10) + " (no member of the team)"}
		}
		out[i] = u
	}
	return out
}

func names(us []pipeline.User) string {
	parts := make([]string, len(us))
	for i, u := range us {
		parts[i] = u.Name
		if u.Email != "" {
			parts[i] += " <" + u.Email + ">"
		}
	}
	switch len(parts) {
	case 0:
		return "nobody"
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// whenInterview is an interview's times in its time zone: "on Mon 2 Feb
// 2026, 10:00–11:00 (Europe/Paris)".
func whenInterview(start, end time.Time, tz string) string {
	loc, err := time.LoadLocation(tz)
	if err != nil {
		loc, tz = time.UTC, "UTC"
	}
	s, e := start.In(loc), end.In(loc)
	endFormat := "15:04"
	if s.YearDay() != e.YearDay() || s.Year() != e.Year() {
		endFormat = "Mon 2 Jan 2006, 15:04"
	}
	return "on " + s.Format("Mon 2 Jan 2006, 15:04") + "–" + e.Format(endFormat) + " (" + tz + ")"
}

// requestWhen is whenInterview of times as a request gives them.
func requestWhen(start, end, tz string) string {
	s, err1 := time.Parse(time.RFC3339, start)
	e, err2 := time.Parse(time.RFC3339, end)
	if err1 != nil || err2 != nil {
		return "from " + start + " to " + end + " (" + tz + ")"
	}
	return whenInterview(s, e, tz)
}

// timeText is an RFC 3339 time as a request gives it, in words, in its own
// offset.
func timeText(v string) string {
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return v
	}
	return t.Format("Mon 2 Jan 2006, 15:04 -07:00")
}

// loadChanges reads the activity since the oldest of ps was made, once,
// so that each proposal can say whether its subject changed since.
func (d *describer) loadChanges(ps []pipeline.Proposal) {
	d.changed, d.made = map[subjectKey]feedMark{}, map[int64]int{}
	if len(ps) == 0 {
		return
	}
	since := ps[0].CreatedAt
	for _, p := range ps {
		if p.CreatedAt.Before(since) {
			since = p.CreatedAt
		}
	}
	f := pipeline.FeedFilter{Since: &since, Limit: 100}
	n := 0
	for range 50 { // bounded: 5,000 entries
		page, err := d.svc.ListActivity(d.ctx, f)
		if err != nil {
			return
		}
		for _, e := range page.Entries {
			n++
			if e.SubjectType == pipeline.SubjectProposal {
				if e.Action == pipeline.ActionProposalCreated {
					d.made[e.SubjectID] = n
				}
				continue
			}
			d.changed[subjectKey{e.SubjectType, e.SubjectID}] = feedMark{n, e}
		}
		if !page.HasMore {
			return
		}
		f = pipeline.FeedFilter{After: page.Next, Limit: 100}
	}
}

// warnIfChanged warns when subject has an activity entry after p's own
// proposal.created in the feed's order (times may tie).
func (d *describer) warnIfChanged(p pipeline.Proposal, out *description, k subjectKey, name string) {
	if out.Warning != "" {
		return
	}
	m, ok := d.changed[k]
	made, known := d.made[p.ID]
	if ok && (m.at > made && known || !known && m.entry.CreatedAt.After(p.CreatedAt)) {
		e := m.entry
		out.Warning = fmt.Sprintf("%s changed since this was proposed (%s, %s by %s): what it would do is read from the records as they are now.",
			name, e.Action, e.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"), actorName(e))
	}
}

func actorName(e pipeline.FeedEntry) string {
	if e.Actor.Name == "" {
		return "the server"
	}
	return e.Actor.Name
}
