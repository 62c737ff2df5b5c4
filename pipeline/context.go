package pipeline

import (
	"context"
	"slices"
)

// Caller is who makes a request: the token's user, the user's current team,
// the token itself, its scopes and the client address. Activity entries
// record it.
type Caller struct {
	User    User
	Team    Team // the user's current team
	TokenID int64
	Scopes  []Scope
	IP      string
}

// Has reports whether the caller's token carries scope.
func (c Caller) Has(scope Scope) bool { return slices.Contains(c.Scopes, scope) }

type callerKey struct{}

// NewContext returns a context that carries caller. Every Service operation
// acts on behalf of the caller found on its context.
func NewContext(ctx context.Context, caller Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, caller)
}

// CallerFrom returns the caller carried by ctx, if any.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// authorize returns the caller on ctx if it carries scope: unauthenticated
// without a caller, insufficient_scope without the scope. It reads no data.
func authorize(ctx context.Context, scope Scope) (Caller, error) {
	c, ok := CallerFrom(ctx)
	if !ok {
		return Caller{}, errUnauthenticated
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
