-- name: JobLocked
SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at FROM jobs AS j WHERE j.id = $1 AND {{visible $2}};

-- name: LockTeamLocked
SELECT id, name, job_limit FROM teams WHERE id = $1;

-- The job list: the jobs of viewer $1 with status $2 (and title pattern
-- $3 in the Search forms). SQLite has no LATERAL: the jobs of the
-- viewer's teams are filtered. JobsCount is the total alone, for a page
-- past the last.
-- name: JobsPage
SELECT j.*, (SELECT count(*) FROM (SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at FROM jobs AS j
	WHERE j.team_id IN (SELECT m.team_id FROM memberships AS m WHERE m.user_id = $1)
	AND j.status = $2 AND {{visible $1}}) AS j) AS total
FROM (SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at FROM jobs AS j
	WHERE j.team_id IN (SELECT m.team_id FROM memberships AS m WHERE m.user_id = $1)
	AND j.status = $2 AND {{visible $1}}) AS j
ORDER BY j.created_at DESC, j.id DESC LIMIT 15 OFFSET $3;

-- name: JobsPageSearch
SELECT j.*, (SELECT count(*) FROM (SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at FROM jobs AS j
	WHERE j.team_id IN (SELECT m.team_id FROM memberships AS m WHERE m.user_id = $1)
	AND j.status = $2 AND {{visible $1}} AND (j.title_fold LIKE $3 ESCAPE '\')) AS j) AS total
FROM (SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at FROM jobs AS j
	WHERE j.team_id IN (SELECT m.team_id FROM memberships AS m WHERE m.user_id = $1)
	AND j.status = $2 AND {{visible $1}} AND (j.title_fold LIKE $3 ESCAPE '\')) AS j
ORDER BY j.created_at DESC, j.id DESC LIMIT 15 OFFSET $4;

-- name: JobsCount
SELECT count(*) FROM (SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at FROM jobs AS j
	WHERE j.team_id IN (SELECT m.team_id FROM memberships AS m WHERE m.user_id = $1)
	AND j.status = $2 AND {{visible $1}}) AS j;

-- name: JobsCountSearch
SELECT count(*) FROM (SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at FROM jobs AS j
	WHERE j.team_id IN (SELECT m.team_id FROM memberships AS m WHERE m.user_id = $1)
	AND j.status = $2 AND {{visible $1}} AND (j.title_fold LIKE $3 ESCAPE '\')) AS j;
