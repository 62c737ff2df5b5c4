package pipeline

import (
	"context"
	"slices"
)

// Caller is who makes a request: a user acting through a token (or through
// [Operator.ActAs]), the user's current team, the token's scopes and the
// client address. Activity entries record it.
//
// Only [Service.Authenticate], [Service.ResumeSession] (a person signed in
// to the pages: every scope, no token) and [Operator.ActAs] make callers; the Service
// treats any other Caller, the zero value included, as unauthenticated, so
// that a caller cannot be forged or given scopes its token lacks.
type Caller struct {
	user    User
	team    Team
	tokenID int64
	scopes  []Scope
	// approval is the token's approval policy (see Held).
	approval []Op
	ip       string
	valid    bool
	person   bool // signed in to the pages (Service.ResumeSession), not a token
}

// User is the user the caller acts for.
func (c Caller) User() User { return c.user }

// Team is the user's current team.
func (c Caller) Team() Team { return c.team }

// TokenID is the id of the token the caller authenticated with; 0 for a
// caller made by Operator.ActAs or a signed-in person.
func (c Caller) TokenID() int64 { return c.tokenID }

// Scopes are the scopes the caller carries, in the order of the scope
// table; empty, not nil, for a token that carries none.
func (c Caller) Scopes() []Scope { return append([]Scope{}, c.scopes...) }

// IP is the client address the request came from, as the transport saw it.
func (c Caller) IP() string { return c.ip }

// Has reports whether the caller carries scope.
func (c Caller) Has(scope Scope) bool { return slices.Contains(c.scopes, scope) }

// WithIP returns the caller with the client address a transport saw.
func (c Caller) WithIP(ip string) Caller {
	c.ip = ip
	return c
}

type callerKey struct{}

// NewContext returns a context that carries caller. Every Service operation
// acts on behalf of the caller found on its context.
func NewContext(ctx context.Context, caller Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, caller)
}

// CallerFrom returns the caller carried by ctx, if any.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok && c.valid
}

// authorize returns the caller on ctx if it may call op: unauthenticated
// without a caller, insufficient_scope without op's scope. It reads no data.
func authorize(ctx context.Context, op Op) (Caller, error) {
	scope := op.Scope()
	c, ok := CallerFrom(ctx)
	if !ok {
		return Caller{}, ErrUnauthenticated
	}
	if scope != "" && !c.Has(scope) {
		return Caller{}, &Error{
			Code:    EInsufficientScope,
			Message: "The token does not carry the scope " + string(scope) + ".",
			Details: map[string]string{"required_scope": string(scope)},
		}
	}
	return c, nil
}
