package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// jobsEpoch is when the first job of the dataset was created; the others
// follow an hour apart, so that the newest-first order of jobs is defined.
var jobsEpoch = time.Date(2025, 1, 6, 9, 0, 0, 0, time.UTC)

// plan is the dataset before it exists: who is what, who owns and who is
// assigned to which job. Visibility then follows the API's rule: owners and
// admins reach every job; a member reaches the jobs it owns or is assigned
// to, so that members see different, partly overlapping sets of jobs.
type plan struct {
	users     int
	jobs      int
	admins    int // the first users are owners and admins, the rest members
	owner     []int
	assignees [][]int
}

func newPlan(users, jobs int) plan {
	p := plan{users: users, jobs: jobs, admins: max(1, users/8)}
	members := users - p.admins
	for j := range jobs {
		owner := j % p.admins
		if j%10 == 9 && members > 0 {
			owner = p.admins + (j/10)%members // a member owns a job now and then
		}
		p.owner = append(p.owner, owner)
		var as []int
		for u := p.admins; u < users; u++ {
			// Every member is assigned to the first, hot job, and to a
			// quarter of the others.
			if u != owner && (j == 0 || (j+u)%4 == 0) {
				as = append(as, u)
			}
		}
		p.assignees = append(p.assignees, as)
	}
	return p
}

func (p plan) role(u int) pipeline.Role {
	switch {
	case u >= p.admins:
		return pipeline.RoleMember
	case u%2 == 0:
		return pipeline.RoleOwner
	default:
		return pipeline.RoleAdmin
	}
}

func (p plan) reaches(u, j int) bool {
	if p.role(u) != pipeline.RoleMember || p.owner[j] == u {
		return true
	}
	for _, a := range p.assignees[j] {
		if a == u {
			return true
		}
	}
	return false
}

func userKey(u int) string { return fmt.Sprintf("u%02d", u) }
func jobKey(j int) string  { return fmt.Sprintf("job%03d", j) }

// seedWorld is the seed file of the dataset's skeleton: one team without a
// job limit, the users with their tokens, the jobs of the load and, with
// scale, the jobs of the scale part. Candidates are not in it: they are
// inserted in bulk afterwards.
func (p plan) seedWorld(scaleKeys []string) pipeline.SeedWorld {
	w := pipeline.SeedWorld{Teams: []pipeline.SeedTeam{{Key: "bench", Name: "Benchmark Hiring"}}}
	for u := range p.users {
		name := firstNames[(u*7)%len(firstNames)] + " " + lastNames[(u*11)%len(lastNames)]
		w.Users = append(w.Users, pipeline.SeedUser{
			Key: userKey(u), Name: name, Email: fmt.Sprintf("%s@bench.example", userKey(u)),
			CurrentTeam: "bench", Memberships: []pipeline.SeedMembership{{Team: "bench", Role: p.role(u)}},
		})
		w.Tokens = append(w.Tokens, pipeline.SeedToken{
			Key: userKey(u), User: userKey(u), Name: "benchmark", Scopes: pipeline.AllScopes,
		})
	}
	w.Tokens = append(w.Tokens, pipeline.SeedToken{
		Key: "reader", User: userKey(0), Name: "read-only", Scopes: []pipeline.Scope{pipeline.ScopeJobsRead},
	})
	for j := range p.jobs {
		var as []string
		for _, u := range p.assignees[j] {
			as = append(as, userKey(u))
		}
		created := jobsEpoch.Add(time.Duration(j) * time.Hour)
		w.Jobs = append(w.Jobs, pipeline.SeedJob{
			Key: jobKey(j), Team: "bench", Owner: userKey(p.owner[j]), Assignees: as,
			Title:       fmt.Sprintf("%s Engineer #%d", jobAreas[j%len(jobAreas)], j),
			Status:      pipeline.JobOpen,
			Description: "<p>Join the <b>" + jobAreas[j%len(jobAreas)] + "</b> team & ship things.</p>",
			CreatedAt:   &created,
		})
	}
	for i, k := range scaleKeys {
		created := jobsEpoch.Add(-time.Duration(i+1) * time.Hour)
		w.Jobs = append(w.Jobs, pipeline.SeedJob{
			Key: k, Team: "bench", Owner: userKey(0), Title: "Scale " + k, Status: pipeline.JobOpen, CreatedAt: &created,
		})
	}
	return w
}

var jobAreas = []string{"Backend", "Frontend", "Platform", "Data", "Security", "Mobile", "Site Reliability", "Machine Learning"}

// seed writes the seed file into dir and loads it with `pipelined seed`, as
// an operator would, and returns what it created.
func seed(ctx context.Context, bin, dsn, dir string, w pipeline.SeedWorld) (pipeline.SeedResult, error) {
	raw, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return pipeline.SeedResult{}, err
	}
	path := filepath.Join(dir, "seed.json")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		return pipeline.SeedResult{}, err
	}
	cmd := exec.CommandContext(ctx, bin, "seed", path)
	cmd.Env = serverEnv("PIPELINE_DB=" + dsn)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return pipeline.SeedResult{}, fmt.Errorf("pipelined seed: %w\n%s", err, stderr.String())
	}
	var res pipeline.SeedResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		return pipeline.SeedResult{}, fmt.Errorf("pipelined seed printed %q: %w", stdout.String(), err)
	}
	return res, nil
}

// newWorld puts the plan and the seed's output together.
func newWorld(p plan, res pipeline.SeedResult, scaleKeys []string) (*world, error) {
	w := &world{TeamID: res.Teams["bench"], Reader: res.Tokens["reader"]}
	for u := range p.users {
		bu := &benchUser{Index: u, ID: res.Users[userKey(u)], Role: p.role(u), Token: res.Tokens[userKey(u)]}
		for j := range p.jobs {
			if p.reaches(u, j) {
				bu.Jobs = append(bu.Jobs, j)
			}
		}
		if bu.ID == 0 || bu.Token == "" {
			return nil, fmt.Errorf("pipelined seed gave no id or token for user %s", userKey(u))
		}
		w.Users = append(w.Users, bu)
	}
	job := func(i int, key string) (*benchJob, error) {
		j := &benchJob{Index: i, Key: key, ID: res.Jobs[key]}
		for _, name := range pipeline.DefaultStages {
			j.Stages = append(j.Stages, res.Stages[key][name])
		}
		if j.ID == 0 || len(res.Stages[key]) != len(pipeline.DefaultStages) {
			return nil, fmt.Errorf("pipelined seed gave no id or stages for job %s", key)
		}
		return j, nil
	}
	for i := range p.jobs {
		j, err := job(i, jobKey(i))
		if err != nil {
			return nil, err
		}
		w.Jobs = append(w.Jobs, j)
	}
	for i, k := range scaleKeys {
		j, err := job(i, k)
		if err != nil {
			return nil, err
		}
		w.Scale = append(w.Scale, j)
	}
	return w, nil
}
