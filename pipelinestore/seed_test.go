package pipelinestore_test

import (
	"context"
	"testing"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestStore_Seed_NothingOnFailure: a world whose last insert fails leaves
// nothing behind.
func TestStore_Seed_NothingOnFailure(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := seeded(t, db)
		ctx := context.Background()
		w := storetest.World(time.Now())
		for i := range w.Users {
			w.Users[i].Email = "again-" + w.Users[i].Email
		}
		// A token hash taken by the first seed: the last insert fails.
		w.Tokens = w.Tokens[:1]
		_, err := db.Seed(ctx, withHash(w, pipeline.HashToken(f.Res.Tokens["olivia"])))
		requireCode(t, pipeline.EConflict, err)
		_, err = db.Users().ByEmail(ctx, pipeline.UserByEmailParams{Email: "again-olivia@acme.test"})
		requireCode(t, pipeline.ENotFound, err)
	})
}

// withHash fills in the defaults Operator.Seed would, for the store's Seed
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
