package pipeline

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"strings"
	"time"
)

// TokenPrefix starts every token value, so that secret scanners can find
// leaked tokens.
const TokenPrefix = "plt_"

// TokenLifetime is how long a token lives, in calendar months.
const TokenLifetime = 6

// touchInterval bounds how often a token's last use is written.
const touchInterval = time.Minute

// touchTimeout bounds how long a request waits to record its token's last
// use, so that a database slow to write costs a request little of its
// deadline for what is only advisory.
const touchTimeout = time.Second

const (
	base62         = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	tokenRandomLen = 32
	tokenCheckLen  = 6
)

// Token is an API token. Its value is never stored: only Hash is.
type Token struct {
	ID     int64
	UserID int64
	TeamID int64 // the team it was created inside
	Name   string
	Scopes []Scope
	// Approval is the write operations the token may only propose, sorted
	// (see NormalizeApproval); empty when none.
	Approval   []Op
	Hash       string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
	Creator    User // filled by TokenStore.List of a team
}

// Active reports whether the token is neither revoked nor expired at now.
func (t Token) Active(now time.Time) bool { return t.RevokedAt == nil && now.Before(t.ExpiresAt) }

// TokenAuth is what authentication needs about a token.
type TokenAuth struct {
	Token Token
	User  User
	Team  Team // the user's current team
}

// NewTokenValue returns a fresh random token value: the prefix, 32 base62
// characters and a 6-character CRC-32 checksum of them.
func NewTokenValue() string {
	b := make([]byte, tokenRandomLen)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	for i := range b {
		b[i] = base62[int(b[i])%len(base62)]
	}
	return TokenPrefix + string(b) + checksum(b)
}

func checksum(b []byte) string {
	n := crc32.ChecksumIEEE(b)
	out := make([]byte, tokenCheckLen)
	for i := tokenCheckLen - 1; i >= 0; i-- {
		out[i] = base62[n%62]
		n /= 62
	}
	return string(out)
}

// WellFormedToken reports whether value has the shape and checksum of a
// token, without consulting storage.
func WellFormedToken(value string) bool {
	body, ok := strings.CutPrefix(value, TokenPrefix)
	if !ok || len(body) != tokenRandomLen+tokenCheckLen {
		return false
	}
	for i := 0; i < len(body); i++ {
		if strings.IndexByte(base62, body[i]) < 0 {
			return false
		}
	}
	return checksum([]byte(body[:tokenRandomLen])) == body[tokenRandomLen:]
}

// HashToken returns the stored form of a token value.
func HashToken(value string) string {
	sum := sha256.Sum256([]byte(value))
	return hex.EncodeToString(sum[:])
}

// Authenticate resolves a token value to its caller, without a client
// address (the transport adds it with Caller.WithIP), acting in the team
// the token was made in. A malformed, unknown, revoked or expired token is
// unauthenticated, and so is one whose user is no longer a member of its
// team.
func (s *Service) Authenticate(ctx context.Context, value string) (Caller, error) {
	if !WellFormedToken(value) {
		return Caller{}, ErrUnauthenticated
	}
	now := s.now()
	a, err := s.token(ctx, HashToken(value), now)
	if errors.Is(err, ErrNotFound) {
		return Caller{}, ErrUnauthenticated
	} else if err != nil {
		return Caller{}, err
	}
	if !a.Token.Active(now) {
		return Caller{}, ErrUnauthenticated
	}
	s.touch(ctx, a.Token, now)
	return Caller{user: a.User, team: a.Team, tokenID: a.Token.ID, scopes: a.Token.Scopes,
		approval: a.Token.Approval, valid: true}, nil
}

// token returns what the store has of a token, read at most once per
// tokenTTL: requests run in tight loops, and one read a second per token
// spares the database a query on every one of them.
func (s *Service) token(ctx context.Context, hash string, now time.Time) (TokenAuth, error) {
	if a, ok := s.tokens.get(hash, now, s.tokenTTL); ok {
		return a, nil
	}
	a, err := s.store.Tokens().Auth(ctx, TokenAuthParams{Hash: hash})
	if err == nil && s.tokenTTL > 0 {
		s.tokens.put(hash, a, now, s.tokenTTL)
	}
	return a, err
}

// touch records a token's use at most once per touchInterval per token, so
// that requests do not each write. Its failure does not fail the request:
// the last use is advisory.
func (s *Service) touch(ctx context.Context, t Token, now time.Time) {
	if t.LastUsedAt != nil && now.Sub(*t.LastUsedAt) < touchInterval {
		return
	}
	if prev, ok := s.touched.Load(t.ID); ok && now.Sub(prev.(time.Time)) < touchInterval {
		return
	}
	s.touched.Store(t.ID, now)
	ctx, cancel := context.WithTimeout(ctx, touchTimeout)
	defer cancel()
	_ = s.store.Tokens().Touch(ctx, TouchTokenParams{ID: t.ID, At: now})
}

// TokenStore is what the Service reads of tokens outside a write, and the
// record of their use.
type TokenStore interface {
	// Auth returns the token with the hash or id p names, its user and
	// the team it was made in, which it acts in, revoked and expired
	// tokens included; ErrNotFound when the user is no longer a member of
	// that team (decisions §7).
	Auth(ctx context.Context, p TokenAuthParams) (TokenAuth, error)
	// Touch records the last use of a token.
	Touch(ctx context.Context, p TouchTokenParams) error
	// List returns the tokens p selects, oldest first.
	List(ctx context.Context, p ListTokensParams) ([]Token, error)
}

// TokenAuthParams names a token by its hash or, when Hash is "", by its
// id.
type TokenAuthParams struct {
	Hash string
	ID   int64
}

// TouchTokenParams is a token's use at a time.
type TouchTokenParams struct {
	ID int64
	At time.Time
}

// ListTokensParams selects the tokens created inside TeamID, with their
// creators, or, when TeamID is 0, a user's tokens in every team.
type ListTokensParams struct {
	TeamID, UserID int64
}

// TokenTx is what a write transaction does to tokens. A token it revokes
// or changes is one Lock returned.
type TokenTx interface {
	// Insert stores a token (its hash, never its value) inside its TeamID
	// or, when it is 0, inside its user's current team, and returns it
	// with its id and team. Errors: not_found (user); with a FormHash,
	// conflict (see InsertTokenParams).
	Insert(ctx context.Context, p InsertTokenParams) (Token, error)
	// Lock returns a token, locked. Errors: not_found.
	Lock(ctx context.Context, p TokenParams) (Token, error)
	// Revoke marks a locked token revoked at the given time; a revoked
	// token keeps its first time.
	Revoke(ctx context.Context, p RevokeTokenParams) error
	// SetApproval replaces the approval policy of a locked token.
	SetApproval(ctx context.Context, p SetApprovalParams) error
}

// InsertTokenParams is a token to store.
type InsertTokenParams struct {
	Token Token
	// FormHash, when not "", stores the token inside Token.TeamID once
	// per form: a second token with the same user and form hash is a
	// conflict, and nothing is stored.
	FormHash string
}

// TokenParams names a token.
type TokenParams struct {
	ID int64
}

// RevokeTokenParams revokes a token at a time.
type RevokeTokenParams struct {
	ID int64
	At time.Time
}

// SetApprovalParams is a token's new approval policy.
type SetApprovalParams struct {
	ID       int64
	Approval []Op
}
