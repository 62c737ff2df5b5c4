package pipelinehttp

import (
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// bearerToken returns the token of an Authorization header value whose
// scheme is Bearer, in any letter case; "" when there is none.
func bearerToken(header string) string {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// guard authenticates the request and counts it against its rate-limit
// bucket (see admit), answering the first error.
//
// The token is read from the Authorization header only, never from the
// query string or a cookie.
func (a *api) guard(c *gin.Context) {
	if err := a.admit(c); err != nil {
		fail(c, err)
		return
	}
	c.Next()
}

// admit authenticates the request and counts it against its rate-limit
// bucket, and returns the error the API answers first: a request whose
// token is missing or invalid is counted against its client IP, and is
// rate_limited rather than unauthenticated while that budget is spent; a
// valid token's request is counted against its user, whatever token of the
// user it carries. The caller, with the client IP, goes on the request's
// context, also when its budget is spent.
func (a *api) admit(c *gin.Context) error {
	ctx := c.Request.Context()
	// A missing token is malformed: refused without a database read.
	caller, authErr := a.svc.Authenticate(ctx, bearerToken(c.GetHeader("Authorization")))
	ip := c.ClientIP()
	bucket := "ip:" + ip
	if authErr == nil {
		bucket = "user:" + strconv.FormatInt(caller.User().ID, 10)
		c.Request = c.Request.WithContext(pipeline.NewContext(ctx, caller.WithIP(ip)))
	}
	if err := a.limit(c, bucket); err != nil {
		return err
	}
	return authErr
}

// guardAnonymous counts a request that needs no token against its client
// IP's budget; it does not read the Authorization header.
func (a *api) guardAnonymous(c *gin.Context) {
	if err := a.limit(c, "ip:"+c.ClientIP()); err != nil {
		fail(c, err)
		return
	}
	c.Next()
}
