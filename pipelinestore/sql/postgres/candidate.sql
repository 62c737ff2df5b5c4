-- name: CandidateLocked
SELECT c.id, c.job_id, c.stage_id, c.name, c.email, c.applied, c.status, c.resume_url, c.notes_count,
	c.erased_at, j.team_id, (SELECT s.name FROM stages AS s WHERE s.id = c.stage_id) AS stage
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE c.id = $1 AND c.job_id = $2 AND {{visible $3}} AND pipeline_lock_record('candidate', $1) FOR NO KEY UPDATE OF c;

-- The Interviews forms of the candidate's locking read take, in place
-- of the candidate's record lock, that lock and then the record locks of
-- each of its interviews (pipeline_lock_candidates), before the row lock
-- that gives the transaction its id: for a write that is to cancel them
-- (see LockInterviewsWithCandidate).
-- name: CandidateLockedInterviews
SELECT c.id, c.job_id, c.stage_id, c.name, c.email, c.applied, c.status, c.resume_url, c.notes_count,
	c.erased_at, j.team_id, (SELECT s.name FROM stages AS s WHERE s.id = c.stage_id) AS stage
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE c.id = $1 AND c.job_id = $2 AND {{visible $3}} AND pipeline_lock_candidates(ARRAY[CAST($1 AS bigint)]) FOR NO KEY UPDATE OF c;

-- name: ClaimCandidateInterviews
SELECT k.locked AS claim_locked, k.user_id AS claim_user_id, k.request AS claim_request,
	k.result AS claim_result, k.created_at AS claim_created_at, r.*
FROM pipeline_claim_key($4, $5, $6, $7) AS k
LEFT JOIN LATERAL (SELECT c.id, c.job_id, c.stage_id, c.name, c.email, c.applied, c.status, c.resume_url, c.notes_count,
	c.erased_at, j.team_id, (SELECT s.name FROM stages AS s WHERE s.id = c.stage_id) AS stage
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE c.id = $1 AND c.job_id = $2 AND {{visible $3}} AND k.locked IS NOT NULL AND pipeline_lock_candidates(ARRAY[CAST($1 AS bigint)]) FOR NO KEY UPDATE OF c) AS r ON true;

-- name: CandidateForMoveLocked
SELECT c.id, c.job_id, c.stage_id, c.name, c.email, c.applied, c.status, c.resume_url, c.notes_count,
	c.erased_at, j.team_id, (SELECT s.name FROM stages AS s WHERE s.id = c.stage_id) AS stage, t.id AS target_id, t.name AS target_name,
	t.position AS target_position
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
LEFT JOIN stages AS t ON t.id = $4 AND t.job_id = c.job_id
WHERE c.id = $1 AND c.job_id = $2 AND {{visible $3}} AND pipeline_lock_record('candidate', $1) FOR NO KEY UPDATE OF c;

-- name: ClaimCandidate
SELECT k.locked AS claim_locked, k.user_id AS claim_user_id, k.request AS claim_request,
	k.result AS claim_result, k.created_at AS claim_created_at, r.*
FROM pipeline_claim_key($4, $5, $6, $7) AS k
LEFT JOIN LATERAL (SELECT c.id, c.job_id, c.stage_id, c.name, c.email, c.applied, c.status, c.resume_url, c.notes_count,
	c.erased_at, j.team_id, (SELECT s.name FROM stages AS s WHERE s.id = c.stage_id) AS stage
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE c.id = $1 AND c.job_id = $2 AND {{visible $3}} AND k.locked IS NOT NULL AND pipeline_lock_record('candidate', $1) FOR NO KEY UPDATE OF c) AS r ON true;

-- name: ClaimCandidateForMove
SELECT k.locked AS claim_locked, k.user_id AS claim_user_id, k.request AS claim_request,
	k.result AS claim_result, k.created_at AS claim_created_at, r.*
FROM pipeline_claim_key($5, $6, $7, $8) AS k
LEFT JOIN LATERAL (SELECT c.id, c.job_id, c.stage_id, c.name, c.email, c.applied, c.status, c.resume_url, c.notes_count,
	c.erased_at, j.team_id, (SELECT s.name FROM stages AS s WHERE s.id = c.stage_id) AS stage, t.id AS target_id, t.name AS target_name,
	t.position AS target_position
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
LEFT JOIN stages AS t ON t.id = $4 AND t.job_id = c.job_id
WHERE c.id = $1 AND c.job_id = $2 AND {{visible $3}} AND k.locked IS NOT NULL AND pipeline_lock_record('candidate', $1) FOR NO KEY UPDATE OF c) AS r ON true;

-- ClaimJobForIntake is JobForIntake that claims a key first, as
-- ClaimCandidate.
-- name: ClaimJobForIntake
SELECT k.locked AS claim_locked, k.user_id AS claim_user_id, k.request AS claim_request,
	k.result AS claim_result, k.created_at AS claim_created_at, r.*
FROM pipeline_claim_key($5, $6, $7, $8) AS k
LEFT JOIN LATERAL (SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at, s.id AS stage_id, s.name AS stage_name, s.position AS stage_position,
	CASE WHEN EXISTS (SELECT 1 FROM candidates AS c WHERE c.job_id = j.id AND c.email_fold = $4) THEN 1 ELSE 0 END AS email_taken
FROM jobs AS j
LEFT JOIN stages AS s ON s.job_id = j.id AND s.id = COALESCE(NULLIF($3, 0),
	(SELECT f.id FROM stages AS f WHERE f.job_id = j.id ORDER BY f.position LIMIT 1))
WHERE j.id = $1 AND {{visible $2}} AND k.locked IS NOT NULL FOR SHARE OF j) AS r ON true;

-- name: JobForIntakeLocked
SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at, s.id AS stage_id, s.name AS stage_name, s.position AS stage_position,
	CASE WHEN EXISTS (SELECT 1 FROM candidates AS c WHERE c.job_id = j.id AND c.email_fold = $4) THEN 1 ELSE 0 END AS email_taken
FROM jobs AS j
LEFT JOIN stages AS s ON s.job_id = j.id AND s.id = COALESCE(NULLIF($3, 0),
	(SELECT f.id FROM stages AS f WHERE f.job_id = j.id ORDER BY f.position LIMIT 1))
WHERE j.id = $1 AND {{visible $2}} FOR SHARE OF j;

-- InsertCandidateWithID is InsertCandidate of the candidate whose
-- id $11 was drawn (PostgreSQL).
-- name: InsertCandidateWithID
INSERT INTO candidates (job_id, stage_id, name, email, name_fold, email_fold, applied, status,
	resume_url, created_at, updated_at, id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11);

-- The Drawing forms of the locking reads also draw the id of a record
-- the transaction is to insert (see DrawID), from the sequence of the
-- table named by their last parameter. The candidate's also read its
-- job's title, with which an interview's insert returns nothing and
-- waits in the batch (InsertInterviewDrawn).
-- name: CandidateLockedDrawing
SELECT nextval(pg_get_serial_sequence($4, 'id')) AS drawn_id, c.id, c.job_id, c.stage_id, c.name, c.email, c.applied, c.status, c.resume_url, c.notes_count,
	c.erased_at, j.team_id, j.title AS job_title, (SELECT s.name FROM stages AS s WHERE s.id = c.stage_id) AS stage
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE c.id = $1 AND c.job_id = $2 AND {{visible $3}} AND pipeline_lock_record('candidate', $1) FOR NO KEY UPDATE OF c;

-- name: ClaimCandidateDrawing
SELECT nextval(pg_get_serial_sequence($8, 'id')) AS drawn_id, k.locked AS claim_locked, k.user_id AS claim_user_id, k.request AS claim_request,
	k.result AS claim_result, k.created_at AS claim_created_at, r.*
FROM pipeline_claim_key($4, $5, $6, $7) AS k
LEFT JOIN LATERAL (SELECT c.id, c.job_id, c.stage_id, c.name, c.email, c.applied, c.status, c.resume_url, c.notes_count,
	c.erased_at, j.team_id, j.title AS job_title, (SELECT s.name FROM stages AS s WHERE s.id = c.stage_id) AS stage
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE c.id = $1 AND c.job_id = $2 AND {{visible $3}} AND k.locked IS NOT NULL AND pipeline_lock_record('candidate', $1) FOR NO KEY UPDATE OF c) AS r ON true;

-- name: JobForIntakeLockedDrawing
SELECT nextval(pg_get_serial_sequence($5, 'id')) AS drawn_id, j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at, s.id AS stage_id, s.name AS stage_name, s.position AS stage_position,
	CASE WHEN EXISTS (SELECT 1 FROM candidates AS c WHERE c.job_id = j.id AND c.email_fold = $4) THEN 1 ELSE 0 END AS email_taken
FROM jobs AS j
LEFT JOIN stages AS s ON s.job_id = j.id AND s.id = COALESCE(NULLIF($3, 0),
	(SELECT f.id FROM stages AS f WHERE f.job_id = j.id ORDER BY f.position LIMIT 1))
WHERE j.id = $1 AND {{visible $2}} FOR SHARE OF j;

-- name: ClaimJobForIntakeDrawing
SELECT nextval(pg_get_serial_sequence($9, 'id')) AS drawn_id, k.locked AS claim_locked, k.user_id AS claim_user_id, k.request AS claim_request,
	k.result AS claim_result, k.created_at AS claim_created_at, r.*
FROM pipeline_claim_key($5, $6, $7, $8) AS k
LEFT JOIN LATERAL (SELECT j.id, j.team_id, j.owner_id, j.title, j.status, j.description, j.work_mode, j.employment_type,
	j.application_deadline, j.created_at, j.updated_at, s.id AS stage_id, s.name AS stage_name, s.position AS stage_position,
	CASE WHEN EXISTS (SELECT 1 FROM candidates AS c WHERE c.job_id = j.id AND c.email_fold = $4) THEN 1 ELSE 0 END AS email_taken
FROM jobs AS j
LEFT JOIN stages AS s ON s.job_id = j.id AND s.id = COALESCE(NULLIF($3, 0),
	(SELECT f.id FROM stages AS f WHERE f.job_id = j.id ORDER BY f.position LIMIT 1))
WHERE j.id = $1 AND {{visible $2}} AND k.locked IS NOT NULL FOR SHARE OF j) AS r ON true;
