package pipeline_test

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// world is a seeded fixture on one database.
type world = storetest.Fixture

// each runs fn as subtest name, once per database, each time on a freshly
// seeded world, so that every leaf test stands alone.
func each(t *testing.T, name string, fn func(t *testing.T, w world)) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
			fn(t, storetest.Seeded(t, db))
		})
	})
}

func TestService_Authenticate(t *testing.T) {
	each(t, "ok", func(t *testing.T, w world) {
		c, err := w.Svc.Authenticate(context.Background(), w.Res.Tokens["olivia"])
		require.NoError(t, err)
		assert.Equal(t, w.User("olivia"), c.User().ID)
		assert.Equal(t, "olivia@acme.test", c.User().Email)
		assert.Equal(t, w.Res.Teams["acme"], c.Team().ID)
		assert.Equal(t, "Acme", c.Team().Name)
		assert.Equal(t, "acme", c.Team().Key)
		assert.Equal(t, pipeline.AllScopes, c.Scopes())
		assert.NotZero(t, c.TokenID())
		assert.Empty(t, c.IP(), "the transport adds the address")
	})
	for _, name := range []string{"revoked", "expired", "malformed", "unknown", "empty"} {
		each(t, name, func(t *testing.T, w world) {
			value := map[string]string{
				"revoked":   w.Res.Tokens["olivia_revoked"],
				"expired":   w.Res.Tokens["olivia_expired"],
				"malformed": "Bearer nonsense",
				"unknown":   pipeline.NewTokenValue(),
				"empty":     "",
			}[name]
			_, err := w.Svc.Authenticate(context.Background(), value)
			assert.ErrorIs(t, err, pipeline.ErrUnauthenticated)
		})
	}
	each(t, "a token revoked elsewhere stops working within the token TTL", func(t *testing.T, w world) {
		now := time.Now().UTC()
		svc := pipeline.NewService(w.DB, pipeline.WithClock(pipeline.ClockFunc(func() time.Time { return now })))
		c, err := svc.Authenticate(context.Background(), w.Res.Tokens["mia"])
		require.NoError(t, err)
		require.NoError(t, w.Op.RevokeToken(context.Background(), c.TokenID()))
		now = now.Add(pipeline.DefaultTokenTTL - time.Millisecond)
		_, err = svc.Authenticate(context.Background(), w.Res.Tokens["mia"])
		require.NoError(t, err, "read less than the TTL ago")
		now = now.Add(time.Millisecond)
		_, err = svc.Authenticate(context.Background(), w.Res.Tokens["mia"])
		assert.ErrorIs(t, err, pipeline.ErrUnauthenticated, "read again once the TTL has passed")
	})
	each(t, "an expired token is refused at its expiry, read or not", func(t *testing.T, w world) {
		tok, value, err := w.Op.IssueToken(context.Background(), pipeline.TokenRequest{
			UserEmail: "mia@acme.test", Name: "soon", CreatedAt: time.Now().UTC().AddDate(0, -6, 0).Add(time.Second)})
		require.NoError(t, err)
		now := tok.ExpiresAt.Add(-time.Millisecond)
		svc := pipeline.NewService(w.DB, pipeline.WithClock(pipeline.ClockFunc(func() time.Time { return now })))
		_, err = svc.Authenticate(context.Background(), value)
		require.NoError(t, err)
		now = tok.ExpiresAt
		_, err = svc.Authenticate(context.Background(), value)
		assert.ErrorIs(t, err, pipeline.ErrUnauthenticated)
	})
	each(t, "records last use without a write per request", func(t *testing.T, w world) {
		for range 3 {
			_, err := w.Svc.Authenticate(context.Background(), w.Res.Tokens["adam"])
			require.NoError(t, err)
		}
		tokens, err := w.Op.TeamTokens(context.Background(), w.Res.Teams["acme"])
		require.NoError(t, err)
		var used *time.Time
		for _, tk := range tokens {
			if tk.UserID == w.User("adam") {
				used = tk.LastUsedAt
			}
		}
		require.NotNil(t, used, "last_used_at is recorded")
		assert.WithinDuration(t, time.Now(), *used, time.Minute)
	})
}

func TestService_Me(t *testing.T) {
	each(t, "any valid token", func(t *testing.T, w world) {
		id, err := w.Svc.GetMe(w.As(t, "olivia_messages"))
		require.NoError(t, err)
		assert.Equal(t, "Olivia Owner", id.User.Name)
		assert.Equal(t, []pipeline.Scope{pipeline.ScopeMessagesSend}, id.Scopes)
	})
	each(t, "no caller", func(t *testing.T, w world) {
		_, err := w.Svc.GetMe(context.Background())
		assert.ErrorIs(t, err, pipeline.ErrUnauthenticated)
	})
	each(t, "a caller not made by the Service", func(t *testing.T, w world) {
		_, err := w.Svc.GetMe(pipeline.NewContext(context.Background(), pipeline.Caller{}))
		assert.ErrorIs(t, err, pipeline.ErrUnauthenticated)
	})
}

// missing is an id no record has.
const missing = 999999

// calls are the Service's operations with inputs that would fail for any
// other reason than the scope: missing records, empty inputs.
var calls = map[pipeline.Op]func(svc *pipeline.Service, ctx context.Context, r pipeline.Ref) error{
	pipeline.OpListJobs: func(svc *pipeline.Service, ctx context.Context, _ pipeline.Ref) error {
		_, err := svc.ListJobs(ctx, pipeline.JobFilter{})
		return err
	},
	pipeline.OpGetJob: func(svc *pipeline.Service, ctx context.Context, r pipeline.Ref) error {
		_, err := svc.GetJob(ctx, r.Job)
		return err
	},
	pipeline.OpListStages: func(svc *pipeline.Service, ctx context.Context, r pipeline.Ref) error {
		_, err := svc.ListStages(ctx, r.Job)
		return err
	},
	pipeline.OpCreateJob: func(svc *pipeline.Service, ctx context.Context, _ pipeline.Ref) error {
		_, err := svc.CreateJob(ctx, pipeline.NewJob{})
		return err
	},
	pipeline.OpUpdateJob: func(svc *pipeline.Service, ctx context.Context, r pipeline.Ref) error {
		_, err := svc.UpdateJob(ctx, r.Job, pipeline.JobPatch{})
		return err
	},
	pipeline.OpListCandidates: func(svc *pipeline.Service, ctx context.Context, r pipeline.Ref) error {
		_, err := svc.ListCandidates(ctx, r.Job, pipeline.CandidateFilter{})
		return err
	},
	pipeline.OpGetCandidate: func(svc *pipeline.Service, ctx context.Context, r pipeline.Ref) error {
		_, err := svc.GetCandidate(ctx, r.Job, r.Candidate)
		return err
	},
	pipeline.OpMoveCandidate: func(svc *pipeline.Service, ctx context.Context, r pipeline.Ref) error {
		_, err := svc.MoveCandidate(ctx, r.Job, r.Candidate, pipeline.CandidateMove{})
		return err
	},
	pipeline.OpAddNote: func(svc *pipeline.Service, ctx context.Context, r pipeline.Ref) error {
		_, err := svc.AddNote(ctx, r.Job, r.Candidate, pipeline.NewNote{})
		return err
	},
	pipeline.OpRateCandidate: func(svc *pipeline.Service, ctx context.Context, r pipeline.Ref) error {
		_, err := svc.RateCandidate(ctx, r.Job, r.Candidate, pipeline.NewRating{})
		return err
	},
	pipeline.OpListMessages: func(svc *pipeline.Service, ctx context.Context, r pipeline.Ref) error {
		_, err := svc.ListMessages(ctx, r.Job, r.Candidate, pipeline.MessageFilter{})
		return err
	},
}

// TestService_Scopes checks that each operation refuses a token without its
// scope before reading anything: even a missing record answers
// insufficient_scope.
func TestService_Scopes(t *testing.T) {
	for op, call := range calls {
		each(t, string(op), func(t *testing.T, w world) {
			err := call(w.Svc, w.As(t, "olivia_messages"), pipeline.Ref{Job: missing, Candidate: missing})
			require.ErrorIs(t, err, pipeline.ErrInsufficientScope)
			assert.Equal(t, map[string]string{"required_scope": string(op.Scope())}, err.(*pipeline.Error).Details)
			assert.Empty(t, w.Activity(t))
		})
	}
}

// TestService_Visibility is the matrix of who reaches which job, for every
// operation on a job and what is nested under it.
// visibilityCases are who sees which job and candidate of the fixture.
var visibilityCases = []struct {
	name, token, job, candidate string
	visible                     bool
}{
	{"owner sees a job of the team", "olivia", "frontend", "ken", true},
	{"admin sees a job of the team", "adam", "design", "don", true},
	{"member sees the job they own", "nina", "frontend", "ken", true},
	{"member sees the job they are assigned to", "mia", "backend", "ada", true},
	{"member does not see another job", "mia", "design", "don", false},
	{"member does not see a job of a colleague", "nina", "backend", "ada", false},
	{"owner does not see another team", "olivia", "ops", "ola", false},
	{"other team's owner does not see ours", "gary", "backend", "ada", false},
}

func TestService_Visibility(t *testing.T) {
	for _, tc := range visibilityCases {
		each(t, tc.name, func(t *testing.T, w world) {
			ctx := w.As(t, tc.token)
			ref := pipeline.Ref{Job: w.Job(tc.job), Candidate: w.Res.Candidates[tc.candidate]}
			for op, call := range calls {
				if ref.Job == 0 || op == pipeline.OpListJobs || op == pipeline.OpCreateJob {
					continue
				}
				err := call(w.Svc, ctx, ref)
				if tc.visible {
					assert.NotErrorIs(t, err, pipeline.ErrNotFound, op)
				} else {
					assert.ErrorIs(t, err, pipeline.ErrNotFound, op)
				}
			}
			status := pipeline.JobOpen
			if tc.job == "design" {
				status = pipeline.JobDraft
			}
			list, err := w.Svc.ListJobs(ctx, pipeline.JobFilter{Status: status})
			require.NoError(t, err)
			var listed bool
			for _, j := range list.Items {
				listed = listed || j.ID == ref.Job
			}
			assert.Equal(t, tc.visible, listed, "ListJobs")
			assert.Empty(t, w.Activity(t), "refused and invalid writes log nothing")
		})
	}
	each(t, "candidate of another job", func(t *testing.T, w world) {
		_, err := w.Svc.GetCandidate(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ken"])
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
	})
}

// TestService_UnreadInput: an input carrying what a face could not read
// is answered in the check order, where its validation comes, merged with
// what is wrong with the fields that were read.
func TestService_UnreadInput(t *testing.T) {
	unread := pipeline.Invalid("stage", "The stage field must be an integer.")
	each(t, "after the record and the key, merged with the fields read", func(t *testing.T, w world) {
		ctx, job, ada := w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"]
		_, err := w.Svc.MoveCandidate(ctx, missing, missing, pipeline.CandidateMove{Unread: unread, Idempotency: key("bad\tkey")})
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
		_, err = w.Svc.MoveCandidate(ctx, job, ada, pipeline.CandidateMove{Unread: unread, Idempotency: key("bad\tkey")})
		assert.Contains(t, pipeline.Fields(err), pipeline.IdempotencyField)
		_, err = w.Svc.UpdateJob(ctx, job, pipeline.JobPatch{Unread: unread, Title: new(" ")})
		assert.Equal(t, []string{"stage", "title"}, slices.Sorted(maps.Keys(pipeline.Fields(err))))
		assert.Empty(t, w.Activity(t))
	})
	each(t, "an input not read at all is only that", func(t *testing.T, w world) {
		whole := pipeline.Invalid("body", "The body must be a JSON object.")
		_, err := w.Svc.CreateJob(w.As(t, "olivia"), pipeline.NewJob{Unread: whole})
		assert.Equal(t, whole, err)
	})
	each(t, "a read of ids answers it once its own checks pass", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		j, err := w.Svc.GetJob(ctx, missing)
		_, err = pipeline.ResolveUnread(unread, false, j, err)
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
		j, err = w.Svc.GetJob(ctx, w.Job("backend"))
		_, err = pipeline.ResolveUnread(unread, false, j, err)
		assert.Equal(t, unread, err)
		j, err = w.Svc.GetJob(ctx, 0)
		_, err = pipeline.ResolveUnread(unread, true, j, err)
		assert.Equal(t, unread, err, "an id that could not be read names no record")
	})
}
