package pipelinestore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestStore_ListPlans checks on PostgreSQL that every filter and order of
// the lists is served by an index: with enough rows that a scan would be
// chosen if nothing served them, no list query scans candidates or jobs
// whole, and the candidate lists find their page in index order, without
// sorting. The job list walks each of the viewer's teams in index order and
// sorts only what those walks return (the viewer's teams times the rows up
// to the page); a search sorts its matches, which its trigram index finds.
// The plans are logged (go test -v -run TestStore_ListPlans).
func TestStore_ListPlans(t *testing.T) {
	db := storetest.OpenPostgres(t)
	f := seeded(t, db)
	ctx := context.Background()
	backend, stages := f.Job("backend"), f.Res.Stages["backend"]
	require.NoError(t, pipelinestore.Exec(db, `INSERT INTO candidates
(job_id, stage_id, name, email, name_fold, email_fold, applied, status, resume_url, created_at, updated_at)
SELECT $1, (ARRAY[$2, $3, $4]::bigint[])[1 + g % 3], 'Person ' || g, 'person' || g || '@example.test',
	'person ' || g, 'person' || g || '@example.test', DATE '2026-01-01' + g % 300, 'active', '', now(), now()
FROM generate_series(1, 20000) AS g`, backend, stages["Applied"], stages["Screening"], stages["Interview"]))
	require.NoError(t, pipelinestore.Exec(db, `INSERT INTO jobs
(team_id, owner_id, title, title_fold, status, application_deadline, created_at, updated_at)
SELECT $1, $2, 'Role ' || g, 'role ' || g, 'open', DATE '2026-12-31', now(), now()
FROM generate_series(1, 5000) AS g`, f.Res.Teams["globex"], f.User("gary")))
	require.NoError(t, pipelinestore.Exec(db, `ANALYZE`))

	plans, err := pipelinestore.ListPlans(ctx, db, f.User("olivia"), backend, stages["Screening"], "person 1234")
	require.NoError(t, err)
	for name, plan := range plans {
		t.Logf("%s:\n%s", name, plan)
	}
	// The page is found in index order; only its 15 rows are sorted again
	// once read whole.
	for name, index := range map[string]string{
		"candidates": "candidates_job_applied_idx", "candidates, a middle page": "candidates_job_applied_idx",
		"candidates of a stage": "candidates_stage_applied_idx",
	} {
		assert.Regexp(t, `Index (Only )?Scan using `+index, plans[name], name)
		assert.Equal(t, 1, strings.Count(plans[name], "Sort Key"), "%s: one sort, of the page's rows", name)
	}
	assert.Contains(t, plans["jobs"], "Index Scan using jobs_team_status_created_idx", "each team in index order")
	// A large job's search finds its matches once and sorts them: walking
	// the list's order under a window count reads the whole job when the
	// term is common, however few rows the page needs.
	large := plans["candidates of a large job, searched"]
	assert.NotContains(t, large, "WindowAgg", "no window over the list's order")
	assert.Equal(t, 1, strings.Count(large, "CTE m"), "the matches are found once")
	assert.Contains(t, large, "on candidate_search ", "in the narrow copy of the searched columns")

	// At this size a scan can still be the cheapest plan (at a million
	// the trigram indexes win: see the README); that an index can serve
	// every list is shown with scans priced out.
	served, err := pipelinestore.ListPlans(ctx, db, f.User("olivia"), backend, stages["Screening"], "person 1234",
		"enable_seqscan = off")
	require.NoError(t, err)
	for name, plan := range served {
		assert.NotContains(t, plan, "Seq Scan on candidates", name)
		assert.NotContains(t, plan, "Seq Scan on jobs", name)
	}
	assert.Contains(t, served["candidates, searched"], "candidates_job_applied_idx", "a smaller job's search walks the job's index")
	assert.Regexp(t, `candidate_search_(name_trgm_idx|email_trgm_idx|pkey)`, served["candidates of a large job, searched"],
		"a large job's search is served by the copy's indexes")
}

// TestStore_ErasurePlans checks on PostgreSQL that every statement the
// retention pass and an erasure run is served by an index: with another
// team's 5,000 jobs, 20,000 candidates, 80,000 activity entries and 20,000
// messages, none scans candidates, activity, messages or webhook
// deliveries whole. The plans are logged (go test -v -run
// TestStore_ErasurePlans).
func TestStore_ErasurePlans(t *testing.T) {
	db := storetest.OpenPostgres(t)
	f := seeded(t, db)
	ctx := context.Background()
	globex, gary := f.Res.Teams["globex"], f.User("gary")
	require.NoError(t, pipelinestore.Exec(db, `INSERT INTO jobs
(team_id, owner_id, title, title_fold, status, application_deadline, created_at, updated_at)
SELECT $1, $2, 'Role ' || g, 'role ' || g, 'open', DATE '2026-12-31', now(), now()
FROM generate_series(1, 5000) AS g`, globex, gary))
	require.NoError(t, pipelinestore.Exec(db, `INSERT INTO stages (job_id, name, position)
SELECT j.id, 'Applied', 1 FROM jobs AS j WHERE NOT EXISTS (SELECT 1 FROM stages AS s WHERE s.job_id = j.id)`))
	require.NoError(t, pipelinestore.Exec(db, `INSERT INTO candidates
(job_id, stage_id, name, email, name_fold, email_fold, applied, status, resume_url, created_at, updated_at)
SELECT j.id, (SELECT min(s.id) FROM stages AS s WHERE s.job_id = j.id), 'Person ' || g, 'person' || g || '@example.test',
	'person ' || g, 'person' || g || '@example.test', DATE '2026-01-01' + g % 300,
	(ARRAY['active', 'rejected', 'withdrawn', 'hired'])[1 + g % 4], '', now(), now()
FROM jobs AS j, generate_series(1, 4) AS g WHERE j.team_id = $1`, globex))
	require.NoError(t, pipelinestore.Exec(db, `INSERT INTO activity
(team_id, job_id, user_id, ip, action, subject_type, subject_id, changes, created_at)
SELECT $1, c.job_id, $2, '', 'candidate.updated', 'candidate', c.id, '{}', now() - g * interval '1 hour'
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id, generate_series(1, 3) AS g WHERE j.team_id = $1`, globex, gary))
	require.NoError(t, pipelinestore.Exec(db, `INSERT INTO activity
(team_id, user_id, ip, action, subject_type, subject_id, changes, created_at)
SELECT $1, $2, '', 'interview.scheduled', 'interview', g, '{}', now() FROM generate_series(1, 20000) AS g`, globex, gary))
	require.NoError(t, pipelinestore.Exec(db, `INSERT INTO messages
(candidate_id, user_id, recipient, reply_to, subject, body, status, send_at, created_at)
SELECT c.id, $2, c.email, '', 'Hello', 'Body', 'sent', now(), now()
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id WHERE j.team_id = $1`, globex, gary))
	require.NoError(t, pipelinestore.Exec(db, `ANALYZE`))

	linus := f.Res.Candidates["linus"]
	plans, err := pipelinestore.ErasurePlans(ctx, db, f.Res.Teams["acme"], linus, "linus@example.test", time.Now())
	require.NoError(t, err)
	require.NotEmpty(t, plans)
	for name, plan := range plans {
		t.Logf("%s:\n%s", name, plan)
		for _, table := range []string{"candidates", "activity", "messages", "webhook_deliveries"} {
			assert.NotContains(t, plan, "Seq Scan on "+table+" ", "%s scans %s", name, table)
		}
	}
	// The pass starts from the team's jobs, not from the whole table in
	// id order, and reads the last activity about each by subject.
	assert.NotContains(t, plans["expired candidates"], "candidates_pkey", "expired candidates")
	assert.Contains(t, plans["expired candidates"], "jobs_team_status_created_idx", "expired candidates")
	assert.Contains(t, plans["expired candidates"], "activity_subject_idx", "expired candidates")
	assert.NotContains(t, plans["candidate entries"], "Index Cond: (subject_type = 'interview'::text)\n",
		"the entries about a candidate's interviews, not every interview's")

	// The small tables are scanned at this size; an index serves each
	// all the same.
	served, err := pipelinestore.ErasurePlans(ctx, db, f.Res.Teams["acme"], linus, "linus@example.test", time.Now(),
		"enable_seqscan = off")
	require.NoError(t, err)
	for name, plan := range served {
		for _, line := range strings.Split(plan, "\n") {
			if strings.Contains(line, "Seq Scan") {
				t.Logf("%s: %s", name, strings.TrimSpace(line))
			}
		}
		for _, table := range []string{"candidates", "activity", "messages", "webhook_deliveries", "notes", "ratings",
			"interviews", "invitation_mails", "idempotency_keys", "jobs"} {
			assert.NotContains(t, plan, "Seq Scan on "+table+" ", "%s scans %s", name, table)
		}
	}
}
