-- name: Job
SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at FROM jobs AS j WHERE j.id = $1 AND {{visible $2}};

-- name: Stages
SELECT s.id, s.name, s.position FROM jobs AS j
LEFT JOIN stages AS s ON s.job_id = j.id
WHERE j.id = $1 AND {{visible $2}}
ORDER BY s.position;

-- name: LockTeam
SELECT id, name, job_limit FROM teams WHERE id = $1;

-- name: CountActiveJobs
SELECT count(*) FROM jobs WHERE team_id = $1 AND status IN ($2, $3);

-- closed_at is when the job last changed to closed: kept while it
-- stays closed, set when it becomes closed, cleared when it reopens.
-- name: UpdateJob
UPDATE jobs SET title = $1, title_fold = $2, description = $3, status = $4, updated_at = $5,
	closed_at = CASE WHEN $4 <> 'closed' THEN NULL WHEN status = 'closed' THEN closed_at ELSE $5 END
WHERE id = $6;
