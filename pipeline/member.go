package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Membership is a user's role on a team.
type Membership struct {
	TeamID  int64
	TeamKey string
	Role    Role
}

// Member is a user with their current team and every team they belong to,
// as the operator's user commands show them.
type Member struct {
	User          User
	CurrentTeamID int64
	Memberships   []Membership // by team id
}

// NewTeam is the input of CreateTeam.
type NewTeam struct {
	Key      string
	Name     string
	JobLimit *int // nil: unlimited
}

// NewMember is the input of AddUser.
type NewMember struct {
	Email  string
	Name   string // required for a new user; an existing one keeps theirs
	TeamID int64
	Role   Role
}

// validateTeamKey checks a team key: present, at most 64 characters, no
// white space, and not a number, which operator commands read as an id.
func validateTeamKey(f FieldErrors, field, key string) {
	switch {
	case !checkText(f, field, key):
	case key == "" || utf8.RuneCountInString(key) > 64 || strings.ContainsFunc(key, isSpaceOrControl):
		f.Add(field, "The key must be 1 to 64 characters without spaces.")
	case isDigits(key):
		f.Add(field, "The key may not be a number: commands read a number as a team id.")
	}
}

func isSpaceOrControl(r rune) bool { return r <= ' ' || r == 0x7f }

func isDigits(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}

// Teams lists every team, by id.
func (o *Operator) Teams(ctx context.Context) ([]Team, error) { return o.store.Teams(ctx) }

// TeamByRef finds a team by its id (a number) or its key. Errors: not_found.
func (o *Operator) TeamByRef(ctx context.Context, ref string) (Team, error) {
	teams, err := o.store.Teams(ctx)
	if err != nil {
		return Team{}, err
	}
	i := slices.IndexFunc(teams, func(t Team) bool {
		return t.Key == ref || isDigits(ref) && strconv.FormatInt(t.ID, 10) == strings.TrimLeft(ref, "0")
	})
	if i < 0 {
		return Team{}, Errorf(ENotFound, "Team %s not found.", ref)
	}
	return teams[i], nil
}

// CreateTeam creates a team. Errors: validation_failed, conflict (the key
// is taken).
func (o *Operator) CreateTeam(ctx context.Context, t NewTeam) (Team, error) {
	f := FieldErrors{}
	validateTeamKey(f, "key", t.Key)
	if checkText(f, "name", t.Name) && strings.TrimSpace(t.Name) == "" {
		f.Add("name", "The name field is required.")
	}
	if t.JobLimit != nil && *t.JobLimit < 0 {
		f.Add("job_limit", "The job limit may not be negative.")
	}
	if err := f.Err(); err != nil {
		return Team{}, err
	}
	return o.store.CreateTeam(ctx, Team{Key: t.Key, Name: t.Name, JobLimit: t.JobLimit})
}

// Users lists users by id with their teams and roles: all of them, or the
// members of one team.
func (o *Operator) Users(ctx context.Context, teamID *int64) ([]Member, error) {
	return o.store.Members(ctx, teamID)
}

// AddUser adds a user to a team with a role, creating the user when the
// email is new (the team becomes their current team). An existing user
// keeps their name and current team; a name given for them must be theirs.
// Errors: validation_failed, not_found (team), conflict (already a member).
func (o *Operator) AddUser(ctx context.Context, m NewMember) (Member, error) {
	f := FieldErrors{}
	if checkText(f, "email", m.Email) && !strings.Contains(m.Email, "@") {
		f.Add("email", "An email address is required.")
	}
	checkText(f, "name", m.Name)
	if !m.Role.Valid() {
		f.Add("role", "The role must be owner, admin or member.")
	}
	if err := f.Err(); err != nil {
		return Member{}, err
	}
	return o.store.AddMember(ctx, m)
}

// SetRole changes a user's role on a team. A team keeps at least one owner.
// Errors: validation_failed (role, or the last owner), not_found (user,
// team or membership).
func (o *Operator) SetRole(ctx context.Context, email string, teamID int64, role Role) (Member, error) {
	if !role.Valid() {
		return Member{}, Invalid("role", "The role must be owner, admin or member.")
	}
	return o.store.SetRole(ctx, email, teamID, role)
}

// RemoveUser takes a user off a team: they no longer reach its jobs, their
// assignments there end, and a user whose current team it was moves to
// their first other team. A team keeps at least one owner, and a user at
// least one team. Errors: validation_failed (the last owner, the user's
// only team), not_found (user, team or membership).
func (o *Operator) RemoveUser(ctx context.Context, email string, teamID int64) (Member, error) {
	return o.store.RemoveMember(ctx, email, teamID)
}

// ErrLastOwner is the error of a change that would leave a team without an
// owner; the store returns it from SetRole and RemoveMember.
func ErrLastOwner(teamKey string) error {
	return Invalid("role", fmt.Sprintf("Team %s would have no owner.", teamKey))
}

// ErrNameMismatch is the error of adding an existing user under another
// name; the store returns it from AddMember.
func ErrNameMismatch(email, name string) error {
	return Invalid("name", fmt.Sprintf("The user %s exists and is called %s; leave the name out to add them.", email, name))
}

// ErrOnlyTeam is the error of removing a user from their only team; the
// store returns it from RemoveMember.
func ErrOnlyTeam(email string) error {
	return Invalid("team", fmt.Sprintf("This is the only team of %s: a user needs one.", email))
}
