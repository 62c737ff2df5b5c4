package pipelinestore_test

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

// seedExample is the seed file of decisions §8.
const seedExample = `{
  "teams": [{"key": "acme", "name": "Acme", "job_limit": 20}],
  "users": [{"key": "olivia", "name": "Olivia Owner", "email": "olivia@acme.test",
             "current_team": "acme", "memberships": [{"team": "acme", "role": "owner"}]}],
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

func TestService_Seed(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		// The example's assignee is not one of its users: add her, as the
		// file would have to for validation to pass.
		var w pipeline.SeedWorld
		require.NoError(t, json.Unmarshal([]byte(seedExample), &w))
		w.Users = append(w.Users, pipeline.SeedUser{
			Key: "mia", Name: "Mia Member", Email: "mia@acme.test", CurrentTeam: "acme",
			Memberships: []pipeline.SeedMembership{{Team: "acme", Role: pipeline.RoleMember}},
		})
		now := time.Date(2026, 11, 15, 8, 0, 0, 0, time.UTC)
		svc := pipeline.NewService(db, pipeline.WithClock(pipeline.ClockFunc(func() time.Time { return now })))
		res, err := svc.Seed(context.Background(), &w)
		require.NoError(t, err)

		assert.Equal(t, map[string]int64{"acme": res.Teams["acme"]}, res.Teams)
		assert.Len(t, res.Users, 2)
		assert.Len(t, res.Jobs, 1)
		require.Len(t, res.Stages["backend"], 5)
		assert.Len(t, res.Candidates, 1)
		require.Contains(t, res.Tokens, "olivia_bot")
		for _, id := range []int64{res.Teams["acme"], res.Users["olivia"], res.Users["mia"], res.Jobs["backend"], res.Candidates["ada"]} {
			assert.Positive(t, id)
		}

		c, err := svc.Authenticate(context.Background(), res.Tokens["olivia_bot"])
		require.NoError(t, err)
		assert.Equal(t, res.Users["olivia"], c.User.ID)
		assert.Equal(t, res.Teams["acme"], c.Team.ID)
		assert.Equal(t, []pipeline.Scope{pipeline.ScopeJobsRead, pipeline.ScopeCandidatesRead}, c.Scopes)
		ctx := pipeline.NewContext(context.Background(), c)

		j, err := svc.Job(ctx, res.Jobs["backend"])
		require.NoError(t, err)
		assert.Equal(t, pipeline.Job{
			ID: res.Jobs["backend"], TeamID: res.Teams["acme"], OwnerID: res.Users["olivia"],
			Title: "Backend Engineer", Status: pipeline.JobOpen, Description: "<p>Go</p>",
			WorkMode: pipeline.DefaultWorkMode, EmploymentType: pipeline.DefaultEmploymentType,
			ApplicationDeadline: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC),
			CreatedAt:           time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC),
			UpdatedAt:           time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC),
		}, j)

		stages, err := svc.Stages(ctx, res.Jobs["backend"])
		require.NoError(t, err)
		for i, s := range stages {
			assert.Equal(t, pipeline.DefaultStages[i], s.Name)
			assert.Equal(t, res.Stages["backend"][s.Name], s.ID)
		}

		cand, err := svc.Candidate(ctx, res.Jobs["backend"], res.Candidates["ada"])
		require.NoError(t, err)
		assert.Equal(t, "Screening", cand.Stage)
		assert.Equal(t, res.Stages["backend"]["Screening"], cand.StageID)
		assert.Equal(t, "https://files.example.test/ada.pdf", cand.ResumeURL)

		// mia reaches the job through the assignment.
		_, err = db.Job(context.Background(), res.Users["mia"], res.Jobs["backend"])
		require.NoError(t, err)

		acts, err := db.Activity(context.Background(), nil)
		require.NoError(t, err)
		assert.Empty(t, acts, "seeding logs nothing")
	})
}

func TestService_Seed_NothingOnFailure(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := seeded(t, db)
		ctx := context.Background()

		t.Run("invalid world", func(t *testing.T) {
			w := storetest.World(time.Now())
			w.Users[0].Email = "fresh@acme.test"
			w.Jobs[0].Owner = "nobody"
			_, err := f.Svc.Seed(ctx, w)
			requireCode(t, pipeline.EValidation, err)
			_, err = db.UserByEmail(ctx, "fresh@acme.test")
			requireCode(t, pipeline.ENotFound, err)
		})

		t.Run("conflict half way", func(t *testing.T) {
			// Valid on its own, but its second user's email is taken: the
			// team and first user inserted before must go too.
			w := &pipeline.SeedWorld{
				Teams: []pipeline.SeedTeam{{Key: "initech", Name: "Initech"}},
				Users: []pipeline.SeedUser{
					{Key: "zed", Name: "Zed", Email: "zed@initech.test", CurrentTeam: "initech",
						Memberships: []pipeline.SeedMembership{{Team: "initech", Role: pipeline.RoleOwner}}},
					{Key: "dup", Name: "Dup", Email: "olivia@acme.test", CurrentTeam: "initech",
						Memberships: []pipeline.SeedMembership{{Team: "initech", Role: pipeline.RoleMember}}},
				},
			}
			_, err := f.Svc.Seed(ctx, w)
			requireCode(t, pipeline.EConflict, err)
			_, err = db.UserByEmail(ctx, "zed@initech.test")
			requireCode(t, pipeline.ENotFound, err)
		})

		t.Run("conflict at the end", func(t *testing.T) {
			w := storetest.World(time.Now())
			for i := range w.Users {
				w.Users[i].Email = "again-" + w.Users[i].Email
			}
			// A token hash taken by the first seed: the last insert fails.
			w.Tokens = w.Tokens[:1]
			_, err := db.Seed(ctx, withHash(w, pipeline.HashToken(f.Res.Tokens["olivia"])))
			requireCode(t, pipeline.EConflict, err)
			_, err = db.UserByEmail(ctx, "again-olivia@acme.test")
			requireCode(t, pipeline.ENotFound, err)
		})
	})
}

// withHash fills in the defaults Service.Seed would, for the store's Seed
// called directly, and gives every token the given hash.
func withHash(w *pipeline.SeedWorld, hash string) *pipeline.SeedWorld {
	for i := range w.Jobs {
		j := &w.Jobs[i]
		if j.Stages == nil {
			j.Stages = pipeline.DefaultStages
		}
		j.WorkMode, j.EmploymentType = pipeline.DefaultWorkMode, pipeline.DefaultEmploymentType
		j.ApplicationDeadline = pipeline.Date(*j.CreatedAt).AddDate(0, 0, pipeline.DefaultDeadlineDays)
		for k := range j.Candidates {
			c := &j.Candidates[k]
			if c.Stage == "" {
				c.Stage = j.Stages[0]
			}
			if c.Status == "" {
				c.Status = pipeline.CandidateActive
			}
		}
	}
	for i := range w.Tokens {
		w.Tokens[i].Hash = hash
		w.Tokens[i].ExpiresAt = pipeline.AddMonths(*w.Tokens[i].CreatedAt, pipeline.TokenLifetime)
	}
	return w
}
