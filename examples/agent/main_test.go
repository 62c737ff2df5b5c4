package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
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
	mu  sync.Mutex
	now time.Time
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
	return nil
}

// loseResponses performs every request but drops the response of every
// third write, as a network that fails after the server acted would.
type loseResponses struct {
	next      http.RoundTripper
	writes    atomic.Int64
	lost      atomic.Int64
	throttled atomic.Int64
}

func (l *loseResponses) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		l.throttled.Add(1)
	}
	if err != nil || r.Method == http.MethodGet || l.writes.Add(1)%3 != 0 {
		return resp, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	l.lost.Add(1)
	return nil, errors.New("connection reset by peer")
}

func TestAgent(t *testing.T) {
	gin.SetMode(gin.TestMode)
	ctx := context.Background()
	db := storetest.OpenSQLite(t)
	clk := &clock{now: time.Now().UTC().Truncate(time.Second)}
	// A budget of 8 requests a minute forces the agent through several 429s.
	svc := pipeline.NewService(db, pipeline.WithClock(clk), pipeline.WithLimiter(pipeline.NewMemoryLimiter(8)))
	op := pipeline.NewOperator(db, pipeline.WithClock(clk))
	seed := storetest.Seed(t, op)
	_, token, err := op.IssueToken(ctx, pipeline.TokenRequest{
		UserEmail: "olivia@acme.test", Name: "agent",
		Scopes: []pipeline.Scope{pipeline.ScopeJobsRead, pipeline.ScopeCandidatesRead, pipeline.ScopeCandidatesWrite},
	})
	require.NoError(t, err)

	srv := httptest.NewServer(pipelinehttp.New(svc, pipelinehttp.Config{}))
	defer srv.Close()
	lossy := &loseResponses{next: srv.Client().Transport}

	var out bytes.Buffer
	job := seed.Jobs["backend"]
	err = run(ctx, config{
		BaseURL: srv.URL, Token: token, JobID: job, Out: &out,
		HTTP: &http.Client{Transport: lossy}, Sleep: clk.sleep,
	})
	require.NoError(t, err, out.String())
	t.Log(out.String())
	assert.Contains(t, out.String(), "2 candidates in Applied")
	assert.Contains(t, out.String(), "done: 2 candidates moved")
	assert.Positive(t, lossy.lost.Load(), "responses were lost and retried")
	assert.Positive(t, lossy.throttled.Load(), "the agent waited out 429s")

	// Each candidate was moved, noted and rated exactly once despite the
	// lost responses and the 429s.
	c, err := svc.Authenticate(ctx, seed.Tokens["olivia"])
	require.NoError(t, err)
	octx := pipeline.NewContext(ctx, c)
	for _, key := range []string{"ada", "linus"} {
		cand, err := svc.GetCandidate(octx, job, seed.Candidates[key])
		require.NoError(t, err)
		assert.Equal(t, "Screening", cand.Stage, key)
		assert.Equal(t, 1, cand.NotesCount, key)
	}
	log, err := op.ActivityLog(ctx, nil)
	require.NoError(t, err)
	actions := map[string]int{}
	for _, a := range log {
		actions[a.Action]++
	}
	assert.Equal(t, map[string]int{
		pipeline.ActionTokenCreated:          1, // the agent's token
		pipeline.ActionCandidateStageChanged: 2,
		pipeline.ActionCandidateNoteAdded:    2,
		pipeline.ActionCandidateRated:        2,
	}, actions)
}

func TestAgent_NoToken(t *testing.T) {
	err := run(context.Background(), config{BaseURL: "http://127.0.0.1:1", Out: io.Discard})
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "PIPELINE_TOKEN"))
}

// TestAgent_Refused shows the API's refusals reaching the agent as the
// typed error bodies of the generated client.
func TestAgent_Refused(t *testing.T) {
	gin.SetMode(gin.TestMode)
	ctx := context.Background()
	db := storetest.OpenSQLite(t)
	svc, op := pipeline.NewService(db), pipeline.NewOperator(db)
	seed := storetest.Seed(t, op)
	_, readOnly, err := op.IssueToken(ctx, pipeline.TokenRequest{
		UserEmail: "olivia@acme.test", Name: "read only",
		Scopes: []pipeline.Scope{pipeline.ScopeJobsRead, pipeline.ScopeCandidatesRead},
	})
	require.NoError(t, err)
	srv := httptest.NewServer(pipelinehttp.New(svc, pipelinehttp.Config{}))
	defer srv.Close()

	for _, tc := range []struct {
		name  string
		token string
		job   int64
		want  string
	}{
		{"unknown token", "plt_unknown", 0, "401 unauthenticated: Unauthenticated."},
		{"no such job", readOnly, 999999, "404 not_found"},
		{"no candidates:write", readOnly, seed.Jobs["backend"], "403 insufficient_scope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(ctx, config{BaseURL: srv.URL, Token: tc.token, JobID: tc.job, Out: &out})
			var apiErr *apiError
			require.ErrorAs(t, err, &apiErr, out.String())
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
