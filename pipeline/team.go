package pipeline

import (
	"context"
	"time"
)

// Role is a user's role on a team.
type Role string

// Team roles. Owners and admins reach every job of their team; members reach
// the jobs they own or are assigned to.
const (
	RoleOwner  Role = "owner"
	RoleAdmin  Role = "admin"
	RoleMember Role = "member"
)

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return r == RoleOwner || r == RoleAdmin || r == RoleMember }

// Team is a hiring team. JobLimit is the plan's limit on jobs that are not
// closed; nil means unlimited.
type Team struct {
	ID int64
	// Key names the team to operators and seed files, uniquely and for
	// good: seeding a key that exists fails. Set by the operator's reads
	// (Teams, CreateTeam); a caller's team leaves it empty.
	Key      string
	Name     string
	JobLimit *int
	// Retention is how long the team keeps the data of the candidates it
	// is done with; set by the operator's reads, as Key is.
	Retention Retention
}

// Retention bounds for a team's retention period (privacy.md §2), in days.
const (
	MinRetentionDays = 30
	MaxRetentionDays = 3650
)

// RetentionDelay is how long after it is set a new or shorter retention
// period takes effect, so that a mistaken period can be undone before it
// erases anything.
const RetentionDelay = 7 * 24 * time.Hour

// Retention is a team's retention period in days, 0 when off. A period
// set new or shorter than the one in effect applies from SetAt plus
// RetentionDelay; until then PreviousDays, the period in effect when it
// was set, applies.
type Retention struct {
	Days         int
	PreviousDays int
	SetAt        *time.Time // nil: never set, or in effect at once
}

// At returns the period in effect at t, in days; 0: off.
func (r Retention) At(t time.Time) int {
	if r.SetAt != nil && t.Before(r.SetAt.Add(RetentionDelay)) {
		return r.PreviousDays
	}
	return r.Days
}

// EffectiveAt is when Days takes effect, or nil when it is in effect.
func (r Retention) EffectiveAt(t time.Time) *time.Time {
	if r.SetAt == nil {
		return nil
	}
	at := r.SetAt.Add(RetentionDelay)
	if !t.Before(at) {
		return nil
	}
	return &at
}

// set returns r with days set at now: turning it off or lengthening the
// period in effect applies at once; a new or shorter period after
// RetentionDelay, the one in effect kept until then.
func (r Retention) set(days int, now time.Time) Retention {
	cur := r.At(now)
	if days == 0 || cur != 0 && days >= cur {
		return Retention{Days: days, PreviousDays: days}
	}
	return Retention{Days: days, PreviousDays: cur, SetAt: &now}
}

// User is a person using the application.
type User struct {
	ID    int64
	Name  string
	Email string
}

// Identity is what GET /me shows: the token's user, current team, scopes
// and approval policy.
type Identity struct {
	User   User
	Team   Team
	Scopes []Scope
	// ApprovalRequired is the token's approval policy: the names as given,
	// sorted, EveryWrite as itself; empty when none.
	ApprovalRequired []Op
}

// GetMe returns the identity of the caller. Any valid token may call it.
// Errors: unauthenticated.
func (s *Service) GetMe(ctx context.Context) (Identity, error) {
	c, err := authorize(ctx, OpGetMe)
	if err != nil {
		return Identity{}, err
	}
	return Identity{User: c.user, Team: c.team, Scopes: c.Scopes(), ApprovalRequired: c.ApprovalRequired()}, nil
}

// The operation that tells a caller who it is.
const (
	OpGetMe Op = "get_me"
)

// meOps are the rows of opTable for these operations, in the order of
// the API's document.
var meOps = []opRow{
	{OpGetMe, opTraits{"", mGet, "/me", 0}, nil, &Words{Title: "Who am I", Description: "The token's user, current team, scopes and approval policy (the writes it may only propose): the cheapest check that the token is alive (GET /api/v1/me)."}, Doc{
		Tag: "Identity", Summary: "Identity and scopes of the token",
		Description: "The token's user, the user's current team, the token's scopes and its approval policy " +
			"(`approval_required`). Scope: any valid token, no particular scope. It is the cheapest check that a " +
			"token is alive.",
		Success: "The identity of the token.",
	}},
}

// TeamStore is what the Operator reads and creates of teams.
type TeamStore interface {
	// List returns every team, by id, with its key.
	List(ctx context.Context) ([]Team, error)
	// Create stores a team; a key that exists is a conflict naming it.
	Create(ctx context.Context, t Team) (Team, error)
}

// TeamParams names a team.
type TeamParams struct {
	ID int64
}

// TeamTx is what a write transaction does to teams.
type TeamTx interface {
	// Lock returns a team with its key, held against concurrent changes
	// of its members (and job creation) until the transaction ends.
	Lock(ctx context.Context, p TeamParams) (Team, error)
	// SetRetention stores the retention period of a locked team.
	SetRetention(ctx context.Context, p SetRetentionParams) error
}

// SetRetentionParams is a team's new retention period.
type SetRetentionParams struct {
	TeamID    int64
	Retention Retention
}

// UserStore is what the Service reads of users outside a write.
type UserStore interface {
	// Get returns a user and the user's current team.
	Get(ctx context.Context, p UserParams) (UserWithTeam, error)
	// ByEmail returns the user with that email, in any letter case
	// (compared folded, see Fold: the sign-in limit counts emails so).
	ByEmail(ctx context.Context, p UserByEmailParams) (User, error)
	// Teams returns the teams of a user, by id, with the user's roles.
	Teams(ctx context.Context, p UserParams) ([]TeamRole, error)
	// InTeam returns the users among IDs who are members of a team, in
	// the order of IDs.
	InTeam(ctx context.Context, p TeamUsersParams) ([]User, error)
}

// UserParams names a user.
type UserParams struct {
	ID int64
}

// UserWithTeam is a user and the user's current team.
type UserWithTeam struct {
	User User
	Team Team
}

// UserByEmailParams names a user by email.
type UserByEmailParams struct {
	Email string
}

// TeamUsersParams asks which of some users are members of a team.
type TeamUsersParams struct {
	TeamID int64
	IDs    []int64
}

// UserTx is what a write transaction does to users.
type UserTx interface {
	// Insert stores a user whose current team is TeamID, and returns it
	// with its id. A user's email is unique over the whole store, every
	// team, in any letter case. Errors: conflict (a user has the email),
	// here or when the transaction ends: of concurrent inserts of one
	// email, one is stored.
	Insert(ctx context.Context, p InsertUserParams) (User, error)
	// SetCurrentTeam sets a user's current team.
	SetCurrentTeam(ctx context.Context, p MemberParams) error
}

// InsertUserParams is a new user and their current team.
type InsertUserParams struct {
	User   User
	TeamID int64
}
