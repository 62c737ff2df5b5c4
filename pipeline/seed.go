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
	Key    string  `json:"key"`
	User   string  `json:"user"`
	Name   string  `json:"name"`
	Scopes []Scope `json:"scopes"`
	// Approval is the token's approval policy (see TokenRequest.Approval).
	Approval  []Op       `json:"approval,omitempty"`
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
}

// Seed validates a world, fills in its defaults and stores it in one
// transaction: either all of it is loaded or nothing. It writes no activity.
// Errors: validation_failed (details name the offending entries: a missing
// or repeated key, a reference to a key the file does not define, a bad
// value), conflict (a team key or an email that exists, named in the
// message).
func (o *Operator) Seed(ctx context.Context, w *SeedWorld) (SeedResult, error) {
	if err := w.normalize(o.now()); err != nil {
		return SeedResult{}, err
	}
	values := map[string]string{}
	for i := range w.Tokens {
		v := NewTokenValue()
		values[w.Tokens[i].Key] = v
		w.Tokens[i].Hash = HashToken(v)
	}
	res, err := o.store.Seed(ctx, w)
	if err != nil {
		return SeedResult{}, err
	}
	res.Tokens = values
	return res, nil
}

// seedCheck collects what is wrong with a seed file and the keys it
// defines, entity by entity.
type seedCheck struct {
	f      FieldErrors
	now    time.Time
	teams  map[string]bool
	users  map[string]bool
	member map[[2]string]bool // user key, team key
	seen   map[string]map[string]bool
}

// normalize checks keys, references and values and applies the defaults.
func (w *SeedWorld) normalize(now time.Time) error {
	w.LoadedAt = now
	sc := &seedCheck{
		f: FieldErrors{}, now: now,
		teams: map[string]bool{}, users: map[string]bool{}, member: map[[2]string]bool{},
		seen: map[string]map[string]bool{},
	}
	for i, t := range w.Teams {
		sc.team(i, t)
	}
	emails := map[string]bool{}
	for i, u := range w.Users {
		sc.user(i, u, emails)
	}
	cands := 0
	for i := range w.Jobs {
		sc.job(i, &w.Jobs[i], &cands)
	}
	for i := range w.Tokens {
		sc.token(i, &w.Tokens[i])
	}
	return sc.f.Err()
}

// key records a key of kind at index i: it must be present and unique.
func (sc *seedCheck) key(kind string, i int, key string) {
	at := fmt.Sprintf("%s[%d].key", kind, i)
	seen := sc.seen[kind]
	if seen == nil {
		seen = map[string]bool{}
		sc.seen[kind] = seen
	}
	if key == "" {
		sc.f.Add(at, "The key is required.")
	} else if seen[key] {
		sc.f.Add(at, "The key "+key+" is used twice.")
	}
	seen[key] = true
}

// nameRequired records that a name must be valid text and not blank.
func (sc *seedCheck) nameRequired(at, value string) {
	if checkText(sc.f, at, value) && strings.TrimSpace(value) == "" {
		sc.f.Add(at, "The name is required.")
	}
}

func (sc *seedCheck) team(i int, t SeedTeam) {
	sc.key("teams", i, t.Key)
	sc.teams[t.Key] = true
	at := fmt.Sprintf("teams[%d]", i)
	if t.Key != "" {
		validateTeamKey(sc.f, at+".key", t.Key)
	}
	sc.nameRequired(at+".name", t.Name)
	if t.JobLimit != nil && *t.JobLimit < 0 {
		sc.f.Add(at+".job_limit", "The job limit may not be negative.")
	}
}

func (sc *seedCheck) user(i int, u SeedUser, emails map[string]bool) {
	sc.key("users", i, u.Key)
	sc.users[u.Key] = true
	at := fmt.Sprintf("users[%d]", i)
	sc.nameRequired(at+".name", u.Name)
	if checkText(sc.f, at+".email", u.Email) && (!strings.Contains(u.Email, "@") || emails[strings.ToLower(u.Email)]) {
		sc.f.Add(at+".email", "A unique email address is required.")
	}
	emails[strings.ToLower(u.Email)] = true
	current := false
	for j, m := range u.Memberships {
		if sc.member[[2]string{u.Key, m.Team}] {
			sc.f.Add(fmt.Sprintf("%s.memberships[%d].team", at, j), "The user is on team "+m.Team+" already.")
		}
		sc.member[[2]string{u.Key, m.Team}] = true
		if !sc.teams[m.Team] {
			sc.f.Add(fmt.Sprintf("%s.memberships[%d].team", at, j), "Unknown team "+m.Team+".")
		}
		if !m.Role.Valid() {
			sc.f.Add(fmt.Sprintf("%s.memberships[%d].role", at, j), "The role must be owner, admin or member.")
		}
		current = current || m.Team == u.CurrentTeam
	}
	if !current {
		sc.f.Add(at+".current_team", "The current team must be one of the user's teams.")
	}
}

func (sc *seedCheck) job(i int, j *SeedJob, cands *int) {
	sc.key("jobs", i, j.Key)
	at := fmt.Sprintf("jobs[%d]", i)
	if !sc.teams[j.Team] {
		sc.f.Add(at+".team", "Unknown team "+j.Team+".")
	}
	sc.teamMember(at+".owner", j.Owner, j.Team, "The owner must be a member of the job's team.")
	assignees := j.Assignees[:0:0]
	for k, a := range j.Assignees {
		sc.teamMember(fmt.Sprintf("%s.assignees[%d]", at, k), a, j.Team, "An assignee must be a member of the job's team.")
		if !slices.Contains(assignees, a) {
			assignees = append(assignees, a)
		}
	}
	j.Assignees = assignees
	validateTitle(sc.f, at+".title", j.Title)
	checkText(sc.f, at+".description", j.Description)
	if !j.Status.Valid() {
		sc.f.Add(at+".status", "The status must be open, draft or closed.")
	}
	if j.CreatedAt == nil {
		t := sc.now
		j.CreatedAt = &t
	}
	j.WorkMode, j.EmploymentType = DefaultWorkMode, DefaultEmploymentType
	j.ApplicationDeadline = Date(*j.CreatedAt).AddDate(0, 0, DefaultDeadlineDays)
	sc.stages(at, j)
	for k := range j.Candidates {
		sc.key("candidates", *cands, j.Candidates[k].Key)
		*cands++
		sc.candidate(fmt.Sprintf("%s.candidates[%d]", at, k), j.Stages, &j.Candidates[k])
	}
}

// teamMember checks that a user key is defined and a member of a team.
func (sc *seedCheck) teamMember(at, user, team, notMember string) {
	switch {
	case !sc.users[user]:
		sc.f.Add(at, "Unknown user "+user+".")
	case !sc.member[[2]string{user, team}]:
		sc.f.Add(at, notMember)
	}
}

func (sc *seedCheck) stages(at string, j *SeedJob) {
	if j.Stages == nil {
		j.Stages = slices.Clone(DefaultStages)
	}
	if len(j.Stages) == 0 {
		sc.f.Add(at+".stages", "A job needs at least one stage.")
	}
	for k, st := range j.Stages {
		if !checkText(sc.f, fmt.Sprintf("%s.stages[%d]", at, k), st) {
			continue
		}
		if strings.TrimSpace(st) == "" || slices.Index(j.Stages, st) != k {
			sc.f.Add(fmt.Sprintf("%s.stages[%d]", at, k), "Stage names must be present and unique.")
		}
	}
}

func (sc *seedCheck) candidate(at string, stages []string, c *SeedCandidate) {
	sc.nameRequired(at+".name", c.Name)
	if checkText(sc.f, at+".email", c.Email) && !strings.Contains(c.Email, "@") {
		sc.f.Add(at+".email", "An email address is required.")
	}
	checkText(sc.f, at+".resume_url", c.ResumeURL)
	if _, err := time.Parse(time.DateOnly, c.Applied); err != nil {
		sc.f.Add(at+".applied", "The applied date must be YYYY-MM-DD.")
	}
	if c.Stage == "" && len(stages) > 0 {
		c.Stage = stages[0]
	}
	if !slices.Contains(stages, c.Stage) {
		sc.f.Add(at+".stage", "Unknown stage "+c.Stage+".")
	}
	if c.Status == "" {
		c.Status = CandidateActive
	}
	if !slices.Contains(CandidateStatuses, c.Status) {
		sc.f.Add(at+".status", "The status must be active, hired, rejected or withdrawn.")
	}
}

func (sc *seedCheck) token(i int, t *SeedToken) {
	sc.key("tokens", i, t.Key)
	at := fmt.Sprintf("tokens[%d]", i)
	if !sc.users[t.User] {
		sc.f.Add(at+".user", "Unknown user "+t.User+".")
	}
	sc.nameRequired(at+".name", t.Name)
	scopes, err := NormalizeScopes(at+".scopes", t.Scopes)
	for field, msgs := range Fields(err) {
		sc.f[field] = append(sc.f[field], msgs...)
	}
	t.Scopes = scopes
	approval, err := NormalizeApproval(at+".approval", at+".scopes", t.Approval, scopes)
	for field, msgs := range Fields(err) {
		sc.f[field] = append(sc.f[field], msgs...)
	}
	t.Approval = approval
	if t.CreatedAt == nil {
		c := sc.now
		t.CreatedAt = &c
	}
	t.ExpiresAt = AddMonths(t.CreatedAt.UTC(), TokenLifetime)
	if t.Revoked {
		r := sc.now
		t.RevokedAt = &r
	}
}
