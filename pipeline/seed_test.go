package pipeline

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func seedWorld() *SeedWorld {
	return &SeedWorld{
		Teams: []SeedTeam{{Key: "acme", Name: "Acme"}, {Key: "globex", Name: "Globex"}},
		Users: []SeedUser{
			{Key: "olivia", Name: "Olivia", Email: "olivia@acme.test", CurrentTeam: "acme",
				Memberships: []SeedMembership{{Team: "acme", Role: RoleOwner}}},
			{Key: "gary", Name: "Gary", Email: "gary@globex.test", CurrentTeam: "globex",
				Memberships: []SeedMembership{{Team: "globex", Role: RoleOwner}}},
		},
		Jobs: []SeedJob{{Key: "backend", Team: "acme", Owner: "olivia", Title: "Backend", Status: JobOpen,
			Candidates: []SeedCandidate{{Key: "ada", Name: "Ada", Email: "ada@example.test", Applied: "2026-01-05"}}}},
		Tokens: []SeedToken{{Key: "bot", User: "olivia", Name: "bot", Scopes: []Scope{ScopeCandidatesRead, ScopeJobsRead}}},
	}
}

func TestSeedWorld_Normalize(t *testing.T) {
	now := time.Date(2026, 8, 31, 12, 0, 0, 0, time.UTC)
	t.Run("defaults", func(t *testing.T) {
		w := seedWorld()
		require.NoError(t, w.normalize(now))
		j := w.Jobs[0]
		assert.Equal(t, DefaultStages, j.Stages)
		assert.Equal(t, now, *j.CreatedAt)
		assert.Equal(t, time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC), j.ApplicationDeadline)
		assert.Equal(t, "Applied", j.Candidates[0].Stage)
		assert.Equal(t, CandidateActive, j.Candidates[0].Status)
		tk := w.Tokens[0]
		assert.Equal(t, []Scope{ScopeJobsRead, ScopeCandidatesRead}, tk.Scopes, "table order")
		assert.Equal(t, time.Date(2027, 2, 28, 12, 0, 0, 0, time.UTC), tk.ExpiresAt)
		assert.Nil(t, tk.RevokedAt)
	})
	for name, tc := range map[string]struct {
		edit  func(w *SeedWorld)
		field string
	}{
		"owner of another team":    {func(w *SeedWorld) { w.Jobs[0].Owner = "gary" }, "jobs[0].owner"},
		"assignee of another team": {func(w *SeedWorld) { w.Jobs[0].Assignees = []string{"gary"} }, "jobs[0].assignees[0]"},
		"undefined assignee":       {func(w *SeedWorld) { w.Jobs[0].Assignees = []string{"mia"} }, "jobs[0].assignees[0]"},
		"undefined owner":          {func(w *SeedWorld) { w.Jobs[0].Owner = "mia" }, "jobs[0].owner"},
		"undefined token user":     {func(w *SeedWorld) { w.Tokens[0].User = "mia" }, "tokens[0].user"},
		"unknown team":             {func(w *SeedWorld) { w.Jobs[0].Team = "initech" }, "jobs[0].team"},
		"status in capitals":       {func(w *SeedWorld) { w.Jobs[0].Status = "OPEN" }, "jobs[0].status"},
		"unknown stage":            {func(w *SeedWorld) { w.Jobs[0].Candidates[0].Stage = "Lobby" }, "jobs[0].candidates[0].stage"},
		"bad date":                 {func(w *SeedWorld) { w.Jobs[0].Candidates[0].Applied = "5/1/2026" }, "jobs[0].candidates[0].applied"},
		"unknown scope":            {func(w *SeedWorld) { w.Tokens[0].Scopes = []Scope{"jobs:delete"} }, "tokens[0].scopes"},
		"current team not joined":  {func(w *SeedWorld) { w.Users[0].CurrentTeam = "globex" }, "users[0].current_team"},
		"duplicate key":            {func(w *SeedWorld) { w.Users[1].Key = "olivia" }, "users[1].key"},
		"name not UTF-8":           {func(w *SeedWorld) { w.Users[0].Name = "Oliv\xffia" }, "users[0].name"},
		"NUL in a stage":           {func(w *SeedWorld) { w.Jobs[0].Stages = []string{"Applied\x00"} }, "jobs[0].stages[0]"},
		"lone surrogate in a URL":  {func(w *SeedWorld) { w.Jobs[0].Candidates[0].ResumeURL = "https://x.test/\xed\xa0\x80" }, "jobs[0].candidates[0].resume_url"},
	} {
		t.Run(name, func(t *testing.T) {
			w := seedWorld()
			tc.edit(w)
			err := w.normalize(now)
			require.ErrorIs(t, err, ErrValidation)
			assert.Contains(t, Fields(err), tc.field)
		})
	}
}
