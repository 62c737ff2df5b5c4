package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// SeedWorld is the seed file of `pipelined seed`: teams, users, jobs with
// their stages and candidates, and tokens, named by keys that the file uses
// to refer to them.
type SeedWorld struct {
	Teams  []SeedTeam  `json:"teams"`
	Users  []SeedUser  `json:"users"`
	Jobs   []SeedJob   `json:"jobs"`
	Tokens []SeedToken `json:"tokens"`

	// LoadedAt is when Seed loaded the world: the time of the records the
	// file gives no time for, such as candidates.
	LoadedAt time.Time `json:"-"`
}

// SeedTeam is a team of the seed file.
type SeedTeam struct {
	Key      string `json:"key"`
	Name     string `json:"name"`
	JobLimit *int   `json:"job_limit"`
}

// SeedUser is a user of the seed file.
type SeedUser struct {
	Key         string           `json:"key"`
	Name        string           `json:"name"`
	Email       string           `json:"email"`
	CurrentTeam string           `json:"current_team"`
	Memberships []SeedMembership `json:"memberships"`
}

// SeedMembership is a user's role on a team.
type SeedMembership struct {
	Team string `json:"team"`
	Role Role   `json:"role"`
}

// SeedJob is a job of the seed file.
type SeedJob struct {
	Key         string          `json:"key"`
	Team        string          `json:"team"`
	Owner       string          `json:"owner"`
	Assignees   []string        `json:"assignees"`
	Title       string          `json:"title"`
	Status      JobStatus       `json:"status"`
	Description string          `json:"description"`
	CreatedAt   *time.Time      `json:"created_at"`
	Stages      []string        `json:"stages"`
	Candidates  []SeedCandidate `json:"candidates"`

	// Set by Seed from the defaults of a job created through the API.
	WorkMode            string    `json:"-"`
	EmploymentType      string    `json:"-"`
	ApplicationDeadline time.Time `json:"-"`
}

// SeedCandidate is a candidate of a seed job.
type SeedCandidate struct {
	Key       string `json:"key"`
	Name      string `json:"name"`
	Email     string `json:"email"`
	Applied   string `json:"applied"` // YYYY-MM-DD
	Stage     string `json:"stage"`
	Status    string `json:"status"`
	ResumeURL string `json:"resume_url"`
}

// SeedToken is a token of the seed file.
type SeedToken struct {
	Key       string     `json:"key"`
	User      string     `json:"user"`
	Name      string     `json:"name"`
	Scopes    []Scope    `json:"scopes"`
	CreatedAt *time.Time `json:"created_at"`
	Revoked   bool       `json:"revoked"`

	// Set by Seed; the token's value itself is never stored.
	Hash      string     `json:"-"`
	ExpiresAt time.Time  `json:"-"`
	RevokedAt *time.Time `json:"-"`
}

// SeedResult names what a seed created: ids by key, stage ids by job key and
// stage name, and token values by key.
type SeedResult struct {
	Teams      map[string]int64            `json:"teams"`
	Users      map[string]int64            `json:"users"`
	Jobs       map[string]int64            `json:"jobs"`
	Stages     map[string]map[string]int64 `json:"stages"`
	Candidates map[string]int64            `json:"candidates"`
	Tokens     map[string]string           `json:"tokens"`

	// Warnings name what was left out without failing the load: an
	// assignee that is no user of the file.
	Warnings []string `json:"-"`
}

// Seed validates a world, fills in its defaults and stores it in one
// transaction: either all of it is loaded or nothing. It writes no activity.
// It is an operator operation. Errors: validation_failed (details name the
// offending entries), conflict (an email already taken).
func (s *Service) Seed(ctx context.Context, w *SeedWorld) (SeedResult, error) {
	now := s.now()
	warnings, err := w.normalize(now)
	if err != nil {
		return SeedResult{}, err
	}
	values := map[string]string{}
	for i := range w.Tokens {
		v := NewTokenValue()
		values[w.Tokens[i].Key] = v
		w.Tokens[i].Hash = HashToken(v)
	}
	res, err := s.store.Seed(ctx, w)
	if err != nil {
		return SeedResult{}, err
	}
	res.Tokens = values
	res.Warnings = warnings
	return res, nil
}

// normalize checks references and values and applies the defaults. An
// assignee who is no user of the file is dropped with a warning rather than
// failing the load: the operator contract's own example names one.
func (w *SeedWorld) normalize(now time.Time) (warnings []string, err error) {
	w.LoadedAt = now
	f := FieldErrors{}
	keys := func(kind string) func(i int, key string) {
		seen := map[string]bool{}
		return func(i int, key string) {
			at := fmt.Sprintf("%s[%d].key", kind, i)
			if key == "" {
				f.Add(at, "The key is required.")
			} else if seen[key] {
				f.Add(at, "The key "+key+" is used twice.")
			}
			seen[key] = true
		}
	}
	teams, users := map[string]bool{}, map[string]bool{}
	member := map[[2]string]bool{} // user key, team key
	teamKey := keys("teams")
	for i, t := range w.Teams {
		teamKey(i, t.Key)
		teams[t.Key] = true
		if strings.TrimSpace(t.Name) == "" {
			f.Add(fmt.Sprintf("teams[%d].name", i), "The name is required.")
		}
		if t.JobLimit != nil && *t.JobLimit < 0 {
			f.Add(fmt.Sprintf("teams[%d].job_limit", i), "The job limit may not be negative.")
		}
	}
	userKey, emails := keys("users"), map[string]bool{}
	for i, u := range w.Users {
		userKey(i, u.Key)
		users[u.Key] = true
		at := fmt.Sprintf("users[%d]", i)
		if strings.TrimSpace(u.Name) == "" {
			f.Add(at+".name", "The name is required.")
		}
		if !strings.Contains(u.Email, "@") || emails[strings.ToLower(u.Email)] {
			f.Add(at+".email", "A unique email address is required.")
		}
		emails[strings.ToLower(u.Email)] = true
		current := false
		for j, m := range u.Memberships {
			member[[2]string{u.Key, m.Team}] = true
			if !teams[m.Team] {
				f.Add(fmt.Sprintf("%s.memberships[%d].team", at, j), "Unknown team "+m.Team+".")
			}
			if !m.Role.Valid() {
				f.Add(fmt.Sprintf("%s.memberships[%d].role", at, j), "The role must be owner, admin or member.")
			}
			current = current || m.Team == u.CurrentTeam
		}
		if !current {
			f.Add(at+".current_team", "The current team must be one of the user's teams.")
		}
	}
	jobKey, candKey := keys("jobs"), keys("candidates")
	cands := 0
	for i := range w.Jobs {
		j := &w.Jobs[i]
		jobKey(i, j.Key)
		at := fmt.Sprintf("jobs[%d]", i)
		if !teams[j.Team] {
			f.Add(at+".team", "Unknown team "+j.Team+".")
		}
		if !users[j.Owner] {
			f.Add(at+".owner", "Unknown user "+j.Owner+".")
		} else if !member[[2]string{j.Owner, j.Team}] {
			f.Add(at+".owner", "The owner must be a member of the job's team.")
		}
		assignees := j.Assignees[:0:0]
		for k, a := range j.Assignees {
			if !users[a] {
				warnings = append(warnings, fmt.Sprintf("%s.assignees[%d]: unknown user %s, not assigned", at, k, a))
				continue
			}
			if !member[[2]string{a, j.Team}] {
				f.Add(fmt.Sprintf("%s.assignees[%d]", at, k), "An assignee must be a member of the job's team.")
			}
			if !slices.Contains(assignees, a) {
				assignees = append(assignees, a)
			}
		}
		j.Assignees = assignees
		validateTitle(f, at+".title", j.Title)
		if !j.Status.Valid() {
			f.Add(at+".status", "The status must be open, draft or closed.")
		}
		if j.CreatedAt == nil {
			t := now
			j.CreatedAt = &t
		}
		j.WorkMode, j.EmploymentType = DefaultWorkMode, DefaultEmploymentType
		j.ApplicationDeadline = Date(*j.CreatedAt).AddDate(0, 0, DefaultDeadlineDays)
		if j.Stages == nil {
			j.Stages = slices.Clone(DefaultStages)
		}
		if len(j.Stages) == 0 {
			f.Add(at+".stages", "A job needs at least one stage.")
		}
		for k, st := range j.Stages {
			if strings.TrimSpace(st) == "" || slices.Index(j.Stages, st) != k {
				f.Add(fmt.Sprintf("%s.stages[%d]", at, k), "Stage names must be present and unique.")
			}
		}
		for k := range j.Candidates {
			c := &j.Candidates[k]
			candKey(cands, c.Key)
			cands++
			cat := fmt.Sprintf("%s.candidates[%d]", at, k)
			if strings.TrimSpace(c.Name) == "" {
				f.Add(cat+".name", "The name is required.")
			}
			if !strings.Contains(c.Email, "@") {
				f.Add(cat+".email", "An email address is required.")
			}
			if _, err := time.Parse(time.DateOnly, c.Applied); err != nil {
				f.Add(cat+".applied", "The applied date must be YYYY-MM-DD.")
			}
			if c.Stage == "" && len(j.Stages) > 0 {
				c.Stage = j.Stages[0]
			}
			if !slices.Contains(j.Stages, c.Stage) {
				f.Add(cat+".stage", "Unknown stage "+c.Stage+".")
			}
			if c.Status == "" {
				c.Status = CandidateActive
			}
			if !slices.Contains(CandidateStatuses, c.Status) {
				f.Add(cat+".status", "The status must be active, hired, rejected or withdrawn.")
			}
		}
	}
	tokenKey := keys("tokens")
	for i := range w.Tokens {
		t := &w.Tokens[i]
		tokenKey(i, t.Key)
		at := fmt.Sprintf("tokens[%d]", i)
		if !users[t.User] {
			f.Add(at+".user", "Unknown user "+t.User+".")
		}
		if strings.TrimSpace(t.Name) == "" {
			f.Add(at+".name", "The name is required.")
		}
		scopes, err := NormalizeScopes(at+".scopes", t.Scopes)
		f.Merge(err)
		t.Scopes = scopes
		if t.CreatedAt == nil {
			c := now
			t.CreatedAt = &c
		}
		t.ExpiresAt = AddMonths(t.CreatedAt.UTC(), TokenLifetime)
		if t.Revoked {
			r := now
			t.RevokedAt = &r
		}
	}
	return warnings, f.Err()
}
