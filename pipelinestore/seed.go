package pipelinestore

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// Seed stores a validated world in one transaction: all of it or nothing.
// It returns the ids it created by key, stages by job key and stage name;
// token values are the Service's to fill in.
func (db *DB) Seed(ctx context.Context, w *pipeline.SeedWorld) (pipeline.SeedResult, error) {
	var res pipeline.SeedResult
	err := db.w.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		res, err = seed(ctx, tx, w)
		return err
	})
	if err != nil {
		return pipeline.SeedResult{}, formatError(err, "Record")
	}
	return res, nil
}

func seed(ctx context.Context, idb bun.IDB, w *pipeline.SeedWorld) (pipeline.SeedResult, error) {
	res := pipeline.SeedResult{
		Teams:      map[string]int64{},
		Users:      map[string]int64{},
		Jobs:       map[string]int64{},
		Stages:     map[string]map[string]int64{},
		Candidates: map[string]int64{},
		Tokens:     map[string]string{},
	}
	insert := func(model any) error {
		_, err := idb.NewInsert().Model(model).Returning("id").Exec(ctx)
		return err
	}
	// lookup resolves a key the validation already checked; a miss is a bug
	// of the caller, reported rather than stored as id 0.
	lookup := func(m map[string]int64, kind, key string) (int64, error) {
		id, ok := m[key]
		if !ok {
			return 0, fmt.Errorf("pipelinestore: seed: unknown %s %q", kind, key)
		}
		return id, nil
	}

	for _, t := range w.Teams {
		r := teamRow{Name: t.Name, JobLimit: t.JobLimit}
		if err := insert(&r); err != nil {
			return res, err
		}
		res.Teams[t.Key] = r.ID
	}

	current := map[string]int64{} // user key → current team id
	var members []membershipRow
	for _, u := range w.Users {
		team, err := lookup(res.Teams, "team", u.CurrentTeam)
		if err != nil {
			return res, err
		}
		r := userRow{Name: u.Name, Email: u.Email, CurrentTeamID: team}
		if err := insert(&r); err != nil {
			return res, err
		}
		res.Users[u.Key], current[u.Key] = r.ID, team
		for _, m := range u.Memberships {
			team, err := lookup(res.Teams, "team", m.Team)
			if err != nil {
				return res, err
			}
			members = append(members, membershipRow{UserID: r.ID, TeamID: team, Role: string(m.Role)})
		}
	}
	if len(members) > 0 {
		if _, err := idb.NewInsert().Model(&members).Exec(ctx); err != nil {
			return res, err
		}
	}

	for _, j := range w.Jobs {
		team, err := lookup(res.Teams, "team", j.Team)
		if err != nil {
			return res, err
		}
		owner, err := lookup(res.Users, "user", j.Owner)
		if err != nil {
			return res, err
		}
		created := *j.CreatedAt // Seed's defaults are applied
		r := newJobRow(pipeline.Job{
			TeamID: team, OwnerID: owner, Title: j.Title, Status: j.Status, Description: j.Description,
			WorkMode: j.WorkMode, EmploymentType: j.EmploymentType, ApplicationDeadline: j.ApplicationDeadline,
			CreatedAt: created, UpdatedAt: created,
		})
		if err := insert(&r); err != nil {
			return res, err
		}
		res.Jobs[j.Key] = r.ID

		if len(j.Assignees) > 0 {
			as := make([]jobAssigneeRow, len(j.Assignees))
			for i, a := range j.Assignees {
				if as[i].UserID, err = lookup(res.Users, "user", a); err != nil {
					return res, err
				}
				as[i].JobID = r.ID
			}
			if _, err := idb.NewInsert().Model(&as).Exec(ctx); err != nil {
				return res, err
			}
		}

		stages := map[string]int64{}
		for i, name := range j.Stages {
			s := stageRow{JobID: r.ID, Name: name, Position: i + 1}
			if err := insert(&s); err != nil {
				return res, err
			}
			stages[name] = s.ID
		}
		res.Stages[j.Key] = stages

		for _, c := range j.Candidates {
			applied, err := time.Parse(time.DateOnly, c.Applied)
			if err != nil {
				return res, fmt.Errorf("pipelinestore: seed: candidate %q: %w", c.Key, err)
			}
			stage, err := lookup(stages, "stage", c.Stage)
			if err != nil {
				return res, err
			}
			cr := candidateRow{
				JobID: r.ID, StageID: stage, Name: c.Name, Email: c.Email,
				NameFold: pipeline.Fold(c.Name), EmailFold: pipeline.Fold(c.Email),
				Applied: date(applied), Status: c.Status, ResumeURL: c.ResumeURL,
				CreatedAt: ts(w.LoadedAt), UpdatedAt: ts(w.LoadedAt),
			}
			if err := insert(&cr); err != nil {
				return res, err
			}
			res.Candidates[c.Key] = cr.ID
		}
	}

	for _, t := range w.Tokens {
		user, err := lookup(res.Users, "user", t.User)
		if err != nil {
			return res, err
		}
		created := *t.CreatedAt
		r := newTokenRow(pipeline.Token{
			UserID: user, TeamID: current[t.User], Name: t.Name, Scopes: t.Scopes, Hash: t.Hash,
			CreatedAt: created, ExpiresAt: t.ExpiresAt, RevokedAt: t.RevokedAt,
		})
		if err := insert(&r); err != nil {
			return res, err
		}
	}
	return res, nil
}
