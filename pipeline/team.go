package pipeline

import "context"

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
