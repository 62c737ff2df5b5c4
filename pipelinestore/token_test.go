package pipelinestore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

func TestStore_Tokens(t *testing.T) {
	each(t, "by hash", func(t *testing.T, f fixture) {
		db := f.DB
		ctx := context.Background()
		acme := f.Res.Teams["acme"]
		a, err := db.Tokens().Auth(ctx, pipeline.TokenAuthParams{Hash: pipeline.HashToken(f.Res.Tokens["olivia"])})
		require.NoError(t, err)
		assert.Equal(t, pipeline.User{ID: f.User("olivia"), Name: "Olivia Owner", Email: "olivia@acme.test"}, a.User)
		require.NotNil(t, a.Team.JobLimit)
		assert.Equal(t, pipeline.Team{ID: acme, Key: "acme", Name: "Acme", JobLimit: a.Team.JobLimit}, a.Team)
		assert.Equal(t, 20, *a.Team.JobLimit)
		assert.Equal(t, pipeline.AllScopes, a.Token.Scopes)
		assert.Equal(t, acme, a.Token.TeamID)
		assert.Equal(t, f.User("olivia"), a.Token.UserID)
		assert.Nil(t, a.Token.LastUsedAt)
		assert.Nil(t, a.Token.RevokedAt)
		assert.True(t, a.Token.Active(time.Now()))

		g, err := db.Tokens().Auth(ctx, pipeline.TokenAuthParams{Hash: pipeline.HashToken(f.Res.Tokens["gary"])})
		require.NoError(t, err)
		assert.Equal(t, pipeline.Team{ID: f.Res.Teams["globex"], Key: "globex", Name: "Globex"}, g.Team)

		one, err := db.Tokens().Auth(ctx, pipeline.TokenAuthParams{Hash: pipeline.HashToken(f.Res.Tokens["olivia_jobs_read"])})
		require.NoError(t, err)
		assert.Equal(t, []pipeline.Scope{pipeline.ScopeJobsRead}, one.Token.Scopes)

		revoked, err := db.Tokens().Auth(ctx, pipeline.TokenAuthParams{Hash: pipeline.HashToken(f.Res.Tokens["olivia_revoked"])})
		require.NoError(t, err)
		assert.NotNil(t, revoked.Token.RevokedAt)
		assert.False(t, revoked.Token.Active(time.Now()))
		expired, err := db.Tokens().Auth(ctx, pipeline.TokenAuthParams{Hash: pipeline.HashToken(f.Res.Tokens["olivia_expired"])})
		require.NoError(t, err)
		assert.False(t, expired.Token.Active(time.Now()))

		_, err = db.Tokens().Auth(ctx, pipeline.TokenAuthParams{Hash: pipeline.HashToken("plt_nothing")})
		requireCode(t, pipeline.ENotFound, err)
	})
	each(t, "touch", func(t *testing.T, f fixture) {
		db := f.DB
		ctx := context.Background()
		a, err := db.Tokens().Auth(ctx, pipeline.TokenAuthParams{Hash: pipeline.HashToken(f.Res.Tokens["nina"])})
		require.NoError(t, err)
		at := time.Date(2026, 3, 4, 5, 6, 7, 891011121, time.UTC)
		require.NoError(t, db.Tokens().Touch(ctx, pipeline.TouchTokenParams{ID: a.Token.ID, At: at}))
		a, err = db.Tokens().Auth(ctx, pipeline.TokenAuthParams{Hash: pipeline.HashToken(f.Res.Tokens["nina"])})
		require.NoError(t, err)
		require.NotNil(t, a.Token.LastUsedAt)
		assert.Equal(t, at.Truncate(time.Microsecond), *a.Token.LastUsedAt)
		requireCode(t, pipeline.ENotFound, db.Tokens().Touch(ctx, pipeline.TouchTokenParams{ID: 1 << 40, At: at}))
	})
	each(t, "users", func(t *testing.T, f fixture) {
		db := f.DB
		ctx := context.Background()
		u, err := db.Users().ByEmail(ctx, pipeline.UserByEmailParams{Email: "mia@acme.test"})
		require.NoError(t, err)
		assert.Equal(t, pipeline.User{ID: f.User("mia"), Name: "Mia Member", Email: "mia@acme.test"}, u)
		_, err = db.Users().ByEmail(ctx, pipeline.UserByEmailParams{Email: "nobody@acme.test"})
		requireCode(t, pipeline.ENotFound, err)
	})
}

func TestStore_Tokens_Issued(t *testing.T) {
	each(t, "create, list, revoke", func(t *testing.T, f fixture) {
		db := f.DB
		ctx := context.Background()
		acme := f.Res.Teams["acme"]
		created := time.Now().UTC().Truncate(time.Second) // the newest token of the team
		tok, value, err := f.Op.IssueToken(ctx, pipeline.TokenRequest{
			UserEmail: "adam@acme.test", Name: "adam bot", CreatedAt: created,
			Scopes: []pipeline.Scope{pipeline.ScopeCandidatesRead, pipeline.ScopeJobsRead},
		})
		require.NoError(t, err)
		assert.NotZero(t, tok.ID)
		assert.Equal(t, acme, tok.TeamID)
		assert.Equal(t, []pipeline.Scope{pipeline.ScopeJobsRead, pipeline.ScopeCandidatesRead}, tok.Scopes)
		a, err := db.Tokens().Auth(ctx, pipeline.TokenAuthParams{Hash: pipeline.HashToken(value)})
		require.NoError(t, err)
		assert.Equal(t, tok.ID, a.Token.ID)
		assert.Equal(t, created, a.Token.CreatedAt)
		assert.Equal(t, pipeline.AddMonths(created, 6), a.Token.ExpiresAt)

		insert := func(tok pipeline.Token) error {
			return db.Write(ctx, func(tx pipeline.Tx) error {
				_, err := tx.Tokens().Insert(ctx, pipeline.InsertTokenParams{Token: tok})
				return err
			})
		}
		requireCode(t, pipeline.ENotFound, insert(pipeline.Token{UserID: 1 << 40, Name: "x", Scopes: pipeline.AllScopes, Hash: "h", CreatedAt: created, ExpiresAt: created}))
		requireCode(t, pipeline.EConflict, insert(pipeline.Token{UserID: f.User("adam"), Name: "dup", Scopes: pipeline.AllScopes, Hash: tok.Hash, CreatedAt: created, ExpiresAt: created}))

		toks, err := db.Tokens().List(ctx, pipeline.ListTokensParams{TeamID: acme})
		require.NoError(t, err)
		require.Len(t, toks, 10) // 9 seeded on acme, then adam bot
		for i, tk := range toks {
			if i > 0 {
				assert.False(t, tk.CreatedAt.Before(toks[i-1].CreatedAt), "oldest first")
			}
			assert.Equal(t, acme, tk.TeamID)
			assert.Equal(t, tk.UserID, tk.Creator.ID)
			assert.NotEmpty(t, tk.Creator.Name)
		}
		assert.Equal(t, "olivia expired", toks[0].Name)
		last := toks[len(toks)-1]
		assert.Equal(t, "adam bot", last.Name)
		assert.Equal(t, pipeline.User{ID: f.User("adam"), Name: "Adam Admin", Email: "adam@acme.test"}, last.Creator)

		first := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
		revoke := func(id int64, at time.Time) error {
			return db.Write(ctx, func(tx pipeline.Tx) error {
				if _, err := tx.Tokens().Lock(ctx, pipeline.TokenParams{ID: id}); err != nil {
					return err
				}
				return tx.Tokens().Revoke(ctx, pipeline.RevokeTokenParams{ID: id, At: at})
			})
		}
		require.NoError(t, revoke(tok.ID, first))
		require.NoError(t, revoke(tok.ID, first.Add(time.Hour)))
		a, err = db.Tokens().Auth(ctx, pipeline.TokenAuthParams{Hash: pipeline.HashToken(value)})
		require.NoError(t, err)
		require.NotNil(t, a.Token.RevokedAt)
		assert.Equal(t, first, *a.Token.RevokedAt)
		requireCode(t, pipeline.ENotFound, revoke(1<<40, first))
	})
}
