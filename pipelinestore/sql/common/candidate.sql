-- name: Candidate
SELECT c.id, c.job_id, c.stage_id, c.name, c.email, c.applied, c.status, c.resume_url, c.notes_count,
	c.erased_at, j.team_id, (SELECT s.name FROM stages AS s WHERE s.id = c.stage_id) AS stage
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE c.id = $1 AND c.job_id = $2 AND {{visible $3}};

-- name: SetCandidateStage
UPDATE candidates SET stage_id = $1, updated_at = $2 WHERE id = $3;

-- CandidateForMove is the candidate, locked, and the stage $4 of its
-- job, in one statement.
-- name: CandidateForMove
SELECT c.id, c.job_id, c.stage_id, c.name, c.email, c.applied, c.status, c.resume_url, c.notes_count,
	c.erased_at, j.team_id, (SELECT s.name FROM stages AS s WHERE s.id = c.stage_id) AS stage, t.id AS target_id, t.name AS target_name,
	t.position AS target_position
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
LEFT JOIN stages AS t ON t.id = $4 AND t.job_id = c.job_id
WHERE c.id = $1 AND c.job_id = $2 AND {{visible $3}};

-- JobForIntake is the job, held in share mode against a change of its
-- status (which takes its row lock), the stage $3 of it (0: its first),
-- and whether a candidate of it has the folded email $4. Intakes of one
-- job share the lock and run together: each writes a record of its
-- own, so none waits on the job's advisory lock (recordLock).
-- name: JobForIntake
SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at, s.id AS stage_id, s.name AS stage_name, s.position AS stage_position,
	CASE WHEN EXISTS (SELECT 1 FROM candidates AS c WHERE c.job_id = j.id AND c.email_fold = $4) THEN 1 ELSE 0 END AS email_taken
FROM jobs AS j
LEFT JOIN stages AS s ON s.job_id = j.id AND s.id = COALESCE(NULLIF($3, 0),
	(SELECT f.id FROM stages AS f WHERE f.job_id = j.id ORDER BY f.position LIMIT 1))
WHERE j.id = $1 AND {{visible $2}};

-- name: InsertCandidate
INSERT INTO candidates (job_id, stage_id, name, email, name_fold, email_fold, applied, status,
	resume_url, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING id;

-- EmailTaken is whether a candidate of the job $1 other than $3 has
-- the folded email $2.
-- name: EmailTaken
SELECT CASE WHEN EXISTS (SELECT 1 FROM candidates AS c
	WHERE c.job_id = $1 AND c.email_fold = $2 AND c.id <> $3) THEN 1 ELSE 0 END AS taken;

-- name: UpdateCandidate
UPDATE candidates SET name = $1, name_fold = $2, email = $3, email_fold = $4, resume_url = $5,
	status = $6, updated_at = $7
WHERE id = $8;

-- JobSize is a job's number of candidates, for largeJobs alone: the
-- search that follows checks that the viewer reaches the job.
-- name: JobSize
SELECT (SELECT CAST(COALESCE(sum(st.candidate_count), 0) AS BIGINT) FROM stages AS st WHERE st.job_id = $1)
	+ (SELECT CAST(COALESCE(sum(d.delta), 0) AS BIGINT) FROM stage_count_deltas AS d WHERE d.job_id = $1) AS size;
