package pipelinestore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

func TestStore_UserByEmail(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := seeded(t, db)
		ctx := context.Background()

		u, err := db.Users().ByEmail(ctx, pipeline.UserByEmailParams{Email: "Olivia@ACME.test"})
		require.NoError(t, err, "emails match in any letter case")
		assert.Equal(t, f.User("olivia"), u.ID)

		_, err = db.Users().ByEmail(ctx, pipeline.UserByEmailParams{Email: "nobody@acme.test"})
		requireCode(t, pipeline.ENotFound, err)

		_, err = pipeline.NewOperator(db).Seed(ctx, &pipeline.SeedWorld{
			Teams: []pipeline.SeedTeam{{Key: "t", Name: "T"}},
			Users: []pipeline.SeedUser{{Key: "o", Name: "O", Email: "OLIVIA@acme.test", CurrentTeam: "t",
				Memberships: []pipeline.SeedMembership{{Team: "t", Role: pipeline.RoleOwner}}}},
		})
		requireCode(t, pipeline.EConflict, err)
	})
}

func TestStore_UserWithTeam(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := seeded(t, db)
		u, err := db.Users().Get(context.Background(), pipeline.UserParams{ID: f.User("mia")})
		require.NoError(t, err)
		assert.Equal(t, pipeline.User{ID: f.User("mia"), Name: "Mia Member", Email: "mia@acme.test"}, u.User)
		assert.Equal(t, "Acme", u.Team.Name)
		require.NotNil(t, u.Team.JobLimit)
		assert.Equal(t, 20, *u.Team.JobLimit)
		_, err = db.Users().Get(context.Background(), pipeline.UserParams{ID: 1 << 40})
		requireCode(t, pipeline.ENotFound, err)
	})
}

// TestStore_ActivityText checks that an entry's changes come back exactly as
// written, on both databases.
func TestStore_ActivityText(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := seeded(t, db)
		ctx := context.Background()
		changes := `{"stage":{"before":"Applied","after":"Screening"},"b":[1,2]}`
		require.NoError(t, db.Write(ctx, func(tx pipeline.Tx) error {
			return tx.Activity().Insert(ctx, pipeline.Activity{
				TeamID: f.Res.Teams["acme"], UserID: f.User("olivia"), TokenID: 1, IP: "::1",
				Action: pipeline.ActionCandidateStageChanged, SubjectType: pipeline.SubjectCandidate,
				SubjectID: f.Res.Candidates["ada"], Changes: []byte(changes), CreatedAt: time.Now().UTC(),
			})
		}))
		log, err := db.Activity().List(ctx, pipeline.ActivityFilter{})
		require.NoError(t, err)
		require.Len(t, log, 1)
		assert.Equal(t, changes, string(log[0].Changes))
		assert.Equal(t, "::1", log[0].IP)
	})
}
