package pipelinestore

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The row structs below mirror the tables. They stay inside this package:
// the domain types carry no storage tags, and the to* functions convert at
// the edge. Fields marked scanonly are computed by queries (joins, counts).

type teamRow struct {
	bun.BaseModel `bun:"table:teams"`

	ID       int64  `bun:"id,pk,autoincrement"`
	Key      string `bun:"key"`
	Name     string `bun:"name"`
	JobLimit *int   `bun:"job_limit"`

	RetentionDays         int        `bun:"retention_days"`
	RetentionPreviousDays int        `bun:"retention_previous_days"`
	RetentionSetAt        *time.Time `bun:"retention_set_at"`
}

func (r teamRow) toTeam() pipeline.Team {
	var setAt *time.Time
	if r.RetentionSetAt != nil {
		t := r.RetentionSetAt.UTC()
		setAt = &t
	}
	return pipeline.Team{ID: r.ID, Key: r.Key, Name: r.Name, JobLimit: r.JobLimit,
		Retention: pipeline.Retention{Days: r.RetentionDays, PreviousDays: r.RetentionPreviousDays, SetAt: setAt}}
}

type userRow struct {
	bun.BaseModel `bun:"table:users"`

	ID            int64  `bun:"id,pk,autoincrement"`
	Name          string `bun:"name"`
	Email         string `bun:"email"`
	EmailFold     string `bun:"email_fold"` // pipeline.Fold(Email), unique
	CurrentTeamID int64  `bun:"current_team_id"`
}

func (r userRow) toUser() pipeline.User {
	return pipeline.User{ID: r.ID, Name: r.Name, Email: r.Email}
}

type membershipRow struct {
	bun.BaseModel `bun:"table:memberships"`

	UserID int64  `bun:"user_id,pk"`
	TeamID int64  `bun:"team_id,pk"`
	Role   string `bun:"role"`
}

type jobRow struct {
	bun.BaseModel `bun:"table:jobs"`

	ID                  int64     `bun:"id,pk,autoincrement"`
	TeamID              int64     `bun:"team_id"`
	OwnerID             int64     `bun:"owner_id"`
	Title               string    `bun:"title"`
	TitleFold           string    `bun:"title_fold"`
	Status              string    `bun:"status"`
	Description         string    `bun:"description"`
	WorkMode            string    `bun:"work_mode"`
	EmploymentType      string    `bun:"employment_type"`
	ApplicationDeadline date      `bun:"application_deadline"`
	CreatedAt           time.Time `bun:"created_at"`
	UpdatedAt           time.Time `bun:"updated_at"`
	// ClosedAt is when the job last changed to closed; nil while it is
	// not closed.
	ClosedAt *time.Time `bun:"closed_at"`

	Total int `bun:"total,scanonly"` // window count of a list query
}

func newJobRow(j pipeline.Job) jobRow {
	return jobRow{
		ID:                  j.ID,
		TeamID:              j.TeamID,
		OwnerID:             j.OwnerID,
		Title:               j.Title,
		TitleFold:           pipeline.Fold(j.Title),
		Status:              string(j.Status),
		Description:         j.Description,
		WorkMode:            j.WorkMode,
		EmploymentType:      j.EmploymentType,
		ApplicationDeadline: date(pipeline.Date(j.ApplicationDeadline)),
		CreatedAt:           ts(j.CreatedAt),
		UpdatedAt:           ts(j.UpdatedAt),
		ClosedAt:            closedAt(j),
	}
}

// closedAt is when a job stored as it is changed to closed: its last
// change, when it is closed.
func closedAt(j pipeline.Job) *time.Time {
	if j.Status != pipeline.JobClosed {
		return nil
	}
	at := ts(j.UpdatedAt)
	return &at
}

func (r jobRow) windowTotal() int { return r.Total }

func (r jobRow) toJob() pipeline.Job {
	return pipeline.Job{
		ID:                  r.ID,
		TeamID:              r.TeamID,
		OwnerID:             r.OwnerID,
		Title:               r.Title,
		Status:              pipeline.JobStatus(r.Status),
		Description:         r.Description,
		WorkMode:            r.WorkMode,
		EmploymentType:      r.EmploymentType,
		ApplicationDeadline: time.Time(r.ApplicationDeadline),
		CreatedAt:           r.CreatedAt.UTC(),
		UpdatedAt:           r.UpdatedAt.UTC(),
	}
}

type jobAssigneeRow struct {
	bun.BaseModel `bun:"table:job_assignees"`

	JobID  int64 `bun:"job_id,pk"`
	UserID int64 `bun:"user_id,pk"`
}

type stageRow struct {
	bun.BaseModel `bun:"table:stages"`

	ID       int64  `bun:"id,pk,autoincrement"`
	JobID    int64  `bun:"job_id"`
	Name     string `bun:"name"`
	Position int    `bun:"position"`
}

type candidateRow struct {
	bun.BaseModel `bun:"table:candidates"`

	ID        int64     `bun:"id,pk,autoincrement"`
	JobID     int64     `bun:"job_id"`
	StageID   int64     `bun:"stage_id"`
	Name      string    `bun:"name"`
	Email     string    `bun:"email"`
	NameFold  string    `bun:"name_fold"`
	EmailFold string    `bun:"email_fold"`
	Applied   date      `bun:"applied"`
	Status    string    `bun:"status"`
	ResumeURL string    `bun:"resume_url"`
	CreatedAt time.Time `bun:"created_at"`
	UpdatedAt time.Time `bun:"updated_at"`

	ErasedAt *time.Time `bun:"erased_at"`

	TeamID     int64  `bun:"team_id,scanonly"`
	Stage      string `bun:"stage,scanonly"`
	NotesCount int    `bun:"notes_count"`
	Total      int    `bun:"total,scanonly"`
	JobSize    int64  `bun:"job_size,scanonly"` // the job's candidates, beside a search's page
}

func (r candidateRow) toCandidate() pipeline.Candidate {
	return pipeline.Candidate{
		ID:         r.ID,
		JobID:      r.JobID,
		TeamID:     r.TeamID,
		Name:       r.Name,
		Email:      r.Email,
		Applied:    time.Time(r.Applied),
		StageID:    r.StageID,
		Stage:      r.Stage,
		Status:     r.Status,
		ResumeURL:  r.ResumeURL,
		NotesCount: r.NotesCount,
		ErasedAt:   utcPtr(r.ErasedAt),
	}
}

type ratingRow struct {
	bun.BaseModel `bun:"table:ratings"`

	CandidateID int64     `bun:"candidate_id,pk"`
	UserID      int64     `bun:"user_id,pk"`
	Value       string    `bun:"value"`
	UpdatedAt   time.Time `bun:"updated_at"`
}

func (r ratingRow) toRating() pipeline.Rating {
	return pipeline.Rating{
		CandidateID: r.CandidateID,
		UserID:      r.UserID,
		Value:       pipeline.RatingValue(r.Value),
		UpdatedAt:   r.UpdatedAt.UTC(),
	}
}

type tokenRow struct {
	bun.BaseModel `bun:"table:tokens"`

	ID         int64                    `bun:"id,pk,autoincrement"`
	UserID     int64                    `bun:"user_id"`
	TeamID     int64                    `bun:"team_id"`
	Name       string                   `bun:"name"`
	Scopes     textList[pipeline.Scope] `bun:"scopes"`
	Approval   textList[pipeline.Op]    `bun:"approval"` // the names as given, sorted
	Hash       string                   `bun:"hash"`
	CreatedAt  time.Time                `bun:"created_at"`
	ExpiresAt  time.Time                `bun:"expires_at"`
	LastUsedAt *time.Time               `bun:"last_used_at"`
	RevokedAt  *time.Time               `bun:"revoked_at"`
}

func newTokenRow(t pipeline.Token) tokenRow {
	return tokenRow{
		ID:         t.ID,
		UserID:     t.UserID,
		TeamID:     t.TeamID,
		Name:       t.Name,
		Scopes:     textList[pipeline.Scope](t.Scopes),
		Approval:   textList[pipeline.Op](t.Approval),
		Hash:       t.Hash,
		CreatedAt:  ts(t.CreatedAt),
		ExpiresAt:  ts(t.ExpiresAt),
		LastUsedAt: tsPtr(t.LastUsedAt),
		RevokedAt:  tsPtr(t.RevokedAt),
	}
}

func (r tokenRow) toToken() pipeline.Token {
	return pipeline.Token{
		ID:         r.ID,
		UserID:     r.UserID,
		TeamID:     r.TeamID,
		Name:       r.Name,
		Scopes:     []pipeline.Scope(r.Scopes),
		Approval:   append([]pipeline.Op{}, r.Approval...),
		Hash:       r.Hash,
		CreatedAt:  r.CreatedAt.UTC(),
		ExpiresAt:  r.ExpiresAt.UTC(),
		LastUsedAt: utcPtr(r.LastUsedAt),
		RevokedAt:  utcPtr(r.RevokedAt),
	}
}

type activityRow struct {
	bun.BaseModel `bun:"table:activity"`

	ID          int64     `bun:"id,pk,autoincrement"`
	TeamID      int64     `bun:"team_id"`
	JobID       int64     `bun:"job_id,nullzero"` // NULL for a webhook's entries
	UserID      int64     `bun:"user_id"`
	TokenID     int64     `bun:"token_id,nullzero"` // NULL when made without a token
	IP          string    `bun:"ip"`
	Action      string    `bun:"action"`
	SubjectType string    `bun:"subject_type"`
	SubjectID   int64     `bun:"subject_id"`
	Changes     string    `bun:"changes"`     // JSON text, stored and returned as written
	Reason      *string   `bun:"reason"`      // NULL when none was given
	ApprovedBy  *string   `bun:"approved_by"` // JSON; NULL when not approved
	CreatedAt   time.Time `bun:"created_at"`

	Seq      int64  `bun:"seq,scanonly"`       // the feed's sequence (see FeedPosition)
	UserName string `bun:"user_name,scanonly"` // the actor's name, in the feed
}

func (r activityRow) toActivity() pipeline.Activity {
	var by *pipeline.ApprovedBy
	if r.ApprovedBy != nil {
		by = new(pipeline.ApprovedBy)
		if json.Unmarshal([]byte(*r.ApprovedBy), by) != nil {
			by = nil
		}
	}
	return pipeline.Activity{
		ApprovedBy:  by,
		ID:          r.ID,
		TeamID:      r.TeamID,
		JobID:       r.JobID,
		UserID:      r.UserID,
		TokenID:     r.TokenID,
		IP:          r.IP,
		Action:      r.Action,
		SubjectType: r.SubjectType,
		SubjectID:   r.SubjectID,
		Changes:     json.RawMessage(r.Changes),
		Reason:      r.Reason,
		CreatedAt:   r.CreatedAt.UTC(),
	}
}

func (r activityRow) toFeedEntry() pipeline.FeedEntry {
	return pipeline.FeedEntry{
		Activity: r.toActivity(),
		Actor:    pipeline.User{ID: r.UserID, Name: r.UserName},
		Position: pipeline.FeedPosition{Seq: r.Seq, ID: r.ID},
	}
}

// date is a calendar day in a DATE column. It is written as YYYY-MM-DD and
// read back as UTC midnight, so both dialects round-trip the same value
// whatever their session time zone.
type date time.Time

// Value implements driver.Valuer.
func (d date) Value() (driver.Value, error) {
	return time.Time(d).UTC().Format(time.DateOnly), nil
}

// Scan implements sql.Scanner: PostgreSQL sends a DATE as text, SQLite as
// text or a time parsed from its declared type.
func (d *date) Scan(src any) error {
	var s string
	switch v := src.(type) {
	case nil: // a row an outer join did not find
		*d = date{}
		return nil
	case time.Time:
		*d = date(pipeline.Date(v))
		return nil
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("pipelinestore: cannot scan %T into a date", src)
	}
	if len(s) > len(time.DateOnly) {
		s = s[:len(time.DateOnly)]
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return err
	}
	*d = date(t)
	return nil
}

// textList is a token's scopes or approval policy, stored as one
// comma-separated text column: the set is small and always read whole.
type textList[T ~string] []T

// Value implements driver.Valuer.
func (l textList[T]) Value() (driver.Value, error) {
	parts := make([]string, len(l))
	for i, s := range l {
		parts[i] = string(s)
	}
	return strings.Join(parts, ","), nil
}

// Scan implements sql.Scanner.
func (l *textList[T]) Scan(src any) error {
	var s string
	switch v := src.(type) {
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("pipelinestore: cannot scan %T into a list", src)
	}
	*l = nil
	if s == "" {
		return nil
	}
	for _, p := range strings.Split(s, ",") {
		*l = append(*l, T(p))
	}
	return nil
}

// ts is a timestamp as stored: UTC, to the microsecond, which both
// databases keep exactly.
func ts(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func tsPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := ts(*t)
	return &u
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
