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

// Defaults and limits of jobs.
const (
	DefaultWorkMode       = "onsite"
	DefaultEmploymentType = "full_time"
	DefaultDeadlineDays   = 30
	// MaxTitleLength is the longest title, in characters (code points).
	MaxTitleLength = 255
	// MaxDescriptionLength is the longest description, in characters.
	MaxDescriptionLength = 65535
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

// JobFilter selects a page of jobs. The zero value selects the first page
// of open jobs.
type JobFilter struct {
	Status JobStatus // "": open
	Search string    // case-insensitive substring of the title; "": all
	Page   int       // from 1; 0: the first page
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error
}

// SetUnread sets what a face could not read of the request.
func (in *JobFilter) SetUnread(err error) { in.Unread = err }

const (
	msgStatus = "The status must be one of open, draft, closed."
	msgPage   = "The page must be an integer greater than or equal to 1."
)

// Validate reports what is wrong with the filter.
func (f JobFilter) Validate() error { return inputVerdict(f.Unread, f.check()) }

func (f JobFilter) check() error {
	bad := FieldErrors{}
	checkText(bad, "search", f.Search)
	if f.Status != "" && !f.Status.Valid() {
		bad.Add("status", msgStatus)
	}
	if f.Page < 0 {
		bad.Add("page", msgPage)
	}
	return bad.Err()
}

// withDefaults is the filter with its defaults applied: the one place they
// are decided.
func (f JobFilter) withDefaults() JobFilter {
	if f.Status == "" {
		f.Status = JobOpen
	}
	f.Page = max(f.Page, 1)
	return f
}

// NewJob is the input of CreateJob.
type NewJob struct {
	Title       string       `json:"title"`
	Description string       `json:"description,omitempty"` // HTML; optional
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *NewJob) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *NewJob) SetUnread(err error) { in.Unread = err }

// Validate reports what is wrong with the input without consulting storage.
func (in NewJob) Validate() error { return inputVerdict(in.Unread, in.check()) }

func (in NewJob) check() error {
	f := FieldErrors{}
	validateTitle(f, "title", in.Title)
	validateDescription(f, in.Description)
	return f.Err()
}

// JobPatch is the input of UpdateJob; nil fields are left as they are.
type JobPatch struct {
	Title       *string      `json:"title,omitempty"`
	Description *string      `json:"description,omitempty"`
	Status      *JobStatus   `json:"status,omitempty"`
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *JobPatch) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *JobPatch) SetUnread(err error) { in.Unread = err }

// Validate reports what is wrong with the patch without consulting storage.
func (p JobPatch) Validate() error { return inputVerdict(p.Unread, p.check()) }

func (p JobPatch) check() error {
	f := FieldErrors{}
	if p.Title == nil && p.Description == nil && p.Status == nil {
		f.Add("body", "At least one of title, description, status is required.")
	}
	if p.Title != nil {
		validateTitle(f, "title", *p.Title)
	}
	if p.Description != nil {
		validateDescription(f, *p.Description)
	}
	if p.Status != nil && !p.Status.Valid() {
		f.Add("status", msgStatus)
	}
	return f.Err()
}

func validateTitle(f FieldErrors, field, title string) {
	switch {
	case !checkText(f, field, title):
	case strings.TrimSpace(title) == "":
		f.Add(field, "The title field is required.")
	case utf8.RuneCountInString(title) > MaxTitleLength:
		f.Add(field, "The title may not be greater than 255 characters.")
	}
}

func validateDescription(f FieldErrors, d string) {
	if checkText(f, "description", d) && utf8.RuneCountInString(d) > MaxDescriptionLength {
		f.Add("description", "The description may not be greater than 65535 characters.")
	}
}

// ListJobs returns a page of the jobs the caller can reach on all of its
// user's teams, newest first. Scope: jobs:read. Errors: unauthenticated,
// insufficient_scope, validation_failed (status, search, page).
func (s *Service) ListJobs(ctx context.Context, f JobFilter) (List[Job], error) {
	c, err := authorize(ctx, OpListJobs)
	if err != nil {
		return List[Job]{}, err
	}
	if err := f.Validate(); err != nil {
		return List[Job]{}, err
	}
	return s.store.Jobs().List(ctx, ListJobsParams{Viewer: c.user.ID, Filter: f.withDefaults()})
}

// GetJob returns one job. Scope: jobs:read. Errors: unauthenticated,
// insufficient_scope, not_found.
func (s *Service) GetJob(ctx context.Context, id int64) (Job, error) {
	c, err := authorize(ctx, OpGetJob)
	if err != nil {
		return Job{}, err
	}
	return s.store.Jobs().Get(ctx, JobParams{Viewer: c.user.ID, ID: id})
}

// CreateJob creates a job on the caller's current team, owned by the caller,
// open, with the default pipeline, work mode, employment type and a deadline
// 30 days out. Scope: jobs:write. Errors: unauthenticated,
// insufficient_scope, validation_failed, forbidden (plan job limit reached),
// conflict (idempotency key in flight).
func (s *Service) CreateJob(ctx context.Context, in NewJob) (Result[Job], error) {
	c, err := authorize(ctx, OpCreateJob)
	if err != nil {
		return Result[Job]{}, err
	}
	k, err := takeKey(OpCreateJob, Ref{}, &in, &in.Idempotency)
	if err != nil {
		return Result[Job]{}, err
	}
	return write(s, ctx, c, k, nil, func(tx Tx, _ struct{}) (Job, error) {
		if err := in.Validate(); err != nil {
			return Job{}, err
		}
		team, err := tx.Jobs().LockTeam(ctx, TeamParams{ID: c.team.ID})
		if err != nil {
			return Job{}, err
		}
		if err := checkJobLimit(ctx, tx, team); err != nil {
			return Job{}, err
		}
		j, err := tx.Jobs().Insert(ctx, InsertJobParams{Job: s.newJob(c, team, in), Stages: DefaultStages})
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
		return j, s.log(ctx, tx, c, j.TeamID, j.ID, ActionJobCreated, SubjectJob, j.ID, changes)
	})
}

// newJob is a job created through the API, with its defaults.
func (s *Service) newJob(c Caller, team Team, in NewJob) Job {
	now := s.now()
	return Job{
		TeamID:              team.ID,
		OwnerID:             c.user.ID,
		Title:               in.Title,
		Status:              JobOpen,
		Description:         in.Description,
		WorkMode:            DefaultWorkMode,
		EmploymentType:      DefaultEmploymentType,
		ApplicationDeadline: Date(now).AddDate(0, 0, DefaultDeadlineDays),
		CreatedAt:           now,
		UpdatedAt:           now,
	}
}

// UpdateJob changes the title, description or status of a job. A patch that
// changes nothing writes nothing. Reopening a closed job counts against the
// plan's job limit. Scope: jobs:write. Errors: unauthenticated,
// insufficient_scope, not_found, validation_failed, forbidden (plan job
// limit reached), conflict (idempotency key in flight).
func (s *Service) UpdateJob(ctx context.Context, id int64, p JobPatch) (Result[Job], error) {
	c, err := authorize(ctx, OpUpdateJob)
	if err != nil {
		return Result[Job]{}, err
	}
	k, err := takeKey(OpUpdateJob, Ref{Job: id}, &p, &p.Idempotency)
	if err != nil {
		return Result[Job]{}, err
	}
	load := func(tx Tx, _ KeyClaim) (Job, error) { return tx.Jobs().Lock(ctx, JobParams{Viewer: c.user.ID, ID: id}) }
	return write(s, ctx, c, k, load, func(tx Tx, j Job) (Job, error) {
		if err := p.Validate(); err != nil {
			return Job{}, err
		}
		changes := p.apply(&j)
		if len(changes) == 0 {
			return j, nil
		}
		if st, ok := changes["status"]; ok && st.Before == JobClosed {
			// Reopening takes a slot of the plan's job limit, as creating does.
			team, err := tx.Jobs().LockTeam(ctx, TeamParams{ID: j.TeamID})
			if err != nil {
				return Job{}, err
			}
			if err := checkJobLimit(ctx, tx, team); err != nil {
				return Job{}, err
			}
		}
		j.UpdatedAt = s.now()
		if err := tx.Jobs().Update(ctx, j); err != nil {
			return Job{}, err
		}
		return j, s.log(ctx, tx, c, j.TeamID, j.ID, ActionJobUpdated, SubjectJob, j.ID, changes)
	})
}

// apply changes j as p says and returns what changed.
func (p JobPatch) apply(j *Job) map[string]Change {
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
		changes["status"] = Change{Before: j.Status, After: *p.Status}
		j.Status = *p.Status
	}
	return changes
}

// checkJobLimit refuses one more job that is not closed on a team whose
// plan limit is reached. The team must be locked (JobTx.LockTeam).
func checkJobLimit(ctx context.Context, tx Tx, team Team) error {
	if team.JobLimit == nil {
		return nil
	}
	n, err := tx.Jobs().CountActive(ctx, TeamParams{ID: team.ID})
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

// The operations on jobs.
const (
	OpListJobs  Op = "list_jobs"
	OpCreateJob Op = "create_job"
	OpGetJob    Op = "get_job"
	OpUpdateJob Op = "update_job"
)

// jobPath is the path of one job, below /api/v1.
const jobPath = "/jobs/{job}"

// jobOps are the rows of opTable for these operations, in the order of
// the API's document.
var jobOps = []opRow{
	{OpListJobs, opTraits{ScopeJobsRead, mGet, "/jobs", 0}, nil, &Words{Title: "List jobs", Description: "A page of 15 of the jobs the token can reach, newest first, with links and meta (GET /api/v1/jobs). status defaults to open; search matches the title."}, Doc{
		Tag: "Jobs", Summary: "List jobs",
		Description: "Scope: `jobs:read`. The jobs the token can reach on all of its user's teams, newest first " +
			"(`created_at`, then `id`, descending), 15 a page.",
		Success: "A page of jobs.",
		Invalid: "`validation_failed`: `status` is not one of `open`, `draft`, `closed` (the message names them), " +
			"`page` is not an integer of at least 1, `search` is not valid text, or a value is not validly " +
			"percent-encoded; `details` names the parameter.",
		Params: map[string]string{
			"status": "Only jobs with this status; `open` when absent. Any other value, an empty one included, " +
				"answers 422 naming `status`.",
		},
	}},
	{OpCreateJob, opTraits{ScopeJobsWrite, mPost, "/jobs", forbids | creates}, runs(onTeam((*Service).CreateJob), Job.Record), &Words{Title: "Create a job", Description: "Creates an open job on the token's team with the default pipeline (Applied, Screening, Interview, Offer, Hired) and returns it (POST /api/v1/jobs). forbidden when the plan's job limit is reached."}, Doc{
		Tag: "Jobs", Summary: "Create a job",
		Description: "Scope: `jobs:write`. Creates an open job on the current team of the token's user, owned by " +
			"that user, with work mode `onsite`, employment type `full_time`, an application deadline 30 days " +
			"out and the default pipeline `Applied`, `Screening`, `Interview`, `Offer`, `Hired`.\n\n" +
			"Plan job limit: when the team already has as many jobs that are not closed as its plan allows, " +
			"nothing is created and the answer is 403 `forbidden`. Closing a job frees a place.",
		Success: "The job was created (or this is the replay of its creation).",
		Forbidden: "`insufficient_scope`: the token lacks `jobs:write`. `forbidden`: the team's plan job limit is " +
			"reached, so no job was created.",
		Invalid: "`validation_failed`: the title is missing, blank or longer than 255 characters, the description " +
			"is longer than 65,535 characters, either is not valid text, the body is not a JSON object, a field " +
			"has the wrong type or is not taken (`status`, for example), or the `Idempotency-Key` is invalid or " +
			"was used for a different request.",
	}},
	{OpGetJob, opTraits{ScopeJobsRead, mGet, jobPath, 0}, nil, &Words{Title: "Get a job", Description: "One job in full (GET /api/v1/jobs/{job})."}, Doc{
		Tag: "Jobs", Summary: "Read a job",
		Description: "Scope: `jobs:read`. One job in full.",
		Success:     "The job.",
	}},
	{OpUpdateJob, opTraits{ScopeJobsWrite, mPatch, jobPath, forbids}, runs(onJob((*Service).UpdateJob), Job.Record), &Words{Title: "Update a job", Description: "Changes any of title, description, status and returns the job (PATCH /api/v1/jobs/{job}); send at least one. Reopening a closed job needs a free slot of the plan's job limit."}, Doc{
		Tag: "Jobs", Summary: "Update a job",
		Description: "Scope: `jobs:write`. Changes the fields sent, at least one of `title`, `description` and " +
			"`status`. Any status may follow any other. A request that changes nothing answers 200 and is not " +
			"logged.\n\n" +
			"Plan job limit: reopening a closed job (a `status` of `open` or `draft` sent for a job that is " +
			"`closed`) takes a place of the team's plan job limit, as creating a job does. When no place is " +
			"free, the job is left unchanged, none of the fields sent is applied, and the answer is 403 " +
			"`forbidden`. Closing a job frees its place; changes between `open` and `draft` do not count.",
		Success: "The job as it is now.",
		Forbidden: "`insufficient_scope`: the token lacks `jobs:write`. `forbidden`: the request reopens a closed " +
			"job while the team's plan job limit is reached; nothing was changed.",
		Invalid: "`validation_failed`: none of `title`, `description`, `status` was sent (reported under `body`), " +
			"a title is blank or too long, a description is longer than 65,535 characters, either is not valid " +
			"text, a status is not one of `open`, `draft`, `closed` (the message names them), a field has the " +
			"wrong type or is not taken, or the `Idempotency-Key` is invalid or was used for a different request.",
	}},
}

// JobStore is what the Service reads of jobs and their stages outside a
// write.
type JobStore interface {
	// List returns a page of the jobs the viewer can reach, newest first
	// (created_at, then id, descending).
	List(ctx context.Context, p ListJobsParams) (List[Job], error)
	// Get returns a job the viewer can reach.
	Get(ctx context.Context, p JobParams) (Job, error)
	// Stages returns the stages of a job the viewer can reach, in
	// pipeline order.
	Stages(ctx context.Context, p JobParams) ([]Stage, error)
}

// JobParams names a job, read for a viewer.
type JobParams struct {
	Viewer, ID int64
}

// ListJobsParams selects a page of the jobs a viewer can reach.
type ListJobsParams struct {
	Viewer int64
	Filter JobFilter
}

// JobTx is what a write transaction does to jobs. A job it updates is one
// Lock returned.
type JobTx interface {
	// LockTeam returns the team and holds it against concurrent job
	// creation until the transaction ends.
	LockTeam(ctx context.Context, p TeamParams) (Team, error)
	// CountActive counts the team's jobs that are not closed (open and
	// draft), each as the last committed change of its status left it.
	CountActive(ctx context.Context, p TeamParams) (int, error)
	// Insert stores a job with its stages, named in pipeline order, and
	// returns it with its id.
	Insert(ctx context.Context, p InsertJobParams) (Job, error)
	// Lock returns a job the viewer can reach, locked.
	Lock(ctx context.Context, p JobParams) (Job, error)
	// Update stores the title, description, status and updated_at of a
	// locked job, and when it last changed to closed: set when it becomes
	// closed, cleared when it is reopened.
	Update(ctx context.Context, j Job) error
}

// InsertJobParams is a new job with the names of its stages, in pipeline
// order.
type InsertJobParams struct {
	Job    Job
	Stages []string
}
