package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

func TestTeam_SetRetention(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		m.Seed("testdata/seed.json")
		before := time.Now().UTC()
		line := userLine(t, m.Must("team", "set", "--key", "acme", "--retention-days", "90"))
		assert.Equal(t, float64(90), line["retention_days"])
		assert.Equal(t, float64(0), line["retention_days_in_effect"], "a new period waits 7 days")
		at, err := time.Parse(time.RFC3339, line["retention_effective_at"].(string))
		require.NoError(t, err)
		assert.WithinDuration(t, before.Add(pipeline.RetentionDelay), at, time.Minute)
		listed := jsonLines(t, m.Must("team", "list"))
		assert.Equal(t, line, listed[0], "team list shows it")

		line = userLine(t, m.Must("team", "set", "--key", "acme", "--retention-days", "0"))
		assert.Equal(t, float64(0), line["retention_days"])
		assert.Nil(t, line["retention_effective_at"], "off at once")

		for _, bad := range []string{"29", "3651", "-5", "ten"} {
			stdout, stderr, err := m.Run("", "team", "set", "--key", "acme", "--retention-days", bad)
			assert.True(t, errors.Is(err, errUsage) || errors.As(err, new(*lineError)), "%s: exit 2, got %v", bad, err)
			assert.Empty(t, stdout)
			assert.NotEmpty(t, stderr, bad)
		}
		_, _, err = m.Run("", "team", "set", "--key", "acme")
		assert.ErrorIs(t, err, errUsage, "--retention-days is required")
		_, _, err = m.Run("", "team", "set", "--key", "nope", "--retention-days", "30")
		assert.Equal(t, pipeline.ENotFound, pipeline.ErrorCode(err))
	})
}

// TestPrivacySweep: the pass erases what a team's period expired, and a
// dry run only prints it.
func TestPrivacySweep(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		world := `{"teams": [{"key": "acme", "name": "Acme"}],
  "users": [{"key": "olivia", "name": "Olivia Owner", "email": "olivia@acme.test",
             "current_team": "acme", "memberships": [{"team": "acme", "role": "owner"}]}],
  "jobs": [{"key": "old", "team": "acme", "owner": "olivia", "title": "Old Role", "status": "closed",
            "created_at": "2020-01-02T10:00:00Z",
            "candidates": [{"key": "ada", "name": "Ada Lovelace", "email": "ada@example.test", "applied": "2020-01-05"},
                           {"key": "bea", "name": "Bea Hired", "email": "bea@example.test", "applied": "2020-01-05",
                            "status": "hired"}]}]}`
		path := filepath.Join(t.TempDir(), "world.json")
		require.NoError(t, os.WriteFile(path, []byte(world), 0o600))
		res := m.Seed(path)
		assert.Empty(t, m.Must("privacy", "sweep", "--dry-run"), "no team has retention")

		// The period was set 8 days ago: it is in effect.
		ctx := context.Background()
		db, err := pipelinestore.Open(ctx, m.env["PIPELINE_DB"])
		require.NoError(t, err)
		past := pipeline.WithClock(pipeline.ClockFunc(func() time.Time { return time.Now().Add(-8 * 24 * time.Hour) }))
		_, err = pipeline.NewOperator(db, past).SetRetention(ctx, res.Teams["acme"], 30)
		require.NoError(t, err)
		require.NoError(t, db.Close())

		want := map[string]any{"team": "acme", "candidate_id": float64(res.Candidates["ada"]), "job_id": float64(res.Jobs["old"]),
			"why": "job_closed"}
		assert.Equal(t, []map[string]any{want}, jsonLines(t, m.Must("privacy", "sweep", "--dry-run")))
		assert.Equal(t, []map[string]any{want}, jsonLines(t, m.Must("privacy", "sweep")))
		assert.Empty(t, m.Must("privacy", "sweep"), "erased once")
		log := m.Must("activity")
		assert.Contains(t, log, `"action":"candidate.erased"`)
		assert.NotContains(t, log, "Ada Lovelace")
	})
}
