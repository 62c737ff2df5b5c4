package main

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// loadCallers reads every active token of the schema, with its user and
// the user's current team, by the token's hash: the data-only baseline's
// whole authentication, done once at start.
func loadCallers(ctx context.Context, pool *pgxpool.Pool) (map[string]*caller, error) {
	rows, err := pool.Query(ctx, `SELECT t.hash, t.id, t.user_id, t.scopes, u.name, u.email, tm.id, tm.name
FROM tokens AS t JOIN users AS u ON u.id = t.user_id JOIN teams AS tm ON tm.id = u.current_team_id
WHERE t.revoked_at IS NULL AND t.expires_at > $1`, time.Now())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	callers := map[string]*caller{}
	for rows.Next() {
		var hash, scopes string
		cl := &caller{}
		if err := rows.Scan(&hash, &cl.tokenID, &cl.userID, &scopes, &cl.userName, &cl.userEmail, &cl.teamID, &cl.teamName); err != nil {
			return nil, err
		}
		if scopes != "" {
			cl.scopes = strings.Split(scopes, ",")
		}
		callers[hash] = cl
	}
	return callers, rows.Err()
}

// dataGuard is the data-only baseline's guard: the caller is the token's
// as read at start, and nothing is counted, so that a request costs the
// database its data statements alone. Without a token known at start it
// answers 401.
func (b *baseline) dataGuard(c *gin.Context) {
	cl, ok := b.callers[pipeline.HashToken(bearer(c.GetHeader("Authorization")))]
	if !ok {
		fail(c, http.StatusUnauthorized, "unauthenticated", "Unauthenticated.", nil)
		return
	}
	withIP := *cl
	withIP.ip = c.ClientIP()
	c.Set(callerKey, &withIP)
	c.Next()
}
