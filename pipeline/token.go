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
	a, err := s.store.TokenByHash(ctx, hash)
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
	_ = s.store.TouchToken(ctx, t.ID, now)
}
