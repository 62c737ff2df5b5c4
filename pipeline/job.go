package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"
)

// JobStatus is the status of a job. Any status may follow any other.
type JobStatus string

// Job statuses.
const (
	JobOpen   JobStatus = "open"
	JobDraft  JobStatus = "draft"
	JobClosed JobStatus = "closed"
)

// Valid reports whether s is a job status; statuses are case-sensitive.
func (s JobStatus) Valid() bool { return s == JobOpen || s == JobDraft || s == JobClosed }

// Defaults of a job created through the API.
const (
	DefaultWorkMode       = "onsite"
	DefaultEmploymentType = "full_time"
	DefaultDeadlineDays   = 30
	MaxTitleLength        = 255
)

// DefaultStages is the pipeline of a job created through the API.
var DefaultStages = []string{"Applied", "Screening", "Interview", "Offer", "Hired"}

// Job is a position on a team's hiring pipeline.
type Job struct {
	ID                  int64
	TeamID              int64
	OwnerID             int64
	Title               string
	Status              JobStatus
	Description         string // HTML
	WorkMode            string
	EmploymentType      string
	ApplicationDeadline time.Time // a date
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// JobFilter selects a page of jobs.
type JobFilter struct {
	Status JobStatus // "" means open
	Search string    // case-insensitive substring of the title; "" matches all
	Page   int       // 0 means 1
	// Malformed holds parameters that could not be read; they are reported
	// as validation_failed.
	Malformed FieldErrors
}

// ParseJobStatus reads a status query parameter that was sent: anything but
// open, draft or closed, the empty string included, is a validation error
// naming "status".
func ParseJobStatus(raw string) (JobStatus, error) {
	if s := JobStatus(raw); s.Valid() {
		return s, nil
	}
	return "", Invalid("status", MsgStatus)
}

// NewJob is the input of CreateJob.
type NewJob struct {
	Title       string
	Description string
	// Malformed holds field errors found while decoding the input (wrong
	// types, unknown fields); they are reported as validation_failed.
	Malformed FieldErrors
}

// JobPatch is the input of UpdateJob; nil fields are left as they are.
type JobPatch struct {
	Title       *string
	Description *string
	Status      *JobStatus
	// Malformed holds field errors found while decoding the input; they
	// are reported as validation_failed once the job is found.
	Malformed FieldErrors
}

func validateTitle(f FieldErrors, field, title string) {
	switch {
	case strings.TrimSpace(title) == "":
		f.Add(field, "The title field is required.")
	case utf8.RuneCountInString(title) > MaxTitleLength:
		f.Add(field, "The title may not be greater than 255 characters.")
	}
}

// ListJobs returns a page of the jobs the caller can reach on all of its
// user's teams, newest first. Scope: jobs:read. Errors: unauthenticated,
// insufficient_scope, validation_failed (status, page).
func (s *Service) ListJobs(ctx context.Context, f JobFilter) (List[Job], error) {
	c, err := authorize(ctx, ScopeJobsRead)
	if err != nil {
		return List[Job]{}, err
	}
	bad := f.Malformed.clone()
	if f.Status == "" {
		f.Status = JobOpen
	}
	if !f.Status.Valid() {
		bad.Add("status", MsgStatus)
	}
	if f.Page == 0 {
		f.Page = 1
	}
	if f.Page < 0 {
		bad.Add("page", MsgPage)
	}
	if err := bad.Err(); err != nil {
		return List[Job]{}, err
	}
	return s.store.ListJobs(ctx, c.User.ID, f)
}

// Job returns one job. Scope: jobs:read. Errors: unauthenticated,
// insufficient_scope, not_found.
func (s *Service) Job(ctx context.Context, id int64) (Job, error) {
	c, err := authorize(ctx, ScopeJobsRead)
	if err != nil {
		return Job{}, err
	}
	return s.store.Job(ctx, c.User.ID, id)
}

// CreateJob creates a job on the caller's current team, owned by the caller,
// open, with the default pipeline, work mode, employment type and a deadline
// 30 days out. Scope: jobs:write. Errors: unauthenticated,
// insufficient_scope, validation_failed, forbidden (plan job limit reached),
// conflict (idempotency key in flight).
func (s *Service) CreateJob(ctx context.Context, in NewJob) (Job, error) {
	c, err := authorize(ctx, ScopeJobsWrite)
	if err != nil {
		return Job{}, err
	}
	return write(s, ctx, c, nil, func(tx Tx, _ struct{}) (Job, error) {
		f := in.Malformed.clone()
		if f.decoded("title") {
			validateTitle(f, "title", in.Title)
		}
		if err := f.Err(); err != nil {
			return Job{}, err
		}
		team, err := tx.LockTeam(ctx, c.Team.ID)
		if err != nil {
			return Job{}, err
		}
		if err := checkJobLimit(ctx, tx, team); err != nil {
			return Job{}, err
		}
		now := s.now()
		j, err := tx.InsertJob(ctx, Job{
			TeamID:              team.ID,
			OwnerID:             c.User.ID,
			Title:               in.Title,
			Status:              JobOpen,
			Description:         in.Description,
			WorkMode:            DefaultWorkMode,
			EmploymentType:      DefaultEmploymentType,
			ApplicationDeadline: Date(now).AddDate(0, 0, DefaultDeadlineDays),
			CreatedAt:           now,
			UpdatedAt:           now,
		}, DefaultStages)
		if err != nil {
			return Job{}, err
		}
		changes := map[string]Change{
			"title":                {After: j.Title},
			"description":          {After: j.Description},
			"status":               {After: j.Status},
			"work_mode":            {After: j.WorkMode},
			"employment_type":      {After: j.EmploymentType},
			"application_deadline": {After: j.ApplicationDeadline.Format(time.DateOnly)},
		}
		return j, s.log(ctx, tx, c, j.TeamID, ActionJobCreated, SubjectJob, j.ID, changes)
	})
}

// UpdateJob changes the title, description or status of a job. A patch that
// changes nothing writes nothing. Reopening a closed job counts against the
// plan's job limit. Scope: jobs:write. Errors: unauthenticated,
// insufficient_scope, not_found, validation_failed, forbidden (plan job
// limit reached), conflict (idempotency key in flight).
func (s *Service) UpdateJob(ctx context.Context, id int64, p JobPatch) (Job, error) {
	c, err := authorize(ctx, ScopeJobsWrite)
	if err != nil {
		return Job{}, err
	}
	load := func(tx Tx) (Job, error) { return tx.JobForUpdate(ctx, c.User.ID, id) }
	return write(s, ctx, c, load, func(tx Tx, j Job) (Job, error) {
		f := p.Malformed.clone()
		if len(f) == 0 && p.Title == nil && p.Description == nil && p.Status == nil {
			f.Add("body", "At least one of title, description, status is required.")
		}
		if p.Title != nil {
			validateTitle(f, "title", *p.Title)
		}
		if p.Status != nil && !p.Status.Valid() {
			f.Add("status", MsgStatus)
		}
		if err := f.Err(); err != nil {
			return Job{}, err
		}
		changes := map[string]Change{}
		if p.Title != nil && *p.Title != j.Title {
			changes["title"] = Change{Before: j.Title, After: *p.Title}
			j.Title = *p.Title
		}
		if p.Description != nil && *p.Description != j.Description {
			changes["description"] = Change{Before: j.Description, After: *p.Description}
			j.Description = *p.Description
		}
		if p.Status != nil && *p.Status != j.Status {
			if j.Status == JobClosed {
				// Reopening takes a slot of the plan's job limit, as creating does.
				team, err := tx.LockTeam(ctx, j.TeamID)
				if err != nil {
					return Job{}, err
				}
				if err := checkJobLimit(ctx, tx, team); err != nil {
					return Job{}, err
				}
			}
			changes["status"] = Change{Before: j.Status, After: *p.Status}
			j.Status = *p.Status
		}
		if len(changes) == 0 {
			return j, nil
		}
		j.UpdatedAt = s.now()
		if err := tx.UpdateJob(ctx, j); err != nil {
			return Job{}, err
		}
		return j, s.log(ctx, tx, c, j.TeamID, ActionJobUpdated, SubjectJob, j.ID, changes)
	})
}

// checkJobLimit refuses one more job that is not closed on a team whose
// plan limit is reached. The team must be locked (Tx.LockTeam).
func checkJobLimit(ctx context.Context, tx Tx, team Team) error {
	if team.JobLimit == nil {
		return nil
	}
	n, err := tx.CountActiveJobs(ctx, team.ID)
	if err != nil {
		return err
	}
	if n >= *team.JobLimit {
		return Errorf(EForbidden, "The plan's job limit has been reached.")
	}
	return nil
}

// Change is the before and after of one changed field in an activity entry.
type Change struct {
	Before any `json:"before"`
	After  any `json:"after"`
}

func mustJSON(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // descriptions are HTML; keep the log readable
	if err := enc.Encode(v); err != nil {
		panic(err) // only maps of strings and numbers are encoded here
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}
