package storetest

import (
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// World returns the shared test fixture, a fresh value on every call (Seed
// fills in its defaults). Token creation times are relative to now, so that
// the live tokens are live and olivia_expired is seven months old.
//
// Teams: acme (job limit 20), globex (no limit). Users, emails
// <key>@<team>.test: olivia (owner of acme), adam (admin of acme), mia and
// nina (members of acme), gary (owner of globex). Jobs on acme: backend
// (owner olivia, assigned to mia, open; candidates ada, grace, linus),
// frontend (owner nina, open; ken), design (owner olivia, draft; don),
// archive (owner olivia, closed). On globex: ops (owner gary, open; ola).
// Tokens: olivia, adam, mia, nina, gary with every scope; olivia_jobs_read,
// olivia_candidates_read, olivia_messages with one scope each;
// olivia_revoked and olivia_expired with every scope.
func World(now time.Time) *pipeline.SeedWorld {
	now = now.UTC()
	limit := 20
	day := func(d int) *time.Time {
		t := time.Date(2026, 1, d, 10, 0, 0, 0, time.UTC)
		return &t
	}
	member := func(team string, role pipeline.Role) []pipeline.SeedMembership {
		return []pipeline.SeedMembership{{Team: team, Role: role}}
	}
	all := func() []pipeline.Scope { return append([]pipeline.Scope(nil), pipeline.AllScopes...) }
	created := now.Add(-time.Hour)
	expired := now.AddDate(0, -7, 0)
	token := func(key, user, name string, scopes []pipeline.Scope) pipeline.SeedToken {
		c := created
		return pipeline.SeedToken{Key: key, User: user, Name: name, Scopes: scopes, CreatedAt: &c}
	}
	revoked := token("olivia_revoked", "olivia", "olivia revoked", all())
	revoked.Revoked = true

	w := &pipeline.SeedWorld{
		Teams: []pipeline.SeedTeam{
			{Key: "acme", Name: "Acme", JobLimit: &limit},
			{Key: "globex", Name: "Globex"},
		},
		Users: []pipeline.SeedUser{
			{Key: "olivia", Name: "Olivia Owner", Email: "olivia@acme.test", CurrentTeam: "acme", Memberships: member("acme", pipeline.RoleOwner)},
			{Key: "adam", Name: "Adam Admin", Email: "adam@acme.test", CurrentTeam: "acme", Memberships: member("acme", pipeline.RoleAdmin)},
			{Key: "mia", Name: "Mia Member", Email: "mia@acme.test", CurrentTeam: "acme", Memberships: member("acme", pipeline.RoleMember)},
			{Key: "nina", Name: "Nina Member", Email: "nina@acme.test", CurrentTeam: "acme", Memberships: member("acme", pipeline.RoleMember)},
			{Key: "gary", Name: "Gary Globex", Email: "gary@globex.test", CurrentTeam: "globex", Memberships: member("globex", pipeline.RoleOwner)},
		},
		Jobs: []pipeline.SeedJob{
			{
				Key: "backend", Team: "acme", Owner: "olivia", Assignees: []string{"mia"},
				Title: "Backend Engineer", Status: pipeline.JobOpen, Description: "<p>Go and PostgreSQL.</p>",
				CreatedAt: day(2),
				Candidates: []pipeline.SeedCandidate{
					{Key: "ada", Name: "Ada Lovelace", Email: "ada@example.test", Applied: "2026-01-05", Stage: "Applied",
						ResumeURL: "https://files.example.test/ada.pdf"},
					{Key: "grace", Name: "Grace Hopper", Email: "grace@example.test", Applied: "2026-01-06", Stage: "Screening"},
					{Key: "linus", Name: "Linus Torvalds", Email: "linus@example.test", Applied: "2026-01-04", Stage: "Applied",
						Status: pipeline.CandidateRejected},
				},
			},
			{
				Key: "frontend", Team: "acme", Owner: "nina",
				Title: "Frontend Ingénieur", Status: pipeline.JobOpen, Description: "<p>TypeScript.</p>",
				CreatedAt: day(3),
				Candidates: []pipeline.SeedCandidate{
					{Key: "ken", Name: "Ken Thompson", Email: "ken@example.test", Applied: "2026-01-07"},
				},
			},
			{
				Key: "design", Team: "acme", Owner: "olivia",
				Title: "Product Designer", Status: pipeline.JobDraft,
				CreatedAt: day(4),
				Candidates: []pipeline.SeedCandidate{
					{Key: "don", Name: "Don Norman", Email: "don@example.test", Applied: "2026-01-08"},
				},
			},
			{
				Key: "archive", Team: "acme", Owner: "olivia",
				Title: "Old Role", Status: pipeline.JobClosed,
				CreatedAt: day(1),
			},
			{
				Key: "ops", Team: "globex", Owner: "gary",
				Title: "Ops Lead", Status: pipeline.JobOpen,
				CreatedAt: day(5),
				Candidates: []pipeline.SeedCandidate{
					{Key: "ola", Name: "Ola Nordmann", Email: "ola@example.test", Applied: "2026-01-09"},
				},
			},
		},
		Tokens: []pipeline.SeedToken{
			token("olivia", "olivia", "olivia all scopes", all()),
			token("adam", "adam", "adam all scopes", all()),
			token("mia", "mia", "mia all scopes", all()),
			token("nina", "nina", "nina all scopes", all()),
			token("gary", "gary", "gary all scopes", all()),
			token("olivia_jobs_read", "olivia", "olivia jobs:read", []pipeline.Scope{pipeline.ScopeJobsRead}),
			token("olivia_candidates_read", "olivia", "olivia candidates:read", []pipeline.Scope{pipeline.ScopeCandidatesRead}),
			token("olivia_messages", "olivia", "olivia messages:send", []pipeline.Scope{pipeline.ScopeMessagesSend}),
			revoked,
			{Key: "olivia_expired", User: "olivia", Name: "olivia expired", Scopes: all(), CreatedAt: &expired},
		},
	}
	return w
}
