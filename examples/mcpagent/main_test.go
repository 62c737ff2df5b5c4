package main

import (
	"bytes"
	"context"
	"io"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// clock is a settable clock that the agent's sleeps advance, so that
// waiting out a rate-limit window takes no real time.
type clock struct {
	mu    sync.Mutex
	now   time.Time
	slept int
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.slept++
	return nil
}

// world is a seeded SQLite database served by the API's engine on a real
// HTTP server with a budget of limit requests a minute.
type world struct {
	seed  pipeline.SeedResult
	svc   *pipeline.Service
	op    *pipeline.Operator
	clock *clock
	url   string
}

func newWorld(t *testing.T, limit int) *world {
	t.Helper()
	gin.SetMode(gin.TestMode)
	db := storetest.OpenSQLite(t)
	clk := &clock{now: time.Now().UTC().Truncate(time.Second)}
	w := &world{svc: pipeline.NewService(db, pipeline.WithClock(clk), pipeline.WithLimiter(pipeline.NewMemoryLimiter(limit))), op: pipeline.NewOperator(db, pipeline.WithClock(clk)), clock: clk}
	w.seed = storetest.Seed(t, w.op)
	srv := httptest.NewServer(pipelinehttp.New(w.svc, pipelinehttp.Config{}))
	t.Cleanup(srv.Close)
	w.url = srv.URL + pipelinehttp.MCPPath
	return w
}

// token issues olivia a token with scopes.
func (w *world) token(t *testing.T, scopes ...pipeline.Scope) (int64, string) {
	t.Helper()
	tok, value, err := w.op.IssueToken(context.Background(), pipeline.TokenRequest{
		UserEmail: "olivia@acme.test", Name: "mcp agent", Scopes: scopes,
	})
	require.NoError(t, err)
	return tok.ID, value
}

func TestMCPAgent(t *testing.T) {
	// A budget of 8 requests a minute sends the agent through rate_limited
	// tool errors, which it waits out and retries with the same keys.
	w := newWorld(t, 8)
	tokenID, token := w.token(t, pipeline.ScopeJobsRead, pipeline.ScopeCandidatesRead, pipeline.ScopeCandidatesWrite)
	job := w.seed.Jobs["backend"]

	var out bytes.Buffer
	err := run(context.Background(), config{Endpoint: w.url, Token: token, JobID: job, Out: &out, Sleep: w.clock.sleep})
	require.NoError(t, err, out.String())
	t.Log(out.String())
	assert.Contains(t, out.String(), "2 candidates in Applied")
	assert.Contains(t, out.String(), "done: 2 candidates moved")
	assert.Positive(t, w.clock.slept, "the agent waited out rate_limited")

	// Each candidate was moved, noted and rated exactly once, through the
	// agent's token.
	c, err := w.svc.Authenticate(context.Background(), w.seed.Tokens["olivia"])
	require.NoError(t, err)
	ctx := pipeline.NewContext(context.Background(), c)
	for _, key := range []string{"ada", "linus"} {
		cand, err := w.svc.GetCandidate(ctx, job, w.seed.Candidates[key])
		require.NoError(t, err)
		assert.Equal(t, "Screening", cand.Stage, key)
		assert.Equal(t, 1, cand.NotesCount, key)
	}
	log, err := w.op.ActivityLog(context.Background(), nil)
	require.NoError(t, err)
	actions := map[string]int{}
	for _, a := range log {
		actions[a.Action]++
		if a.SubjectType != pipeline.SubjectToken {
			assert.Equal(t, tokenID, a.TokenID)
		}
	}
	assert.Equal(t, map[string]int{
		pipeline.ActionTokenCreated:          1, // the agent's token
		pipeline.ActionCandidateStageChanged: 2,
		pipeline.ActionCandidateNoteAdded:    2,
		pipeline.ActionCandidateRated:        2,
	}, actions)
}

func TestMCPAgent_NoToken(t *testing.T) {
	err := run(context.Background(), config{Endpoint: "http://127.0.0.1:1/mcp", Out: io.Discard})
	require.ErrorContains(t, err, "PIPELINE_TOKEN")
}

// TestMCPAgent_Refused shows the face's refusals reaching the agent: a bad
// token cannot connect, a read-only token is not offered the writes, and
// a job the token cannot reach is the API's not_found.
func TestMCPAgent_Refused(t *testing.T) {
	w := newWorld(t, 1000)
	_, readOnly := w.token(t, pipeline.ScopeJobsRead, pipeline.ScopeCandidatesRead)
	_, agent := w.token(t, pipeline.ScopeJobsRead, pipeline.ScopeCandidatesRead, pipeline.ScopeCandidatesWrite)
	for _, tc := range []struct {
		name, token string
		job         int64
		want        string
	}{
		{"unknown token", "plt_unknown", 0, "connecting"},
		{"read only", readOnly, 0, "do not allow move_candidate"},
		{"no such job", agent, 999999, "get_job: not_found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := run(context.Background(), config{Endpoint: w.url, Token: tc.token, JobID: tc.job, Out: io.Discard})
			require.ErrorContains(t, err, tc.want)
		})
	}
}
