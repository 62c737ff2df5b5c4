package pipelinehttp

import (
	"net/http"
	"net/netip"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// behindProxy trusts the proxies of 10.0.0.0/8 and ::1, and gives each
// address a budget of two requests a window.
func behindProxy(c *envConfig) {
	c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	c.limiter = pipeline.NewMemoryLimiter(2)
}

const (
	proxy    = "10.1.2.3:41000"   // a trusted proxy's socket
	stranger = "192.0.2.50:41000" // an untrusted peer
)

// TestAPI_TrustedProxies: the client IP that the rate limit counts and the
// activity log records comes from X-Forwarded-For only through trusted
// hops.
func TestAPI_TrustedProxies(t *testing.T) {
	move := func(t *testing.T, e *env, stage string, hdr ...string) {
		t.Helper()
		r := e.do(t, "POST", adaStage(e), e.token("olivia"), map[string]any{"stage": e.Res.Stages["backend"][stage]}, hdr...)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
	}
	lastIP := func(t *testing.T, e *env) string {
		t.Helper()
		acts := e.Activity(t)
		require.NotEmpty(t, acts)
		return acts[len(acts)-1].IP
	}
	each(t, "a trusted hop is believed", func(t *testing.T, e *env) {
		move(t, e, "Screening", remoteAddr, proxy, "X-Forwarded-For", "203.0.113.9")
		assert.Equal(t, "203.0.113.9", lastIP(t, e), "logged under the client's address")
		assert.Contains(t, e.logs.String(), "ip=203.0.113.9", "the access log too")
	}, behindProxy)
	each(t, "a forged hop before the proxy is not", func(t *testing.T, e *env) {
		// The client sent X-Forwarded-For: 198.51.100.1 itself; the proxy
		// appended the address it saw.
		move(t, e, "Screening", remoteAddr, proxy, "X-Forwarded-For", "198.51.100.1, 203.0.113.9")
		assert.Equal(t, "203.0.113.9", lastIP(t, e))
	}, behindProxy)
	each(t, "trusted hops are walked back", func(t *testing.T, e *env) {
		move(t, e, "Screening", remoteAddr, proxy, "X-Forwarded-For", "203.0.113.9, 10.9.9.9")
		assert.Equal(t, "203.0.113.9", lastIP(t, e), "10.9.9.9 is a trusted proxy too")
		move(t, e, "Interview", remoteAddr, "[::1]:41000", "X-Forwarded-For", "2001:db8::7")
		assert.Equal(t, "2001:db8::7", lastIP(t, e))
	}, behindProxy)
	each(t, "an untrusted hop is ignored", func(t *testing.T, e *env) {
		move(t, e, "Screening", remoteAddr, stranger, "X-Forwarded-For", "203.0.113.9")
		assert.Equal(t, "192.0.2.50", lastIP(t, e))
		move(t, e, "Interview", remoteAddr, proxy, "X-Real-IP", "203.0.113.9")
		assert.Equal(t, "10.1.2.3", lastIP(t, e), "X-Real-IP is not read")
	}, behindProxy)
	each(t, "anonymous requests are counted by client", func(t *testing.T, e *env) {
		anon := func(client string) int {
			return e.do(t, "GET", "/api/v1/me", "", nil, remoteAddr, proxy, "X-Forwarded-For", client).Code
		}
		assert.Equal(t, http.StatusUnauthorized, anon("203.0.113.9"))
		assert.Equal(t, http.StatusUnauthorized, anon("203.0.113.9"))
		assert.Equal(t, http.StatusTooManyRequests, anon("203.0.113.9"), "the client's budget is spent")
		assert.Equal(t, http.StatusUnauthorized, anon("203.0.113.10"), "another client behind the same proxy is not")
		// Through an untrusted peer the header is ignored: every client
		// shares the peer's budget.
		for i, want := range []int{http.StatusUnauthorized, http.StatusUnauthorized, http.StatusTooManyRequests} {
			r := e.do(t, "GET", "/api/v1/me", "", nil, remoteAddr, stranger, "X-Forwarded-For", "203.0.113."+itoa(int64(100+i)))
			assert.Equal(t, want, r.Code, i)
		}
	}, behindProxy)
	each(t, "no proxy is trusted by default", func(t *testing.T, e *env) {
		move(t, e, "Screening", remoteAddr, proxy, "X-Forwarded-For", "203.0.113.9")
		assert.Equal(t, "10.1.2.3", lastIP(t, e))
	})
}

// TestMount_TrustedProxies: the mounted API reads the client IP as New
// does, whatever the host application trusts.
func TestMount_TrustedProxies(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		var cfg envConfig
		behindProxy(&cfg)
		f := storetest.Seeded(t, db, pipeline.WithLimiter(cfg.limiter))
		app := gin.New()
		require.NoError(t, app.SetTrustedProxies(nil))
		Mount(app.Group(testMount), f.Svc, cfg.Config)
		stage := testMount + candidatePath(f.Job("backend"), f.Res.Candidates["ada"]) + "/stage"
		r := do(t, app, "POST", stage, f.Res.Tokens["olivia"], map[string]any{"stage": f.Res.Stages["backend"]["Offer"]},
			remoteAddr, proxy, "X-Forwarded-For", "203.0.113.9")
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		acts := f.Activity(t)
		require.Len(t, acts, 1)
		assert.Equal(t, "203.0.113.9", acts[0].IP)
	})
}

// TestAPI_HealthHEAD: the probes answer HEAD with GET's status and no body.
func TestAPI_HealthHEAD(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		for _, tc := range []struct {
			name  string
			store pipeline.Store
			path  string
			want  int
		}{
			{"healthz", db, "/healthz", http.StatusOK},
			{"readyz", db, "/readyz", http.StatusOK},
			{"readyz without a database", unreachableStore{Store: db}, "/readyz", http.StatusServiceUnavailable},
		} {
			t.Run(tc.name, func(t *testing.T) {
				h := New(pipeline.NewService(tc.store), Config{})
				r := do(t, h, "HEAD", tc.path, "", nil)
				assert.Equal(t, tc.want, r.Code)
				assert.Empty(t, r.Body)
				assert.Empty(t, r.Header.Get(HeaderRateLimit), "not limited")
				r = do(t, h, "POST", tc.path, "", nil)
				requireError(t, r, http.StatusMethodNotAllowed, CodeMethodNotAllowed)
				assert.Equal(t, "GET, HEAD", r.Header.Get("Allow"))
			})
		}
	})
}
