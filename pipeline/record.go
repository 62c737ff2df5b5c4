package pipeline

import "time"

// The records below are the bodies the API answers with, field for field:
// what a write answers is the domain's to say, so that an approved
// proposal's result reads exactly as the write's own answer, whichever
// face (or none) runs it. Times are RFC 3339 in UTC, dates YYYY-MM-DD. A
// field tagged supplied:"candidate" holds what a candidate wrote, which
// an agent is shown marked as theirs (mcp.md).
//
// The API's document generates each record's schema from its type: a
// field's doc comment is its description there, written for the API's
// readers, and its schema tag says what its Go type does not (the
// component it is, its format and limits; see pipelinehttp's
// openapi_records.go).

// Named is a record shown by id and name: a note's author, a user's team.
type Named struct {
	ID   int64  `json:"id" schema:"ref: Id"`
	Name string `json:"name"`
}

// JobSummary is a job as a list element.
type JobSummary struct {
	ID     int64     `json:"id" schema:"ref: Id"`
	Title  string    `json:"title" schema:"ref: Title"`
	Status JobStatus `json:"status"`
	// HTML; `""` when there is none.
	Description string `json:"description"`
	CreatedAt   string `json:"created_at" schema:"ref: Timestamp"`
}

// JobRecord is a single job: the list element and its other public fields.
type JobRecord struct {
	JobSummary
	WorkMode            string `json:"work_mode" schema:"ref: WorkMode"`
	EmploymentType      string `json:"employment_type" schema:"ref: EmploymentType"`
	ApplicationDeadline string `json:"application_deadline" schema:"ref: Date"`
	UpdatedAt           string `json:"updated_at" schema:"ref: Timestamp"`
}

// Summary is j as a list element.
func (j Job) Summary() JobSummary {
	return JobSummary{ID: j.ID, Title: j.Title, Status: j.Status, Description: j.Description, CreatedAt: FormatTime(j.CreatedAt)}
}

// Record is j as a single job.
func (j Job) Record() JobRecord {
	return JobRecord{JobSummary: j.Summary(), WorkMode: j.WorkMode, EmploymentType: j.EmploymentType,
		ApplicationDeadline: FormatDate(j.ApplicationDeadline), UpdatedAt: FormatTime(j.UpdatedAt)}
}

// CandidateSummary is a candidate as a list element.
type CandidateSummary struct {
	ID      int64  `json:"id" schema:"ref: Id"`
	Name    string `json:"name" supplied:"candidate"`
	Email   string `json:"email" supplied:"candidate"`
	Applied string `json:"applied" schema:"ref: Date"`
	// Name of the candidate's current stage.
	Stage  string `json:"stage"`
	Status string `json:"status" schema:"ref: CandidateStatus"`
}

// CandidateRecord is a single candidate: fields that are empty are left
// out, except id and notes_count.
type CandidateRecord struct {
	candidateSparse
	// Where the résumé is; absent when there is none.
	ResumeURL  string `json:"resume_url,omitempty" schema:"minLength: 1"`
	NotesCount int    `json:"notes_count" schema:"minimum: 0"`
	// When the candidate's person was erased; absent on every other
	// candidate.
	ErasedAt string `json:"erased_at,omitempty" schema:"ref: Timestamp"`
}

// candidateSparse is CandidateSummary with its empty fields but id left
// out. Every candidate has a value for each (an erased one too), so the
// document requires them.
type candidateSparse struct {
	ID      int64  `json:"id" schema:"ref: Id"`
	Name    string `json:"name,omitempty" supplied:"candidate" schema:"minLength: 1, required: true"`
	Email   string `json:"email,omitempty" supplied:"candidate" schema:"minLength: 1, required: true"`
	Applied string `json:"applied,omitempty" schema:"ref: Date, required: true"`
	// Name of the candidate's current stage.
	Stage  string `json:"stage,omitempty" schema:"minLength: 1, required: true"`
	Status string `json:"status,omitempty" schema:"ref: CandidateStatus, required: true"`
}

// Summary is k as a list element.
func (k Candidate) Summary() CandidateSummary {
	return CandidateSummary{ID: k.ID, Name: k.Name, Email: k.Email, Applied: FormatDate(k.Applied), Stage: k.Stage, Status: k.Status}
}

// Record is k as a single candidate.
func (k Candidate) Record() CandidateRecord {
	c := CandidateRecord{candidateSparse: candidateSparse(k.Summary()), ResumeURL: k.ResumeURL, NotesCount: k.NotesCount}
	if k.ErasedAt != nil {
		c.ErasedAt = FormatTime(*k.ErasedAt)
	}
	return c
}

// NoteRecord is a note as created and listed.
type NoteRecord struct {
	ID      int64  `json:"id" schema:"ref: Id"`
	Content string `json:"content"`
	// The user who wrote the note.
	Author    Named  `json:"author"`
	CreatedAt string `json:"created_at" schema:"ref: Timestamp"`
}

// Record is n as the API shows it.
func (n Note) Record() NoteRecord {
	return NoteRecord{ID: n.ID, Content: n.Content, Author: Named{ID: n.Author.ID, Name: n.Author.Name}, CreatedAt: FormatTime(n.CreatedAt)}
}

// RatingRecord is a user's rating of a candidate.
type RatingRecord struct {
	CandidateID int64       `json:"candidate_id" schema:"ref: Id"`
	Rating      RatingValue `json:"rating"`
	UserID      int64       `json:"user_id" schema:"ref: Id"`
	UpdatedAt   string      `json:"updated_at" schema:"ref: Timestamp"`
}

// Record is r as the API shows it.
func (r Rating) Record() RatingRecord {
	return RatingRecord{CandidateID: r.CandidateID, Rating: r.Value, UserID: r.UserID, UpdatedAt: FormatTime(r.UpdatedAt)}
}

// WebhookRecord is a webhook as listed and read: never its secret.
type WebhookRecord struct {
	ID  int64  `json:"id" schema:"ref: Id"`
	URL string `json:"url" schema:"format: uri"`
	// The actions it selects, in the order of the list of actions; empty
	// selects every action.
	Events      []string `json:"events" schema:"uniqueItems: true, items: {ref: Action}"`
	Description string   `json:"description"`
	CreatedAt   string   `json:"created_at" schema:"ref: Timestamp"`
	// The user who created it, whose reach decides what it is sent.
	CreatedBy Named `json:"created_by"`
}

// Record is w as the API shows it.
func (w Webhook) Record() WebhookRecord {
	events := w.Events
	if events == nil {
		events = []string{}
	}
	return WebhookRecord{ID: w.ID, URL: w.URL, Events: events, Description: w.Description,
		CreatedAt: FormatTime(w.CreatedAt), CreatedBy: Named{ID: w.CreatedBy.ID, Name: w.CreatedBy.Name}}
}

// CreatedWebhookRecord is a webhook as created, with its secret shown
// this once.
type CreatedWebhookRecord struct {
	WebhookRecord
	// `whsec_` and the base64 of 32 random bytes. Deliveries are signed
	// with the decoded bytes. Keep it: it is not shown again (only a
	// replay of this request with its `Idempotency-Key` shows it).
	Secret string `json:"secret" schema:"pattern: '^whsec_[A-Za-z0-9+/]{43}=$'"`
}

// Record is w as its creation answers it, with its secret.
func (w CreatedWebhook) Record() CreatedWebhookRecord {
	return CreatedWebhookRecord{WebhookRecord: w.Webhook.Record(), Secret: w.Secret}
}

// InterviewRecord is an interview as every answer shows it.
type InterviewRecord struct {
	ID          int64  `json:"id" schema:"ref: Id"`
	JobID       int64  `json:"job_id" schema:"ref: Id"`
	CandidateID int64  `json:"candidate_id" schema:"ref: Id"`
	Start       string `json:"start" schema:"ref: Timestamp"`
	End         string `json:"end" schema:"ref: Timestamp"`
	Timezone    string `json:"timezone" schema:"minLength: 1, examples: [Europe/Paris]"`
	// Where the interview takes place; `null` when not said.
	Location *string `json:"location" schema:"minLength: 1, maxLength: 255"`
	// The video call's `https` URL; `null` when none.
	VideoURL *string `json:"video_url" schema:"format: uri, maxLength: 2048"`
	// In the order given.
	Interviewers []Interviewer `json:"interviewers" schema:"minItems: 1, maxItems: 10"`
	Status       string        `json:"status" schema:"ref: InterviewStatus"`
	Sequence     int           `json:"sequence" schema:"minimum: 0"`
	// The user who scheduled it.
	CreatedBy Named  `json:"created_by"`
	CreatedAt string `json:"created_at" schema:"ref: Timestamp"`
	UpdatedAt string `json:"updated_at" schema:"ref: Timestamp"`
}

// Interviewer is an interviewer of an interview.
type Interviewer struct {
	ID    int64  `json:"id" schema:"ref: Id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

// Record is iv as the API shows it.
func (iv Interview) Record() InterviewRecord {
	orNull := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	r := InterviewRecord{
		ID: iv.ID, JobID: iv.JobID, CandidateID: iv.CandidateID,
		Start: FormatTime(iv.Start), End: FormatTime(iv.End), Timezone: iv.Timezone,
		Location: orNull(iv.Location), VideoURL: orNull(iv.VideoURL), Interviewers: []Interviewer{},
		Status: iv.Status, Sequence: iv.Sequence, CreatedBy: Named{ID: iv.CreatedBy.ID, Name: iv.CreatedBy.Name},
		CreatedAt: FormatTime(iv.CreatedAt), UpdatedAt: FormatTime(iv.UpdatedAt),
	}
	for _, u := range iv.Interviewers {
		r.Interviewers = append(r.Interviewers, Interviewer{ID: u.ID, Name: u.Name, Email: u.Email})
	}
	return r
}

// MessageRecord is a message to a candidate as sent, listed and read.
type MessageRecord struct {
	ID int64 `json:"id" schema:"ref: Id"`
	// Always `message`. Sending answers the message or, when the token's
	// approval policy holds it, a proposal under the same status; this
	// field tells which.
	Object      string `json:"object" schema:"const: message"`
	JobID       int64  `json:"job_id" schema:"ref: Id"`
	CandidateID int64  `json:"candidate_id" schema:"ref: Id"`
	// The candidate's email when the message was sent.
	To      string `json:"to" supplied:"candidate"`
	Subject string `json:"subject"`
	Body    string `json:"body"`
	Status  string `json:"status" schema:"ref: MessageStatus"`
	// When the message is due.
	SendAt string `json:"send_at" schema:"ref: Timestamp"`
	// When the mail server accepted the message; null until then.
	SentAt *string `json:"sent_at" schema:"format: date-time"`
	// Attempts made to send the message so far.
	Attempts int `json:"attempts" schema:"minimum: 0"`
	// The mail server's last reply or the connection error of the last
	// failed attempt, never a credential; null until an attempt fails.
	LastError *string `json:"last_error"`
	// The user who wrote the message; its Reply-To.
	Author    Named  `json:"author"`
	CreatedAt string `json:"created_at" schema:"ref: Timestamp"`
}

// Record is m as the API shows it.
func (m Message) Record() MessageRecord {
	r := MessageRecord{
		ID: m.ID, Object: "message", JobID: m.JobID, CandidateID: m.CandidateID, To: m.To, Subject: m.Subject, Body: m.Body,
		Status: m.Status, SendAt: FormatTime(m.SendAt), Attempts: m.Attempts,
		Author: Named{ID: m.Author.ID, Name: m.Author.Name}, CreatedAt: FormatTime(m.CreatedAt),
	}
	if m.SentAt != nil {
		at := FormatTime(*m.SentAt)
		r.SentAt = &at
	}
	if m.LastError != "" {
		r.LastError = &m.LastError
	}
	return r
}

// ErasureRecord is what an erasure did.
type ErasureRecord struct {
	CandidateIDs []int64 `json:"candidate_ids"`
	ErasedAt     string  `json:"erased_at"`
}

// Record is e as the API shows it.
func (e Erasure) Record() ErasureRecord {
	ids := e.CandidateIDs
	if ids == nil {
		ids = []int64{}
	}
	return ErasureRecord{CandidateIDs: ids, ErasedAt: FormatTime(e.ErasedAt)}
}

// FormatTime formats t as the API's times are, RFC 3339 in UTC; a zero
// time is "".
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// FormatDate formats t as the API's dates are, YYYY-MM-DD; a zero time is "".
func FormatDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.DateOnly)
}

// kept is r as an approved proposal's stored result keeps it: the secret
// is shown in the approval's answer once, and null ever after.
func (r CreatedWebhookRecord) kept() any {
	return struct {
		WebhookRecord
		Secret *string `json:"secret"`
	}{WebhookRecord: r.WebhookRecord}
}
