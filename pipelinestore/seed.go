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
// token values are the Operator's to fill in.
func (db *DB) Seed(ctx context.Context, w *pipeline.SeedWorld) (pipeline.SeedResult, error) {
	var res pipeline.SeedResult
	err := db.operatorTx(ctx, func(ctx context.Context, run runner) error {
		s := seeder{idb: *run.tx, w: w, res: pipeline.SeedResult{
			Teams:      map[string]int64{},
			Users:      map[string]int64{},
			Jobs:       map[string]int64{},
			Stages:     map[string]map[string]int64{},
			Candidates: map[string]int64{},
			Tokens:     map[string]string{},
		}, current: map[string]int64{}}
		if err := s.run(ctx); err != nil {
			return err
		}
		res = s.res
		return nil
	})
	if err != nil {
		return pipeline.SeedResult{}, formatError(err, "Record")
	}
	return res, nil
}

// seeder stores a world entity by entity, resolving keys to the ids it
// created.
type seeder struct {
	idb     bun.IDB
	w       *pipeline.SeedWorld
	res     pipeline.SeedResult
	current map[string]int64 // user key → current team id
}

func (s *seeder) run(ctx context.Context) error {
	for i, t := range s.w.Teams {
		if err := s.team(ctx, i, t); err != nil {
			return err
		}
	}
	if err := s.users(ctx); err != nil {
		return err
	}
	for _, j := range s.w.Jobs {
		if err := s.job(ctx, j); err != nil {
			return err
		}
	}
	for _, t := range s.w.Tokens {
		if err := s.token(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// insert stores a row and reads back its id. A unique violation is a
// conflict naming the record as what says.
func (s *seeder) insert(ctx context.Context, model any, what func() string) error {
	_, err := s.idb.NewInsert().Model(model).Returning("id").Exec(ctx)
	if err != nil && uniqueViolation(err) {
		return formatError(err, what())
	}
	return err
}

func noName() string { return "Record" }

// lookup resolves a key the validation already checked; a miss is a bug of
// the caller, reported rather than stored as id 0.
func lookup(m map[string]int64, kind, key string) (int64, error) {
	id, ok := m[key]
	if !ok {
		return 0, fmt.Errorf("pipelinestore: seed: unknown %s %q", kind, key)
	}
	return id, nil
}

func (s *seeder) team(ctx context.Context, i int, t pipeline.SeedTeam) error {
	r := teamRow{Key: t.Key, Name: t.Name, JobLimit: t.JobLimit}
	if err := s.insert(ctx, &r, func() string { return fmt.Sprintf("Team %s (teams[%d].key)", t.Key, i) }); err != nil {
		return err
	}
	s.res.Teams[t.Key] = r.ID
	return nil
}

// users stores the users, then their memberships in one statement.
func (s *seeder) users(ctx context.Context) error {
	var members []membershipRow
	for i, u := range s.w.Users {
		team, err := lookup(s.res.Teams, "team", u.CurrentTeam)
		if err != nil {
			return err
		}
		r := userRow{Name: u.Name, Email: u.Email, EmailFold: pipeline.Fold(u.Email), CurrentTeamID: team}
		what := func() string { return fmt.Sprintf("User %s (users[%d].email)", u.Email, i) }
		if err := s.insert(ctx, &r, what); err != nil {
			return err
		}
		s.res.Users[u.Key], s.current[u.Key] = r.ID, team
		for _, m := range u.Memberships {
			team, err := lookup(s.res.Teams, "team", m.Team)
			if err != nil {
				return err
			}
			members = append(members, membershipRow{UserID: r.ID, TeamID: team, Role: string(m.Role)})
		}
	}
	if len(members) == 0 {
		return nil
	}
	_, err := s.idb.NewInsert().Model(&members).Exec(ctx)
	return err
}

// job stores a job with its assignees, stages and candidates.
func (s *seeder) job(ctx context.Context, j pipeline.SeedJob) error {
	team, err := lookup(s.res.Teams, "team", j.Team)
	if err != nil {
		return err
	}
	owner, err := lookup(s.res.Users, "user", j.Owner)
	if err != nil {
		return err
	}
	created := *j.CreatedAt // Seed's defaults are applied
	r := newJobRow(pipeline.Job{
		TeamID: team, OwnerID: owner, Title: j.Title, Status: j.Status, Description: j.Description,
		WorkMode: j.WorkMode, EmploymentType: j.EmploymentType, ApplicationDeadline: j.ApplicationDeadline,
		CreatedAt: created, UpdatedAt: created,
	})
	if err := s.insert(ctx, &r, noName); err != nil {
		return err
	}
	s.res.Jobs[j.Key] = r.ID
	if err := s.assignees(ctx, r.ID, j.Assignees); err != nil {
		return err
	}
	stages := map[string]int64{}
	for i, name := range j.Stages {
		st := stageRow{JobID: r.ID, Name: name, Position: i + 1}
		if err := s.insert(ctx, &st, noName); err != nil {
			return err
		}
		stages[name] = st.ID
	}
	s.res.Stages[j.Key] = stages
	return s.candidates(ctx, r.ID, stages, j.Candidates)
}

func (s *seeder) assignees(ctx context.Context, jobID int64, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	rows := make([]jobAssigneeRow, len(keys))
	for i, a := range keys {
		id, err := lookup(s.res.Users, "user", a)
		if err != nil {
			return err
		}
		rows[i] = jobAssigneeRow{JobID: jobID, UserID: id}
	}
	_, err := s.idb.NewInsert().Model(&rows).Exec(ctx)
	return err
}

// candidates stores a job's candidates, one statement each so that every
// key gets its own id back.
func (s *seeder) candidates(ctx context.Context, jobID int64, stages map[string]int64, cs []pipeline.SeedCandidate) error {
	at := ts(s.w.LoadedAt)
	for _, c := range cs {
		applied, err := time.Parse(time.DateOnly, c.Applied)
		if err != nil {
			return fmt.Errorf("pipelinestore: seed: candidate %q: %w", c.Key, err)
		}
		stage, err := lookup(stages, "stage", c.Stage)
		if err != nil {
			return err
		}
		r := candidateRow{
			JobID: jobID, StageID: stage, Name: c.Name, Email: c.Email,
			NameFold: pipeline.Fold(c.Name), EmailFold: pipeline.Fold(c.Email),
			Applied: date(applied), Status: c.Status, ResumeURL: c.ResumeURL,
			CreatedAt: at, UpdatedAt: at,
		}
		if err := s.insert(ctx, &r, noName); err != nil {
			return err
		}
		s.res.Candidates[c.Key] = r.ID
	}
	return nil
}

func (s *seeder) token(ctx context.Context, t pipeline.SeedToken) error {
	user, err := lookup(s.res.Users, "user", t.User)
	if err != nil {
		return err
	}
	r := newTokenRow(pipeline.Token{
		UserID: user, TeamID: s.current[t.User], Name: t.Name, Scopes: t.Scopes, Approval: t.Approval, Hash: t.Hash,
		CreatedAt: *t.CreatedAt, ExpiresAt: t.ExpiresAt, RevokedAt: t.RevokedAt,
	})
	return s.insert(ctx, &r, noName)
}
