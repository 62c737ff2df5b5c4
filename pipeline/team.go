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
