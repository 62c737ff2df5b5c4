package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// join adds the fixture user key to team with role.
func join(t *testing.T, w world, key, team string, role pipeline.Role) {
	t.Helper()
	_, err := w.Op.AddUser(context.Background(), pipeline.NewMember{
		Email: key + "@acme.test", TeamID: w.Res.Teams[team], Role: role,
	})
	require.NoError(t, err)
}

func TestOperator_AddUser(t *testing.T) {
	ctx := context.Background()
	each(t, "a new user", func(t *testing.T, w world) {
		m, err := w.Op.AddUser(ctx, pipeline.NewMember{Email: "rita@globex.test", Name: "Rita", TeamID: w.Res.Teams["globex"], Role: pipeline.RoleAdmin})
		require.NoError(t, err)
		assert.Equal(t, "Rita", m.User.Name)
		assert.Equal(t, w.Res.Teams["globex"], m.CurrentTeamID, "the team becomes the new user's current team")
		assert.Equal(t, []pipeline.Membership{{TeamID: w.Res.Teams["globex"], TeamKey: "globex", Role: pipeline.RoleAdmin}}, m.Memberships)
	})
	each(t, "a new user needs a name", func(t *testing.T, w world) {
		_, err := w.Op.AddUser(ctx, pipeline.NewMember{Email: "rita@globex.test", TeamID: w.Res.Teams["globex"], Role: pipeline.RoleAdmin})
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Contains(t, pipeline.Fields(err), "name")
		users, err := w.Op.Users(ctx, nil)
		require.NoError(t, err)
		assert.Len(t, users, 5, "nobody was created")
	})
	each(t, "an existing user keeps their name and current team", func(t *testing.T, w world) {
		m, err := w.Op.AddUser(ctx, pipeline.NewMember{Email: "MIA@acme.test", TeamID: w.Res.Teams["globex"], Role: pipeline.RoleMember})
		require.NoError(t, err)
		assert.Equal(t, "Mia Member", m.User.Name)
		assert.Equal(t, w.Res.Teams["acme"], m.CurrentTeamID)
		assert.Len(t, m.Memberships, 2)
	})
	each(t, "an existing user under another name", func(t *testing.T, w world) {
		_, err := w.Op.AddUser(ctx, pipeline.NewMember{Email: "mia@acme.test", Name: "Mia M.", TeamID: w.Res.Teams["globex"], Role: pipeline.RoleMember})
		require.ErrorIs(t, err, pipeline.ErrNameMismatch)
		assert.NotErrorIs(t, err, pipeline.ErrLastOwner)
		assert.Equal(t, []string{"The user mia@acme.test exists and is called Mia Member; leave the name out to add them."}, pipeline.Fields(err)["name"])
	})
	each(t, "already a member", func(t *testing.T, w world) {
		_, err := w.Op.AddUser(ctx, pipeline.NewMember{Email: "mia@acme.test", TeamID: w.Res.Teams["acme"], Role: pipeline.RoleAdmin})
		require.ErrorIs(t, err, pipeline.ErrConflict)
		assert.Equal(t, "Membership of mia@acme.test in team acme already exists.", pipeline.ErrorMessage(err))
	})
	each(t, "no such team", func(t *testing.T, w world) {
		_, err := w.Op.AddUser(ctx, pipeline.NewMember{Email: "rita@globex.test", Name: "Rita", TeamID: missing, Role: pipeline.RoleAdmin})
		require.ErrorIs(t, err, pipeline.ErrNotFound)
	})
}

func TestOperator_SetRole(t *testing.T) {
	ctx := context.Background()
	each(t, "ok", func(t *testing.T, w world) {
		m, err := w.Op.SetRole(ctx, "Mia@acme.test", w.Res.Teams["acme"], pipeline.RoleAdmin)
		require.NoError(t, err)
		assert.Equal(t, pipeline.RoleAdmin, m.Role(w.Res.Teams["acme"]))
		l, err := w.Svc.ListJobs(w.As(t, "mia"), pipeline.JobFilter{Status: pipeline.JobDraft})
		require.NoError(t, err)
		assert.Equal(t, 1, l.Total, "an admin reaches every job of the team")
	})
	each(t, "the last owner", func(t *testing.T, w world) {
		_, err := w.Op.SetRole(ctx, "olivia@acme.test", w.Res.Teams["acme"], pipeline.RoleAdmin)
		require.ErrorIs(t, err, pipeline.ErrLastOwner)
		assert.Equal(t, []string{"Team acme would have no owner."}, pipeline.Fields(err)["role"])
	})
	each(t, "an owner among two", func(t *testing.T, w world) {
		_, err := w.Op.SetRole(ctx, "adam@acme.test", w.Res.Teams["acme"], pipeline.RoleOwner)
		require.NoError(t, err)
		_, err = w.Op.SetRole(ctx, "olivia@acme.test", w.Res.Teams["acme"], pipeline.RoleMember)
		require.NoError(t, err)
	})
	each(t, "no such membership", func(t *testing.T, w world) {
		_, err := w.Op.SetRole(ctx, "mia@acme.test", w.Res.Teams["globex"], pipeline.RoleAdmin)
		require.ErrorIs(t, err, pipeline.ErrNotFound)
		assert.Equal(t, "Membership of mia@acme.test in team globex not found.", pipeline.ErrorMessage(err))
	})
	each(t, "no such user", func(t *testing.T, w world) {
		_, err := w.Op.SetRole(ctx, "nobody@acme.test", w.Res.Teams["acme"], pipeline.RoleAdmin)
		require.ErrorIs(t, err, pipeline.ErrNotFound)
	})
}

func TestOperator_RemoveUser(t *testing.T) {
	ctx := context.Background()
	each(t, "ok", func(t *testing.T, w world) {
		join(t, w, "mia", "globex", pipeline.RoleMember)
		m, err := w.Op.RemoveUser(ctx, "mia@acme.test", w.Res.Teams["acme"])
		require.NoError(t, err)
		assert.Equal(t, w.Res.Teams["globex"], m.CurrentTeamID, "the current team moves to the other team")
		assert.Equal(t, []pipeline.Membership{{TeamID: w.Res.Teams["globex"], TeamKey: "globex", Role: pipeline.RoleMember}}, m.Memberships)

		// Back on acme, mia is no longer assigned to backend.
		join(t, w, "mia", "acme", pipeline.RoleMember)
		mia, err := w.Op.ActAs(ctx, w.User("mia"), []pipeline.Scope{pipeline.ScopeJobsRead})
		require.NoError(t, err)
		_, err = w.Svc.GetJob(pipeline.NewContext(ctx, mia), w.Job("backend"))
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
	})
	each(t, "another team than the current one", func(t *testing.T, w world) {
		join(t, w, "mia", "globex", pipeline.RoleMember)
		m, err := w.Op.RemoveUser(ctx, "mia@acme.test", w.Res.Teams["globex"])
		require.NoError(t, err)
		assert.Equal(t, w.Res.Teams["acme"], m.CurrentTeamID)
	})
	each(t, "the only team", func(t *testing.T, w world) {
		_, err := w.Op.RemoveUser(ctx, "mia@acme.test", w.Res.Teams["acme"])
		require.ErrorIs(t, err, pipeline.ErrOnlyTeam)
		assert.Equal(t, []string{"This is the only team of mia@acme.test: a user needs one."}, pipeline.Fields(err)["team"])
	})
	each(t, "the last owner", func(t *testing.T, w world) {
		join(t, w, "olivia", "globex", pipeline.RoleMember)
		_, err := w.Op.RemoveUser(ctx, "olivia@acme.test", w.Res.Teams["acme"])
		require.ErrorIs(t, err, pipeline.ErrLastOwner)
		var e *pipeline.Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, pipeline.EValidation, e.Code)
	})
	each(t, "no such membership", func(t *testing.T, w world) {
		_, err := w.Op.RemoveUser(ctx, "gary@globex.test", w.Res.Teams["acme"])
		require.ErrorIs(t, err, pipeline.ErrNotFound)
	})
}

// race runs fns at once and returns their errors.
func race(fns ...func() error) []error {
	errs := make([]error, len(fns))
	var start, done sync.WaitGroup
	start.Add(1)
	for i, fn := range fns {
		done.Go(func() {
			start.Wait()
			errs[i] = fn()
		})
	}
	start.Done()
	done.Wait()
	return errs
}

// TestOperator_MembershipRace: changes that each keep a rule, made at
// once, do not break it together.
func TestOperator_MembershipRace(t *testing.T) {
	ctx := context.Background()
	owners := func(t *testing.T, w world) int {
		ms, err := w.Op.Users(ctx, new(w.Res.Teams["acme"]))
		require.NoError(t, err)
		n := 0
		for _, m := range ms {
			if m.Role(w.Res.Teams["acme"]) == pipeline.RoleOwner {
				n++
			}
		}
		return n
	}
	for name, change := range map[string]func(w world, email string) error{
		"removals": func(w world, email string) error {
			_, err := w.Op.RemoveUser(ctx, email, w.Res.Teams["acme"])
			return err
		},
		"demotions": func(w world, email string) error {
			_, err := w.Op.SetRole(ctx, email, w.Res.Teams["acme"], pipeline.RoleMember)
			return err
		},
	} {
		each(t, "of the two last owners: "+name, func(t *testing.T, w world) {
			for round := range 5 {
				for _, key := range []string{"olivia", "adam"} {
					_, err := w.Op.SetRole(ctx, key+"@acme.test", w.Res.Teams["acme"], pipeline.RoleOwner)
					if errors.Is(err, pipeline.ErrNotFound) {
						join(t, w, key, "acme", pipeline.RoleOwner)
					} else {
						require.NoError(t, err)
					}
					if round == 0 {
						join(t, w, key, "globex", pipeline.RoleMember)
					}
				}
				require.Equal(t, 2, owners(t, w))
				errs := race(
					func() error { return change(w, "olivia@acme.test") },
					func() error { return change(w, "adam@acme.test") },
				)
				failed := 0
				for _, err := range errs {
					if err != nil {
						require.ErrorIs(t, err, pipeline.ErrLastOwner, fmt.Sprint(errs))
						failed++
					}
				}
				assert.Equal(t, 1, failed, "round %d", round)
				assert.Equal(t, 1, owners(t, w), "round %d", round)
			}
		})
	}
	each(t, "removals of a user from their two teams", func(t *testing.T, w world) {
		join(t, w, "mia", "globex", pipeline.RoleMember)
		errs := race(
			func() error { _, err := w.Op.RemoveUser(ctx, "mia@acme.test", w.Res.Teams["acme"]); return err },
			func() error { _, err := w.Op.RemoveUser(ctx, "mia@acme.test", w.Res.Teams["globex"]); return err },
		)
		require.Equal(t, 1, len(slicesNonNil(errs)), fmt.Sprint(errs))
		require.ErrorIs(t, slicesNonNil(errs)[0], pipeline.ErrOnlyTeam)
		ms, err := w.Op.Users(ctx, nil)
		require.NoError(t, err)
		for _, m := range ms {
			if m.User.ID == w.User("mia") {
				require.Len(t, m.Memberships, 1)
				assert.Equal(t, m.Memberships[0].TeamID, m.CurrentTeamID, "the current team is one of hers")
			}
		}
	})
}

func slicesNonNil(errs []error) []error {
	var out []error
	for _, err := range errs {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}
