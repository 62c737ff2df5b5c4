-- name: CandidateLocked
SELECT c.id, c.job_id, c.stage_id, c.name, c.email, c.applied, c.status, c.resume_url, c.notes_count,
	c.erased_at, j.team_id, (SELECT s.name FROM stages AS s WHERE s.id = c.stage_id) AS stage
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE c.id = $1 AND c.job_id = $2 AND {{visible $3}};

-- name: CandidateForMoveLocked
SELECT c.id, c.job_id, c.stage_id, c.name, c.email, c.applied, c.status, c.resume_url, c.notes_count,
	c.erased_at, j.team_id, (SELECT s.name FROM stages AS s WHERE s.id = c.stage_id) AS stage, t.id AS target_id, t.name AS target_name,
	t.position AS target_position
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
LEFT JOIN stages AS t ON t.id = $4 AND t.job_id = c.job_id
WHERE c.id = $1 AND c.job_id = $2 AND {{visible $3}};

-- name: JobForIntakeLocked
SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at, s.id AS stage_id, s.name AS stage_name, s.position AS stage_position,
	CASE WHEN EXISTS (SELECT 1 FROM candidates AS c WHERE c.job_id = j.id AND c.email_fold = $4) THEN 1 ELSE 0 END AS email_taken
FROM jobs AS j
LEFT JOIN stages AS s ON s.job_id = j.id AND s.id = COALESCE(NULLIF($3, 0),
	(SELECT f.id FROM stages AS f WHERE f.job_id = j.id ORDER BY f.position LIMIT 1))
WHERE j.id = $1 AND {{visible $2}};
