package pipeline

import (
	"context"
	"strings"
	"time"
)

// Operator performs what the operator of a deployment does, outside any
// token's reach: loading worlds, issuing and revoking tokens, reading the
// whole activity log, purging expired idempotency records, and acting as a
// user. It consults no caller, so it belongs to trusted programs such as
// cmd/pipelined, never to a request handler.
type Operator struct {
	store Store
	clock Clock
}

// NewOperator returns an Operator on store.
func NewOperator(store Store, opts ...Option) *Operator {
	o := newOptions(opts)
	return &Operator{store: store, clock: o.clock}
}

func (o *Operator) now() time.Time { return now(o.clock) }

// ActAs returns a caller acting for a user with the given scopes, as if
// through a token that carries them, with no token: activity entries of its
// writes record no token id. The user's current team comes from the store,
// and the visibility rule applies to the user's teams and roles as they
// are. Errors: not_found (user), validation_failed (an unknown scope).
func (o *Operator) ActAs(ctx context.Context, userID int64, scopes []Scope) (Caller, error) {
	scopes, err := NormalizeScopes("scopes", scopes)
	if err != nil {
		return Caller{}, err
	}
	u, err := o.store.Users().Get(ctx, UserParams{ID: userID})
	if err != nil {
		return Caller{}, err
	}
	return Caller{user: u.User, team: u.Team, scopes: scopes, valid: true}, nil
}

// TokenRequest is the input of IssueToken.
type TokenRequest struct {
	UserEmail string
	Name      string
	Scopes    []Scope // none: a token that reaches GET /me only
	// Approval names the writes the token may only propose, or EveryWrite;
	// none: the token makes every write its scopes allow.
	Approval  []Op
	CreatedAt time.Time // zero: now
}

// IssueToken creates a token for a user inside the user's current team and
// returns it with its value, which is shown this once; it is logged as
// token.created, the server's own entry. Errors: not_found
// (user), validation_failed (name; scopes: unknown, or proposals:review
// with an approval policy; approval: a read or an unknown operation).
func (o *Operator) IssueToken(ctx context.Context, r TokenRequest) (Token, string, error) {
	if bad := (FieldErrors{}); !checkText(bad, "name", r.Name) {
		return Token{}, "", bad.Err()
	}
	if strings.TrimSpace(r.Name) == "" {
		return Token{}, "", Invalid("name", "The name field is required.")
	}
	scopes, err := NormalizeScopes("scopes", r.Scopes)
	if err != nil {
		return Token{}, "", err
	}
	approval, err := NormalizeApproval(ApprovalField, "scopes", r.Approval, scopes)
	if err != nil {
		return Token{}, "", err
	}
	u, err := o.store.Users().ByEmail(ctx, UserByEmailParams{Email: r.UserEmail})
	if err != nil {
		return Token{}, "", err
	}
	created := r.CreatedAt
	if created.IsZero() {
		created = o.now()
	}
	value := NewTokenValue()
	var t Token
	err = o.store.Write(ctx, func(tx Tx) error {
		var err error
		t, err = tx.Tokens().Insert(ctx, InsertTokenParams{Token: Token{
			UserID: u.ID, Name: r.Name, Scopes: scopes, Approval: approval, Hash: HashToken(value),
			CreatedAt: created.UTC(), ExpiresAt: AddMonths(created.UTC(), TokenLifetime),
		}})
		if err != nil {
			return err
		}
		return logToken(ctx, tx, Caller{}, o.now(), ActionTokenCreated, nil, &t)
	})
	if err != nil {
		return Token{}, "", err
	}
	return t, value, nil
}

// TeamTokens lists the tokens created inside a team with their creators and
// last use, oldest first.
func (o *Operator) TeamTokens(ctx context.Context, teamID int64) ([]Token, error) {
	return o.store.Tokens().List(ctx, ListTokensParams{TeamID: teamID})
}

// RevokeToken revokes a token at once, logged as token.revoked, the
// server's own entry; revoking it again keeps the first time and logs
// nothing. Errors: not_found.
func (o *Operator) RevokeToken(ctx context.Context, id int64) error {
	return revokeToken(ctx, o.store, Caller{}, id, o.now())
}

// SetTokenApproval replaces a token's approval policy (see
// NormalizeApproval), logged as token.approval_changed, the server's own
// entry; the policy it has already changes and logs nothing. A running
// server applies it within a second, as it does a revocation. Errors:
// not_found, validation_failed (approval; scopes: the token carries
// proposals:review).
func (o *Operator) SetTokenApproval(ctx context.Context, id int64, approval []Op) (Token, error) {
	return setTokenApproval(ctx, o.store, Caller{}, id, approval, o.now())
}

// ActivityLog returns the activity log in commit order, of every team or of
// one.
func (o *Operator) ActivityLog(ctx context.Context, teamID *int64) ([]Activity, error) {
	return o.store.Activity().List(ctx, ActivityFilter{TeamID: teamID})
}

// ActivityFilter selects activity entries: of one team or all, after an id
// (so that a reader resumes where it stopped), at most Limit of them.
type ActivityFilter struct {
	TeamID  *int64 // nil: every team
	AfterID int64  // only entries with a greater id; 0: from the first
	Limit   int    // 0: no limit
}

// ListActivity returns the activity entries f selects, in commit order.
// Errors: validation_failed (a negative id or limit).
func (o *Operator) ListActivity(ctx context.Context, f ActivityFilter) ([]Activity, error) {
	fe := FieldErrors{}
	if f.AfterID < 0 {
		fe.Add("since_id", "The id may not be negative.")
	}
	if f.Limit < 0 {
		fe.Add("limit", "The limit may not be negative.")
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	return o.store.Activity().List(ctx, f)
}

// DeliveryRetention is how long the attempts of webhook deliveries are
// kept.
const DeliveryRetention = 30 * 24 * time.Hour

// PurgeDeliveries deletes the delivery attempts older than
// DeliveryRetention, as Purge does.
func (o *Operator) PurgeDeliveries(ctx context.Context) (int64, error) {
	return o.store.Webhooks().PurgeDeliveries(ctx, o.now().Add(-DeliveryRetention))
}

// PurgeIdempotency deletes stored results older than the replay window,
// as Purge does.
func (o *Operator) PurgeIdempotency(ctx context.Context) (int64, error) {
	return o.store.Idempotency().Purge(ctx, o.now().Add(-IdempotencyWindow))
}

// PurgeInterval is how often the deliveries a store runs (see Dispatcher)
// purge what has expired.
const PurgeInterval = time.Hour

// Purged counts what Purge deleted.
type Purged struct {
	IdempotencyRecords int64 // older than IdempotencyWindow
	DeliveryAttempts   int64 // older than DeliveryRetention
}

// Purge deletes what has expired: idempotency records past the replay
// window and delivery attempts past DeliveryRetention, so that the tables
// stay bounded. The deliveries a store runs call it every PurgeInterval
// (Dispatcher.Purge); a program may call it besides. What it deleted is
// counted even when it fails part way.
func (o *Operator) Purge(ctx context.Context) (Purged, error) {
	var p Purged
	var err error
	if p.IdempotencyRecords, err = o.PurgeIdempotency(ctx); err != nil {
		return p, err
	}
	p.DeliveryAttempts, err = o.PurgeDeliveries(ctx)
	return p, err
}
