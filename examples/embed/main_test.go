package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

func TestEmbed(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), filepath.Join(t.TempDir(), "pipeline.db"), &out))
	got := out.String()
	t.Log(got)
	assert.Contains(t, got, `created job 2 "Platform Engineer": open, deadline`)
	assert.Contains(t, got, "replayed false\n")
	assert.Contains(t, got, `created job 2 "Platform Engineer"`)
	assert.Contains(t, got, "replayed true\n", "the second call with the key replays the first's job")
	assert.Contains(t, got, "2 of 2 candidates in Applied")
	assert.Contains(t, got, "moved Ada Lovelace to Screening, noted, rated good_fit")
	assert.Contains(t, got, "moving with a read-only token: insufficient_scope")
	assert.Contains(t, got, "job 999999: not found")
	// Five requests were admitted (four steps and the refused move), so the
	// read-only token of the same user spends the last of the budget of
	// six on its first request and is refused on its second.
	assert.Contains(t, got, "request 2 of the minute: rate_limited, retry within 1m0s: true", "the Service's 429")
	assert.Contains(t, got, `candidate.stage_changed candidate 1 by user 1 with token 1 from 127.0.0.1: {"stage":{"before":"Applied","after":"Screening"}}`)
	assert.Equal(t, 7, bytes.Count(out.Bytes(), []byte("\nactivity ")), "one entry per write that changed something")
}

// library is the embedded store, seeded with world(), and the caller of
// its "bot" token.
type library struct {
	svc *pipeline.Service
	op  *pipeline.Operator
	res pipeline.SeedResult
	bot context.Context
}

func openLibrary(t *testing.T) library {
	t.Helper()
	ctx := context.Background()
	db, err := pipelinestore.Open(ctx, filepath.Join(t.TempDir(), "pipeline.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	require.NoError(t, db.Migrate(ctx))
	l := library{svc: pipeline.NewService(db), op: pipeline.NewOperator(db)}
	l.res, err = l.op.Seed(ctx, world())
	require.NoError(t, err)
	caller, err := l.svc.Authenticate(ctx, l.res.Tokens["bot"])
	require.NoError(t, err)
	l.bot = pipeline.NewContext(ctx, caller)
	return l
}

func TestLibrary_Idempotency(t *testing.T) {
	t.Run("two keyed writes on one context are two writes", func(t *testing.T) {
		l := openLibrary(t)
		job := l.res.Jobs["backend"]
		a, err := l.svc.AddNote(l.bot, job, l.res.Candidates["ada"], pipeline.NewNote{
			Content: "First.", Idempotency: &pipeline.Idempotency{Key: "note-ada"}})
		require.NoError(t, err)
		g, err := l.svc.AddNote(l.bot, job, l.res.Candidates["grace"], pipeline.NewNote{
			Content: "Second.", Idempotency: &pipeline.Idempotency{Key: "note-grace"}})
		require.NoError(t, err)
		assert.False(t, a.Replayed)
		assert.False(t, g.Replayed)
		assert.NotEqual(t, a.Value.ID, g.Value.ID, "two notes")
		assert.Equal(t, "Second.", g.Value.Content)
	})
	t.Run("a repeated key replays, as a value", func(t *testing.T) {
		l := openLibrary(t)
		in := pipeline.NewRating{Value: pipeline.Maybe, Idempotency: &pipeline.Idempotency{Key: "rate-ada"}}
		first, err := l.svc.RateCandidate(l.bot, l.res.Jobs["backend"], l.res.Candidates["ada"], in)
		require.NoError(t, err)
		again, err := l.svc.RateCandidate(l.bot, l.res.Jobs["backend"], l.res.Candidates["ada"], in)
		require.NoError(t, err, "a replay is not an error")
		assert.True(t, again.Replayed)
		assert.Equal(t, first.Value, again.Value)
	})
	t.Run("a key used for another request is refused", func(t *testing.T) {
		l := openLibrary(t)
		job, ada := l.res.Jobs["backend"], l.res.Candidates["ada"]
		key := &pipeline.Idempotency{Key: "k"}
		_, err := l.svc.AddNote(l.bot, job, ada, pipeline.NewNote{Content: "One.", Idempotency: key})
		require.NoError(t, err)
		_, err = l.svc.AddNote(l.bot, job, ada, pipeline.NewNote{Content: "Two.", Idempotency: key})
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Contains(t, pipeline.Fields(err), pipeline.IdempotencyField)
	})
}

func TestLibrary_Callers(t *testing.T) {
	t.Run("the Service cannot issue tokens, list a team's, seed, or read the whole log", func(t *testing.T) {
		svc := reflect.TypeFor[*pipeline.Service]()
		for _, name := range []string{"IssueToken", "TeamTokens", "Seed", "ActivityLog", "ActAs"} {
			_, has := svc.MethodByName(name)
			assert.False(t, has, "Service.%s", name)
			_, op := reflect.TypeFor[*pipeline.Operator]().MethodByName(name)
			assert.True(t, op, "Operator.%s", name)
		}
	})
	t.Run("a token's caller cannot revoke tokens: only a signed-in person, on the pages", func(t *testing.T) {
		l := openLibrary(t)
		err := l.svc.RevokeToken(l.bot, 1)
		assert.ErrorIs(t, err, pipeline.ErrForbidden)
		_, err = l.svc.GetMe(l.bot)
		assert.NoError(t, err, "the token still works")
	})
	t.Run("a hand-built caller is no caller", func(t *testing.T) {
		l := openLibrary(t)
		ctx := pipeline.NewContext(context.Background(), pipeline.Caller{})
		_, err := l.svc.CreateJob(ctx, pipeline.NewJob{Title: "Forged"})
		assert.ErrorIs(t, err, pipeline.ErrUnauthenticated)
	})
	t.Run("acting as a user loads the user and carries only the given scopes", func(t *testing.T) {
		l := openLibrary(t)
		c, err := l.op.ActAs(context.Background(), l.res.Users["olivia"], []pipeline.Scope{pipeline.ScopeJobsRead})
		require.NoError(t, err)
		assert.Equal(t, "Acme", c.Team().Name)
		ctx := pipeline.NewContext(context.Background(), c)
		_, err = l.svc.GetJob(ctx, l.res.Jobs["backend"])
		require.NoError(t, err)
		_, err = l.svc.CreateJob(ctx, pipeline.NewJob{Title: "Not allowed"})
		assert.ErrorIs(t, err, pipeline.ErrInsufficientScope)
		_, err = l.op.ActAs(context.Background(), 999999, nil)
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
	})
	t.Run("errors.Is finds the code through wrapping", func(t *testing.T) {
		l := openLibrary(t)
		_, err := l.svc.GetCandidate(l.bot, l.res.Jobs["backend"], 999999)
		wrapped := errors.Join(errors.New("loading the candidate"), err)
		assert.ErrorIs(t, wrapped, pipeline.ErrNotFound)
		assert.NotErrorIs(t, wrapped, pipeline.ErrForbidden)
	})
}
