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
	return &pipeline.SeedWorld{
		Teams:  worldTeams(),
		Users:  worldUsers(),
		Jobs:   worldJobs(),
		Tokens: worldTokens(now.UTC()),
	}
}

func worldTeams() []pipeline.SeedTeam {
	limit := 20
	return []pipeline.SeedTeam{
		{Key: "acme", Name: "Acme", JobLimit: &limit},
		{Key: "globex", Name: "Globex"},
	}
}

func worldUsers() []pipeline.SeedUser {
	user := func(key, name, team string, role pipeline.Role) pipeline.SeedUser {
		return pipeline.SeedUser{
			Key: key, Name: name, Email: key + "@" + team + ".test", CurrentTeam: team,
			Memberships: []pipeline.SeedMembership{{Team: team, Role: role}},
		}
	}
	return []pipeline.SeedUser{
		user("olivia", "Olivia Owner", "acme", pipeline.RoleOwner),
		user("adam", "Adam Admin", "acme", pipeline.RoleAdmin),
		user("mia", "Mia Member", "acme", pipeline.RoleMember),
		user("nina", "Nina Member", "acme", pipeline.RoleMember),
		user("gary", "Gary Globex", "globex", pipeline.RoleOwner),
	}
}

// day is 10:00 UTC on a day of January 2026.
func day(d int) *time.Time {
	t := time.Date(2026, 1, d, 10, 0, 0, 0, time.UTC)
	return &t
}

func worldJobs() []pipeline.SeedJob {
	return []pipeline.SeedJob{
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
	}
}

// worldTokens are created an hour before now, but olivia_expired seven
// months before.
func worldTokens(now time.Time) []pipeline.SeedToken {
	all := func() []pipeline.Scope { return append([]pipeline.Scope(nil), pipeline.AllScopes...) }
	token := func(key, user, name string, scopes []pipeline.Scope) pipeline.SeedToken {
		created := now.Add(-time.Hour)
		return pipeline.SeedToken{Key: key, User: user, Name: name, Scopes: scopes, CreatedAt: &created}
	}
	revoked := token("olivia_revoked", "olivia", "olivia revoked", all())
	revoked.Revoked = true
	expired := now.AddDate(0, -7, 0)
	return []pipeline.SeedToken{
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
	}
}
