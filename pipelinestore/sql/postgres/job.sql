-- name: JobLocked
SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at FROM jobs AS j WHERE j.id = $1 AND {{visible $2}} AND pipeline_lock_record('job', $1) FOR NO KEY UPDATE OF j;

-- name: LockTeamLocked
SELECT id, name, job_limit FROM teams WHERE id = $1 FOR NO KEY UPDATE;

-- The job list: the jobs of viewer $1 with status $2 (and title pattern
-- $3 in the Search forms), read team by team: each of the viewer's teams
-- walks jobs(team_id, status, created_at, id) in the list's order,
-- through the visibility rule, and stops after the rows up to the page's
-- end (the last parameter), so that a page costs the viewer's teams times
-- the rows up to it, never a scan of every job. The total counts the
-- viewer's visible jobs once per statement; JobsCount is the total alone,
-- for a page past the last.
-- name: JobsPage
SELECT j.*, (SELECT count(*) FROM (SELECT m.team_id FROM memberships AS m WHERE m.user_id = $1) AS t
	CROSS JOIN LATERAL (SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at FROM jobs AS j
		WHERE j.team_id = t.team_id AND j.status = $2 AND {{visible $1}}) AS j) AS total
FROM (SELECT m.team_id FROM memberships AS m WHERE m.user_id = $1) AS t
	CROSS JOIN LATERAL (SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at FROM jobs AS j
		WHERE j.team_id = t.team_id AND j.status = $2 AND {{visible $1}}
		ORDER BY j.created_at DESC, j.id DESC LIMIT $4) AS j
ORDER BY j.created_at DESC, j.id DESC LIMIT 15 OFFSET $3;

-- name: JobsPageSearch
SELECT j.*, (SELECT count(*) FROM (SELECT m.team_id FROM memberships AS m WHERE m.user_id = $1) AS t
	CROSS JOIN LATERAL (SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at FROM jobs AS j
		WHERE j.team_id = t.team_id AND j.status = $2 AND {{visible $1}} AND (j.title_fold LIKE $3 ESCAPE '\')) AS j) AS total
FROM (SELECT m.team_id FROM memberships AS m WHERE m.user_id = $1) AS t
	CROSS JOIN LATERAL (SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at FROM jobs AS j
		WHERE j.team_id = t.team_id AND j.status = $2 AND {{visible $1}} AND (j.title_fold LIKE $3 ESCAPE '\')
		ORDER BY j.created_at DESC, j.id DESC LIMIT $5) AS j
ORDER BY j.created_at DESC, j.id DESC LIMIT 15 OFFSET $4;

-- name: JobsCount
SELECT count(*) FROM (SELECT m.team_id FROM memberships AS m WHERE m.user_id = $1) AS t
	CROSS JOIN LATERAL (SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at FROM jobs AS j
		WHERE j.team_id = t.team_id AND j.status = $2 AND {{visible $1}}) AS j;

-- name: JobsCountSearch
SELECT count(*) FROM (SELECT m.team_id FROM memberships AS m WHERE m.user_id = $1) AS t
	CROSS JOIN LATERAL (SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at FROM jobs AS j
		WHERE j.team_id = t.team_id AND j.status = $2 AND {{visible $1}} AND (j.title_fold LIKE $3 ESCAPE '\')) AS j;
