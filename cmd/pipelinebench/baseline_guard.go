package main

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// callerKey is where the guard leaves the caller on the gin.Context.
const callerKey = "caller"

// caller is the authenticated user of a request.
type caller struct {
	userID    int64
	userName  string
	userEmail string
	teamID    int64 // the user's current team
	teamName  string
	tokenID   int64
	scopes    []string
	approval  []string // the token's approval policy, as stored
	ip        string
}

func (cl *caller) has(scope pipeline.Scope) bool { return slices.Contains(cl.scopes, string(scope)) }

// guardSQL authenticates a token and counts the request in one statement:
// the token, its user and the user's current team by the token's hash, and
// the fixed-window upsert of the rate-limit bucket, which is the user's
// when the token is active at $2 and the client address's ($3) otherwise.
// $4 is the start of the oldest window still open.
const guardSQL = `WITH a AS (
	SELECT t.id, t.user_id, t.scopes, t.approval, t.expires_at, t.revoked_at, t.last_used_at,
		u.name AS user_name, u.email AS user_email, tm.id AS team_id, tm.name AS team_name
	FROM tokens AS t
	JOIN users AS u ON u.id = t.user_id
	JOIN teams AS tm ON tm.id = u.current_team_id
	WHERE t.hash = $1
), q AS (
	INSERT INTO rate_limits AS r (bucket, window_start, count)
	VALUES (COALESCE((SELECT 'user:' || a.user_id FROM a WHERE a.revoked_at IS NULL AND a.expires_at > $2), $3), $2, 1)
	ON CONFLICT (bucket) DO UPDATE SET
		window_start = CASE WHEN r.window_start <= $4 THEN EXCLUDED.window_start ELSE r.window_start END,
		count = CASE WHEN r.window_start <= $4 THEN 1 ELSE r.count + 1 END
	RETURNING count, window_start
)
SELECT q.count, q.window_start, a.id, a.user_id, a.scopes, a.approval, a.expires_at, a.revoked_at, a.last_used_at,
	a.user_name, a.user_email, a.team_id, a.team_name
FROM q LEFT JOIN a ON true`

// limitSQL counts a request without a well-formed token against its
// client address; the same upsert as in guardSQL.
const limitSQL = `INSERT INTO rate_limits AS r (bucket, window_start, count) VALUES ($1, $2, 1)
ON CONFLICT (bucket) DO UPDATE SET
	window_start = CASE WHEN r.window_start <= $3 THEN EXCLUDED.window_start ELSE r.window_start END,
	count = CASE WHEN r.window_start <= $3 THEN 1 ELSE r.count + 1 END
RETURNING count, window_start`

// tokenRow is the token part of guardSQL's row: all null when no token has
// the hash.
type tokenRow struct {
	id, userID, teamID            *int64
	scopes, approval              *string
	userName, userEmail           *string
	teamName                      *string
	expiresAt, revokedAt, lastUse *time.Time
}

// guard authenticates the request and counts it against its rate-limit
// bucket, in the API's order: a request without a valid token is counted
// against its client address and answered 429 while that budget is spent,
// else 401; a valid token's request is counted against its user.
func (b *baseline) guard(c *gin.Context) {
	ctx := c.Request.Context()
	now := time.Now().UTC().Truncate(time.Microsecond)
	ended := now.Add(-pipeline.RateWindow)
	ipBucket := "ip:" + c.ClientIP()
	value := bearer(c.GetHeader("Authorization"))
	var (
		count int
		start time.Time
		t     tokenRow
		err   error
	)
	if pipeline.WellFormedToken(value) {
		err = b.pool.QueryRow(ctx, guardSQL, pipeline.HashToken(value), now, ipBucket, ended).Scan(
			&count, &start, &t.id, &t.userID, &t.scopes, &t.approval, &t.expiresAt, &t.revokedAt, &t.lastUse,
			&t.userName, &t.userEmail, &t.teamID, &t.teamName)
	} else {
		err = b.pool.QueryRow(ctx, limitSQL, ipBucket, now, ended).Scan(&count, &start)
	}
	if err != nil {
		c.Header("X-RateLimit-Limit", strconv.Itoa(b.limit))
		c.Header("X-RateLimit-Remaining", "0")
		c.Header("X-RateLimit-Reset", strconv.FormatInt(ceilUnix(now.Add(pipeline.RateWindow)), 10))
		serverError(c, b, err)
		return
	}
	b.counted()
	reset := start.Add(pipeline.RateWindow)
	c.Header("X-RateLimit-Limit", strconv.Itoa(b.limit))
	c.Header("X-RateLimit-Remaining", strconv.Itoa(max(0, b.limit-count)))
	c.Header("X-RateLimit-Reset", strconv.FormatInt(ceilUnix(reset), 10))
	if count > b.limit {
		wait := int((reset.Sub(now) + time.Second - 1) / time.Second)
		c.Header("Retry-After", strconv.Itoa(min(max(wait, 1), 60)))
		fail(c, http.StatusTooManyRequests, "rate_limited", "Too Many Attempts.", nil)
		return
	}
	active := t.id != nil && t.revokedAt == nil && now.Before(*t.expiresAt)
	if !active {
		fail(c, http.StatusUnauthorized, "unauthenticated", "Unauthenticated.", nil)
		return
	}
	b.touch(ctx, *t.id, t.lastUse, now)
	cl := &caller{
		userID: *t.userID, userName: *t.userName, userEmail: *t.userEmail,
		teamID: *t.teamID, teamName: *t.teamName, tokenID: *t.id, ip: c.ClientIP(),
	}
	if *t.scopes != "" {
		cl.scopes = strings.Split(*t.scopes, ",")
	}
	cl.approval = []string{}
	if *t.approval != "" {
		cl.approval = strings.Split(*t.approval, ",")
	}
	c.Set(callerKey, cl)
	c.Next()
}

// bearer is the token of a Bearer Authorization header, any letter case of
// the scheme; "" when there is none.
func bearer(header string) string {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// touch records a token's use at most once a minute per token, remembered
// in memory, so that requests do not each write.
func (b *baseline) touch(ctx context.Context, id int64, last *time.Time, now time.Time) {
	if touchDue(&b.touched, id, last, now) {
		_, _ = b.pool.Exec(ctx, `UPDATE tokens SET last_used_at = $1 WHERE id = $2`, now, id)
	}
}

// touchDue reports whether a token last used at last (nil: never) is to
// be recorded as used now: at most once a minute per token, remembered in
// touched (token id → time.Time), which it updates.
func touchDue(touched *sync.Map, id int64, last *time.Time, now time.Time) bool {
	if last != nil && now.Sub(*last) < time.Minute {
		return false
	}
	if prev, ok := touched.Load(id); ok && now.Sub(prev.(time.Time)) < time.Minute {
		return false
	}
	touched.Store(id, now)
	return true
}

// counted sweeps ended windows off the rate-limit table in the background
// every thousand requests, so that it holds only live buckets.
func (b *baseline) counted() {
	if b.takes.Add(1)%1000 != 0 || !b.sweeping.CompareAndSwap(false, true) {
		return
	}
	ended := time.Now().UTC().Add(-pipeline.RateWindow)
	b.bg.Go(func() {
		defer b.sweeping.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = b.pool.Exec(ctx, `DELETE FROM rate_limits WHERE window_start <= $1`, ended)
	})
}

// ceilUnix is t in Unix seconds, rounded up.
func ceilUnix(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() > 0 {
		s++
	}
	return s
}

// scoped answers 403 insufficient_scope unless the caller's token carries
// scope, and returns the caller.
func scoped(c *gin.Context, scope pipeline.Scope) (*caller, bool) {
	cl := c.MustGet(callerKey).(*caller)
	if scope == "" || cl.has(scope) {
		return cl, true
	}
	fail(c, http.StatusForbidden, "insufficient_scope", "The token does not carry the scope "+string(scope)+".",
		map[string]string{"required_scope": string(scope)})
	return nil, false
}
