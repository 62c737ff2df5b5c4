package pipeline

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
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

const (
	base62         = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	tokenRandomLen = 32
	tokenCheckLen  = 6
)

// Token is an API token. Its value is never stored: only Hash is.
type Token struct {
	ID         int64
	UserID     int64
	TeamID     int64 // the team it was created inside
	Name       string
	Scopes     []Scope
	Hash       string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
	Creator    User // filled by TeamTokens
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

// Authenticate resolves a token value to its caller (without IP; the
// transport sets it). A malformed, unknown, revoked or expired token is
// unauthenticated.
func (s *Service) Authenticate(ctx context.Context, value string) (Caller, error) {
	if !WellFormedToken(value) {
		return Caller{}, errUnauthenticated
	}
	a, err := s.store.TokenByHash(ctx, HashToken(value))
	if ErrorCode(err) == ENotFound {
		return Caller{}, errUnauthenticated
	} else if err != nil {
		return Caller{}, err
	}
	now := s.now()
	if !a.Token.Active(now) {
		return Caller{}, errUnauthenticated
	}
	s.touch(ctx, a.Token, now)
	return Caller{User: a.User, Team: a.Team, TokenID: a.Token.ID, Scopes: a.Token.Scopes}, nil
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
	_ = s.store.TouchToken(ctx, t.ID, now)
}

// TokenRequest is the input of IssueToken.
type TokenRequest struct {
	UserEmail string
	Name      string
	Scopes    []Scope
	CreatedAt time.Time // zero: now
}

// IssueToken creates a token for a user inside the user's current team and
// returns it with its value, which is shown this once. It is an operator
// operation: it consults no caller. Errors: not_found (user),
// validation_failed.
func (s *Service) IssueToken(ctx context.Context, r TokenRequest) (Token, string, error) {
	f := FieldErrors{}
	if strings.TrimSpace(r.Name) == "" {
		f.Add("name", "The name field is required.")
	}
	scopes, err := NormalizeScopes("scopes", r.Scopes)
	if err != nil {
		return Token{}, "", err
	}
	if err := f.Err(); err != nil {
		return Token{}, "", err
	}
	u, err := s.store.UserByEmail(ctx, r.UserEmail)
	if err != nil {
		return Token{}, "", err
	}
	created := r.CreatedAt
	if created.IsZero() {
		created = s.now()
	}
	value := NewTokenValue()
	t, err := s.store.CreateToken(ctx, Token{
		UserID: u.ID, Name: r.Name, Scopes: scopes, Hash: HashToken(value),
		CreatedAt: created.UTC(), ExpiresAt: AddMonths(created.UTC(), TokenLifetime),
	})
	return t, value, err
}

// TeamTokens lists the tokens created inside a team with their creators and
// last use. With a caller on ctx, the caller must be an owner or admin of
// the team (else not_found); without one it is an operator operation.
func (s *Service) TeamTokens(ctx context.Context, teamID int64) ([]Token, error) {
	if c, ok := CallerFrom(ctx); ok {
		role, err := s.store.Role(ctx, c.User.ID, teamID)
		if err != nil {
			return nil, err
		}
		if role != RoleOwner && role != RoleAdmin {
			return nil, errNotFound("Team")
		}
	}
	return s.store.TeamTokens(ctx, teamID)
}

// RevokeToken revokes a token at once. It is an operator operation.
// Errors: not_found.
func (s *Service) RevokeToken(ctx context.Context, id int64) error {
	return s.store.RevokeToken(ctx, id, s.now())
}
