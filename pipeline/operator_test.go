package pipeline_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// seedExample is the seed file of decisions §8, which names two users.
const seedExample = `{
  "teams": [{"key": "acme", "name": "Acme", "job_limit": 20}],
  "users": [{"key": "olivia", "name": "Olivia Owner", "email": "olivia@acme.test",
             "current_team": "acme", "memberships": [{"team": "acme", "role": "owner"}]},
            {"key": "mia", "name": "Mia Member", "email": "mia@acme.test",
             "current_team": "acme", "memberships": [{"team": "acme", "role": "member"}]}],
  "jobs": [{"key": "backend", "team": "acme", "owner": "olivia", "assignees": ["mia"],
            "title": "Backend Engineer", "status": "open", "description": "<p>Go</p>",
            "created_at": "2026-01-02T10:00:00Z",
            "stages": ["Applied", "Screening", "Interview", "Offer", "Hired"],
            "candidates": [{"key": "ada", "name": "Ada Lovelace", "email": "ada@example.test",
                            "applied": "2026-01-05", "stage": "Screening", "status": "active",
                            "resume_url": "https://files.example.test/ada.pdf"}]}],
  "tokens": [{"key": "olivia_bot", "user": "olivia", "name": "pipeline bot",
              "scopes": ["jobs:read", "candidates:read"],
              "created_at": "2026-11-01T00:00:00Z", "revoked": false}]
}`

func TestOperator_Seed(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		var w pipeline.SeedWorld
		require.NoError(t, json.Unmarshal([]byte(seedExample), &w))
		now := pipeline.WithClock(pipeline.ClockFunc(func() time.Time { return time.Date(2026, 11, 15, 8, 0, 0, 0, time.UTC) }))
		op, svc := pipeline.NewOperator(db, now), pipeline.NewService(db, now)
		res, err := op.Seed(context.Background(), &w)
		require.NoError(t, err)
		assert.Len(t, res.Teams, 1)
		assert.Len(t, res.Users, 2)
		require.Len(t, res.Stages["backend"], 5)
		require.Contains(t, res.Tokens, "olivia_bot")

		c, err := svc.Authenticate(context.Background(), res.Tokens["olivia_bot"])
		require.NoError(t, err)
		assert.Equal(t, res.Users["olivia"], c.User().ID)
		assert.Equal(t, []pipeline.Scope{pipeline.ScopeJobsRead, pipeline.ScopeCandidatesRead}, c.Scopes())
		ctx := pipeline.NewContext(context.Background(), c)
		j, err := svc.GetJob(ctx, res.Jobs["backend"])
		require.NoError(t, err)
		assert.Equal(t, pipeline.Job{
			ID: res.Jobs["backend"], TeamID: res.Teams["acme"], OwnerID: res.Users["olivia"],
			Title: "Backend Engineer", Status: pipeline.JobOpen, Description: "<p>Go</p>",
			WorkMode: pipeline.DefaultWorkMode, EmploymentType: pipeline.DefaultEmploymentType,
			ApplicationDeadline: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC),
			CreatedAt:           time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC),
			UpdatedAt:           time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC),
		}, j)
		cand, err := svc.GetCandidate(ctx, res.Jobs["backend"], res.Candidates["ada"])
		require.NoError(t, err)
		assert.Equal(t, "Screening", cand.Stage)
		assert.Equal(t, res.Stages["backend"]["Screening"], cand.StageID)
		assert.Equal(t, "https://files.example.test/ada.pdf", cand.ResumeURL)

		mia, err := op.ActAs(context.Background(), res.Users["mia"], []pipeline.Scope{pipeline.ScopeJobsRead})
		require.NoError(t, err)
		_, err = svc.GetJob(pipeline.NewContext(context.Background(), mia), res.Jobs["backend"])
		require.NoError(t, err, "mia reaches the job through the assignment")

		log, err := op.ActivityLog(context.Background(), nil)
		require.NoError(t, err)
		assert.Empty(t, log, "seeding logs nothing")
	})
}

func TestOperator_Seed_NothingOnFailure(t *testing.T) {
	for name, edit := range map[string]func(w *pipeline.SeedWorld){
		"an undefined assignee": func(w *pipeline.SeedWorld) { w.Jobs[0].Assignees = []string{"nobody"} },
		"an undefined owner":    func(w *pipeline.SeedWorld) { w.Jobs[0].Owner = "nobody" },
	} {
		each(t, name, func(t *testing.T, w world) {
			file := storetest.World(time.Now())
			file.Users[0].Email = "fresh@acme.test"
			edit(file)
			_, err := w.Op.Seed(context.Background(), file)
			require.ErrorIs(t, err, pipeline.ErrValidation)
			_, err = w.DB.Users().ByEmail(context.Background(), pipeline.UserByEmailParams{Email: "fresh@acme.test"})
			assert.ErrorIs(t, err, pipeline.ErrNotFound, "nothing was loaded")
		})
	}
	each(t, "an email taken half way", func(t *testing.T, w world) {
		// Valid on its own, but its second user's email is taken: the team
		// and first user inserted before must go too.
		_, err := w.Op.Seed(context.Background(), &pipeline.SeedWorld{
			Teams: []pipeline.SeedTeam{{Key: "initech", Name: "Initech"}},
			Users: []pipeline.SeedUser{
				{Key: "zed", Name: "Zed", Email: "zed@initech.test", CurrentTeam: "initech",
					Memberships: []pipeline.SeedMembership{{Team: "initech", Role: pipeline.RoleOwner}}},
				{Key: "dup", Name: "Dup", Email: "olivia@acme.test", CurrentTeam: "initech",
					Memberships: []pipeline.SeedMembership{{Team: "initech", Role: pipeline.RoleMember}}},
			},
		})
		require.ErrorIs(t, err, pipeline.ErrConflict)
		_, err = w.DB.Users().ByEmail(context.Background(), pipeline.UserByEmailParams{Email: "zed@initech.test"})
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
	})
}

func TestOperator_Tokens(t *testing.T) {
	each(t, "issue", func(t *testing.T, w world) {
		created := time.Now().UTC().Truncate(time.Second)
		tok, value, err := w.Op.IssueToken(context.Background(), pipeline.TokenRequest{
			UserEmail: "ADAM@acme.test", Name: "adam bot", CreatedAt: created,
			Scopes: []pipeline.Scope{pipeline.ScopeCandidatesRead, pipeline.ScopeJobsRead},
		})
		require.NoError(t, err)
		assert.Equal(t, w.Res.Teams["acme"], tok.TeamID)
		assert.Equal(t, []pipeline.Scope{pipeline.ScopeJobsRead, pipeline.ScopeCandidatesRead}, tok.Scopes)
		assert.Equal(t, pipeline.AddMonths(created, 6), tok.ExpiresAt)
		c, err := w.Svc.Authenticate(context.Background(), value)
		require.NoError(t, err)
		assert.Equal(t, tok.ID, c.TokenID())
	})
	each(t, "a token with no scope reaches /me only", func(t *testing.T, w world) {
		_, value, err := w.Op.IssueToken(context.Background(), pipeline.TokenRequest{UserEmail: "mia@acme.test", Name: "bare"})
		require.NoError(t, err)
		c, err := w.Svc.Authenticate(context.Background(), value)
		require.NoError(t, err)
		ctx := pipeline.NewContext(context.Background(), c)
		me, err := w.Svc.GetMe(ctx)
		require.NoError(t, err)
		assert.Empty(t, me.Scopes)
		_, err = w.Svc.ListJobs(ctx, pipeline.JobFilter{})
		assert.ErrorIs(t, err, pipeline.ErrInsufficientScope)
	})
	for name, r := range map[string]pipeline.TokenRequest{
		"an unknown scope": {UserEmail: "mia@acme.test", Name: "x", Scopes: []pipeline.Scope{"jobs:delete"}},
		"no name":          {UserEmail: "mia@acme.test", Scopes: pipeline.AllScopes},
	} {
		each(t, name, func(t *testing.T, w world) {
			_, _, err := w.Op.IssueToken(context.Background(), r)
			assert.ErrorIs(t, err, pipeline.ErrValidation)
		})
	}
	each(t, "an unknown user", func(t *testing.T, w world) {
		_, _, err := w.Op.IssueToken(context.Background(), pipeline.TokenRequest{UserEmail: "nobody@acme.test", Name: "x"})
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
	})
	each(t, "list and revoke", func(t *testing.T, w world) {
		tokens, err := w.Op.TeamTokens(context.Background(), w.Res.Teams["acme"])
		require.NoError(t, err)
		creators := map[int64]bool{}
		for _, tk := range tokens {
			assert.Equal(t, w.Res.Teams["acme"], tk.TeamID)
			creators[tk.Creator.ID] = true
		}
		assert.True(t, creators[w.User("mia")] && creators[w.User("olivia")], "every member's tokens")
		assert.False(t, creators[w.User("gary")], "not another team's")

		svc := pipeline.NewService(w.DB, pipeline.WithTokenTTL(0))
		c, err := svc.Authenticate(context.Background(), w.Res.Tokens["mia"])
		require.NoError(t, err)
		require.NoError(t, w.Op.RevokeToken(context.Background(), c.TokenID()))
		_, err = svc.Authenticate(context.Background(), w.Res.Tokens["mia"])
		assert.ErrorIs(t, err, pipeline.ErrUnauthenticated, "revoked at once")
		assert.ErrorIs(t, w.Op.RevokeToken(context.Background(), missing), pipeline.ErrNotFound)
	})
}

func TestOperator_ActAs(t *testing.T) {
	each(t, "writes are logged without a token", func(t *testing.T, w world) {
		c, err := w.Op.ActAs(context.Background(), w.User("mia"), pipeline.AllScopes)
		require.NoError(t, err)
		assert.Zero(t, c.TokenID())
		ctx := pipeline.NewContext(context.Background(), c.WithIP("10.0.0.1"))
		_, err = w.Svc.AddNote(ctx, w.Job("backend"), w.Res.Candidates["ada"], pipeline.NewNote{Content: "Seen."})
		require.NoError(t, err)
		log := w.Activity(t)
		require.Len(t, log, 1)
		assert.Zero(t, log[0].TokenID)
		assert.Equal(t, w.User("mia"), log[0].UserID)
		assert.Equal(t, "10.0.0.1", log[0].IP)
	})
	each(t, "the visibility rule applies", func(t *testing.T, w world) {
		c, err := w.Op.ActAs(context.Background(), w.User("mia"), pipeline.AllScopes)
		require.NoError(t, err)
		_, err = w.Svc.GetJob(pipeline.NewContext(context.Background(), c), w.Job("design"))
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
	})
	each(t, "an unknown scope", func(t *testing.T, w world) {
		_, err := w.Op.ActAs(context.Background(), w.User("mia"), []pipeline.Scope{"root"})
		assert.ErrorIs(t, err, pipeline.ErrValidation)
	})
}
