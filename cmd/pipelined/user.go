package main

import (
	"context"
	"encoding/json"
	"flag"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// userJSON is a user as the user commands print them.
type userJSON struct {
	ID            int64            `json:"id"`
	Name          string           `json:"name"`
	Email         string           `json:"email"`
	CurrentTeamID int64            `json:"current_team_id"`
	Teams         []membershipJSON `json:"teams"`
}

type membershipJSON struct {
	ID   int64         `json:"id"`
	Key  string        `json:"key"`
	Role pipeline.Role `json:"role"`
}

func toUserJSON(m pipeline.Member) userJSON {
	u := userJSON{ID: m.User.ID, Name: m.User.Name, Email: m.User.Email, CurrentTeamID: m.CurrentTeamID, Teams: []membershipJSON{}}
	for _, t := range m.Memberships {
		u.Teams = append(u.Teams, membershipJSON{ID: t.TeamID, Key: t.TeamKey, Role: t.Role})
	}
	return u
}

func runUserList(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e)
	withDB(&e, fs)
	team := fs.String("team", "", "only the members of this team (id or key)")
	if err := parseFlagsOnly(e, fs, args); err != nil {
		return err
	}
	return withOperator(ctx, e.cfg, reads, func(op *pipeline.Operator) error {
		var teamID *int64
		if *team != "" {
			t, err := op.TeamByRef(ctx, *team)
			if err != nil {
				return err
			}
			teamID = &t.ID
		}
		users, err := op.Users(ctx, teamID)
		if err != nil {
			return err
		}
		return printJSONLines(e.stdout, users, toUserJSON)
	})
}

// memberFlags are the flags that name a user and a team.
type memberFlags struct{ email, team, role *string }

func addMemberFlags(fs *flag.FlagSet, role bool) memberFlags {
	f := memberFlags{
		email: fs.String("email", "", "the user's email"),
		team:  fs.String("team", "", "the team (id or key)"),
	}
	if role {
		f.role = fs.String("role", "", "owner, admin or member")
	}
	return f
}

// runMember parses a user command's flags, checks that the user, the team
// and (when asked for) the role are given, and runs act with the team
// resolved; it prints the user act returns. It takes the env its caller's
// flags were bound to (-db sets e.cfg.DB), not a copy made before parsing.
func runMember(ctx context.Context, e *env, fs *flag.FlagSet, mf memberFlags, args []string,
	act func(op *pipeline.Operator, team pipeline.Team) (pipeline.Member, error)) error {
	required := []string{"email", "team"}
	if mf.role != nil {
		required = append(required, "role")
	}
	if err := parseFlagsOnly(*e, fs, args, required...); err != nil {
		return err
	}
	return withOperator(ctx, e.cfg, writes, func(op *pipeline.Operator) error {
		team, err := op.TeamByRef(ctx, *mf.team)
		if err != nil {
			return err
		}
		m, err := act(op, team)
		if err != nil {
			return lineValues(*e, err)
		}
		return json.NewEncoder(e.stdout).Encode(toUserJSON(m))
	})
}

func runUserAdd(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e)
	withDB(&e, fs)
	mf := addMemberFlags(fs, true)
	name := fs.String("name", "", "the user's name, for a new user")
	return runMember(ctx, &e, fs, mf, args, func(op *pipeline.Operator, team pipeline.Team) (pipeline.Member, error) {
		return op.AddUser(ctx, pipeline.NewMember{Email: *mf.email, Name: *name, TeamID: team.ID, Role: pipeline.Role(*mf.role)})
	})
}

func runUserSetRole(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e)
	withDB(&e, fs)
	mf := addMemberFlags(fs, true)
	return runMember(ctx, &e, fs, mf, args, func(op *pipeline.Operator, team pipeline.Team) (pipeline.Member, error) {
		return op.SetRole(ctx, *mf.email, team.ID, pipeline.Role(*mf.role))
	})
}

func runUserRemove(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e)
	withDB(&e, fs)
	mf := addMemberFlags(fs, false)
	return runMember(ctx, &e, fs, mf, args, func(op *pipeline.Operator, team pipeline.Team) (pipeline.Member, error) {
		return op.RemoveUser(ctx, *mf.email, team.ID)
	})
}
