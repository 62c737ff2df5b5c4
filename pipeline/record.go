package pipeline

import "time"

// The records below are the bodies the API answers with, field for field:
// what a write answers is the domain's to say, so that an approved
// proposal's result reads exactly as the write's own answer, whichever
// face (or none) runs it. Times are RFC 3339 in UTC, dates YYYY-MM-DD. A
// field tagged supplied:"candidate" holds what a candidate wrote, which
// an agent is shown marked as theirs (mcp.md).

// Named is a record shown by id and name: a note's author, a user's team.
type Named struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// JobSummary is a job as a list element.
type JobSummary struct {
	ID          int64     `json:"id"`
	Title       string    `json:"title"`
	Status      JobStatus `json:"status"`
	Description string    `json:"description"`
	CreatedAt   string    `json:"created_at"`
}

// JobRecord is a single job: the list element and its other public fields.
type JobRecord struct {
	JobSummary
	WorkMode            string `json:"work_mode"`
	EmploymentType      string `json:"employment_type"`
	ApplicationDeadline string `json:"application_deadline"`
	UpdatedAt           string `json:"updated_at"`
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
	ID      int64  `json:"id"`
	Name    string `json:"name" supplied:"candidate"`
	Email   string `json:"email" supplied:"candidate"`
	Applied string `json:"applied"`
	Stage   string `json:"stage"`
	Status  string `json:"status"`
}

// CandidateRecord is a single candidate: fields that are empty are left
// out, except id and notes_count.
type CandidateRecord struct {
	candidateSparse
	ResumeURL  string `json:"resume_url,omitempty"`
	NotesCount int    `json:"notes_count"`
	// ErasedAt is shown on an erased candidate only.
	ErasedAt string `json:"erased_at,omitempty"`
}

// candidateSparse is CandidateSummary with its empty fields but id left
// out.
type candidateSparse struct {
	ID      int64  `json:"id"`
	Name    string `json:"name,omitempty" supplied:"candidate"`
	Email   string `json:"email,omitempty" supplied:"candidate"`
	Applied string `json:"applied,omitempty"`
	Stage   string `json:"stage,omitempty"`
	Status  string `json:"status,omitempty"`
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
	ID        int64  `json:"id"`
	Content   string `json:"content"`
	Author    Named  `json:"author"`
	CreatedAt string `json:"created_at"`
}

// Record is n as the API shows it.
func (n Note) Record() NoteRecord {
	return NoteRecord{ID: n.ID, Content: n.Content, Author: Named{ID: n.Author.ID, Name: n.Author.Name}, CreatedAt: FormatTime(n.CreatedAt)}
}

// RatingRecord is a user's rating of a candidate.
type RatingRecord struct {
	CandidateID int64       `json:"candidate_id"`
	Rating      RatingValue `json:"rating"`
	UserID      int64       `json:"user_id"`
	UpdatedAt   string      `json:"updated_at"`
}

// Record is r as the API shows it.
func (r Rating) Record() RatingRecord {
	return RatingRecord{CandidateID: r.CandidateID, Rating: r.Value, UserID: r.UserID, UpdatedAt: FormatTime(r.UpdatedAt)}
}

// WebhookRecord is a webhook as listed and read: never its secret.
type WebhookRecord struct {
	ID          int64    `json:"id"`
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description string   `json:"description"`
	CreatedAt   string   `json:"created_at"`
	CreatedBy   Named    `json:"created_by"`
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
	Secret string `json:"secret"`
}

// Record is w as its creation answers it, with its secret.
func (w CreatedWebhook) Record() CreatedWebhookRecord {
	return CreatedWebhookRecord{WebhookRecord: w.Webhook.Record(), Secret: w.Secret}
}

// InterviewRecord is an interview as every answer shows it.
type InterviewRecord struct {
	ID           int64         `json:"id"`
	JobID        int64         `json:"job_id"`
	CandidateID  int64         `json:"candidate_id"`
	Start        string        `json:"start"`
	End          string        `json:"end"`
	Timezone     string        `json:"timezone"`
	Location     *string       `json:"location"`
	VideoURL     *string       `json:"video_url"`
	Interviewers []Interviewer `json:"interviewers"`
	Status       string        `json:"status"`
	Sequence     int           `json:"sequence"`
	CreatedBy    Named         `json:"created_by"`
	CreatedAt    string        `json:"created_at"`
	UpdatedAt    string        `json:"updated_at"`
}

// Interviewer is an interviewer of an interview.
type Interviewer struct {
	ID    int64  `json:"id"`
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
	ID          int64   `json:"id"`
	Object      string  `json:"object"` // always "message": what tells it from a proposal, which a held sending answers
	JobID       int64   `json:"job_id"`
	CandidateID int64   `json:"candidate_id"`
	To          string  `json:"to" supplied:"candidate"`
	Subject     string  `json:"subject"`
	Body        string  `json:"body"`
	Status      string  `json:"status"`
	SendAt      string  `json:"send_at"`
	SentAt      *string `json:"sent_at"`
	Attempts    int     `json:"attempts"`
	LastError   *string `json:"last_error"`
	Author      Named   `json:"author"`
	CreatedAt   string  `json:"created_at"`
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
