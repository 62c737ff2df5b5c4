package pipeline

import (
	"context"
	"errors"
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
func (o *Operator) Teams(ctx context.Context) ([]Team, error) { return o.store.Teams().List(ctx) }

// TeamByRef finds a team by its id (a number) or its key. Errors: not_found.
func (o *Operator) TeamByRef(ctx context.Context, ref string) (Team, error) {
	teams, err := o.store.Teams().List(ctx)
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
	return o.store.Teams().Create(ctx, Team{Key: t.Key, Name: t.Name, JobLimit: t.JobLimit})
}

// Users lists users by id with their teams and roles: all of them, or the
// members of one team.
func (o *Operator) Users(ctx context.Context, teamID *int64) ([]Member, error) {
	return o.store.Members().List(ctx, ListMembersParams{TeamID: teamID})
}

// AddUser adds a user to a team with a role, creating the user when the
// email is new (the team becomes their current team). An existing user
// keeps their name and current team; a name given for them must be theirs.
// Errors: validation_failed (ErrNameMismatch among them), not_found
// (team), conflict (already a member).
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
	var out Member
	err := o.store.Write(ctx, func(tx Tx) error {
		team, err := tx.Teams().Lock(ctx, TeamParams{ID: m.TeamID})
		if err != nil {
			return err
		}
		u, err := tx.Members().Lock(ctx, LockMemberParams{Email: m.Email})
		switch {
		case errors.Is(err, ErrNotFound):
			if strings.TrimSpace(m.Name) == "" {
				return Invalid("name", "The name field is required for a new user.")
			}
			if u.User, err = tx.Users().Insert(ctx, InsertUserParams{User: User{Name: m.Name, Email: m.Email}, TeamID: team.ID}); err != nil {
				return err
			}
		case err != nil:
			return err
		case m.Name != "" && m.Name != u.User.Name:
			return ErrNameMismatch.instance("name", fmt.Sprintf(
				"The user %s exists and is called %s; leave the name out to add them.", u.User.Email, u.User.Name))
		case u.Role(team.ID) != "":
			return Errorf(EConflict, "Membership of %s in team %s already exists.", u.User.Email, team.Key)
		}
		if err := tx.Members().Insert(ctx, MembershipParams{UserID: u.User.ID, TeamID: team.ID, Role: m.Role}); err != nil {
			return err
		}
		out, err = tx.Members().Lock(ctx, LockMemberParams{Email: u.User.Email})
		return err
	})
	return out, err
}

// Role returns the member's role on a team, "" when they are no member of
// it.
func (m Member) Role(teamID int64) Role {
	for _, ms := range m.Memberships {
		if ms.TeamID == teamID {
			return ms.Role
		}
	}
	return ""
}

// membershipForChange locks a team and a user for a change of the user's
// membership there, and returns them with the user's role on the team.
func membershipForChange(ctx context.Context, tx Tx, email string, teamID int64) (Team, Member, Role, error) {
	team, err := tx.Teams().Lock(ctx, TeamParams{ID: teamID})
	if err != nil {
		return Team{}, Member{}, "", err
	}
	u, err := tx.Members().Lock(ctx, LockMemberParams{Email: email})
	if err != nil {
		return Team{}, Member{}, "", err
	}
	role := u.Role(team.ID)
	if role == "" {
		return Team{}, Member{}, "", Errorf(ENotFound, "Membership of %s in team %s not found.", u.User.Email, team.Key)
	}
	return team, u, role, nil
}

// keepsOwner refuses a change that takes the owner role from a member of a
// team locked by TeamTx.Lock when nobody else owns it.
func keepsOwner(ctx context.Context, tx Tx, team Team, oldRole, newRole Role) error {
	if oldRole != RoleOwner || newRole == RoleOwner {
		return nil
	}
	n, err := tx.Members().CountOwners(ctx, TeamParams{ID: team.ID})
	if err != nil {
		return err
	}
	if n <= 1 {
		return ErrLastOwner.instance("role", fmt.Sprintf("Team %s would have no owner.", team.Key))
	}
	return nil
}

// SetRole changes a user's role on a team. A team keeps at least one owner.
// Errors: validation_failed (role, or ErrLastOwner), not_found (user, team
// or membership).
func (o *Operator) SetRole(ctx context.Context, email string, teamID int64, role Role) (Member, error) {
	if !role.Valid() {
		return Member{}, Invalid("role", "The role must be owner, admin or member.")
	}
	var out Member
	err := o.store.Write(ctx, func(tx Tx) error {
		team, u, old, err := membershipForChange(ctx, tx, email, teamID)
		if err != nil {
			return err
		}
		if err := keepsOwner(ctx, tx, team, old, role); err != nil {
			return err
		}
		if err := tx.Members().SetRole(ctx, MembershipParams{UserID: u.User.ID, TeamID: team.ID, Role: role}); err != nil {
			return err
		}
		out, err = tx.Members().Lock(ctx, LockMemberParams{Email: u.User.Email})
		return err
	})
	return out, err
}

// RemoveUser takes a user off a team: they no longer reach its jobs, their
// assignments there end, and a user whose current team it was moves to
// their first other team (the lowest id). A team keeps at least one owner,
// and a user at least one team. Errors: validation_failed (ErrLastOwner,
// ErrOnlyTeam), not_found (user, team or membership).
func (o *Operator) RemoveUser(ctx context.Context, email string, teamID int64) (Member, error) {
	var out Member
	err := o.store.Write(ctx, func(tx Tx) error {
		team, u, old, err := membershipForChange(ctx, tx, email, teamID)
		if err != nil {
			return err
		}
		if err := keepsOwner(ctx, tx, team, old, ""); err != nil {
			return err
		}
		i := slices.IndexFunc(u.Memberships, func(m Membership) bool { return m.TeamID != team.ID })
		if i < 0 {
			return ErrOnlyTeam.instance("team", fmt.Sprintf("This is the only team of %s: a user needs one.", u.User.Email))
		}
		if err := tx.Members().DeleteAssignments(ctx, MemberParams{UserID: u.User.ID, TeamID: team.ID}); err != nil {
			return err
		}
		if err := tx.Members().Delete(ctx, MemberParams{UserID: u.User.ID, TeamID: team.ID}); err != nil {
			return err
		}
		if u.CurrentTeamID == team.ID {
			if err := tx.Users().SetCurrentTeam(ctx, MemberParams{UserID: u.User.ID, TeamID: u.Memberships[i].TeamID}); err != nil {
				return err
			}
		}
		out, err = tx.Members().Lock(ctx, LockMemberParams{Email: u.User.Email})
		return err
	})
	return out, err
}

// Sentinels of the failures of membership changes, for errors.Is; each
// error returned is a validation_failed *Error with a message of its own
// against a field.
var (
	// ErrLastOwner: the change would leave a team without an owner
	// (field role).
	ErrLastOwner = particular(EValidation, "A team keeps at least one owner.")
	// ErrNameMismatch: an existing user was added under another name
	// (field name).
	ErrNameMismatch = particular(EValidation, "The user exists under another name.")
	// ErrOnlyTeam: the user would be left without a team (field team).
	ErrOnlyTeam = particular(EValidation, "A user keeps at least one team.")
)

// MemberStore is what the Service and the Operator read of users with
// their memberships.
type MemberStore interface {
	// List returns users by id with their memberships (ordered by team
	// id): all users, or those on one team.
	List(ctx context.Context, p ListMembersParams) ([]Member, error)
	// Role returns the role of a user on a team, "" when the user is no
	// member of it.
	Role(ctx context.Context, p MemberParams) (Role, error)
}

// ListMembersParams selects the members of TeamID, or, when it is nil,
// every user.
type ListMembersParams struct {
	TeamID *int64
}

// MemberParams names a user and a team.
type MemberParams struct {
	UserID, TeamID int64
}

// MemberTx is what a write transaction does to memberships (Operator.AddUser,
// SetRole, RemoveUser): the Operator locks the team (TeamTx.Lock), then the
// user (Lock), and decides.
type MemberTx interface {
	// Lock returns the user with that email, in any letter case, with
	// their memberships, and holds the user against concurrent changes
	// until the transaction ends. Errors: not_found.
	Lock(ctx context.Context, p LockMemberParams) (Member, error)
	// Insert gives a user a role on a team.
	Insert(ctx context.Context, p MembershipParams) error
	// SetRole changes a user's role on a team.
	SetRole(ctx context.Context, p MembershipParams) error
	// CountOwners counts the owners of a team.
	CountOwners(ctx context.Context, p TeamParams) (int, error)
	// DeleteAssignments ends a user's assignments to the jobs of a team.
	DeleteAssignments(ctx context.Context, p MemberParams) error
	// Delete ends a user's membership of a team.
	Delete(ctx context.Context, p MemberParams) error
}

// LockMemberParams names the user to lock by email.
type LockMemberParams struct {
	Email string
}

// MembershipParams is a user's role on a team.
type MembershipParams struct {
	UserID, TeamID int64
	Role           Role
}
