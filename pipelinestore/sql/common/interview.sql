-- Interview is an interview $1 of the candidate $2 of the job $3 that
-- the viewer $4 reaches.
-- name: Interview
SELECT i.id, i.job_id, i.candidate_id, j.team_id, i.starts_at, i.ends_at, i.timezone, i.location,
	i.video_url, i.status, i.sequence, i.uid, i.organizer_name, i.organizer_email, i.created_by, cb.name AS created_by_name, cb.email AS created_by_email,
	i.created_at, i.updated_at, c.name AS candidate_name, c.email AS candidate_email, c.status AS candidate_status,
	CASE WHEN c.erased_at IS NULL THEN 0 ELSE 1 END AS candidate_erased, j.title AS job_title FROM interviews AS i
JOIN candidates AS c ON c.id = i.candidate_id
JOIN jobs AS j ON j.id = i.job_id
JOIN users AS cb ON cb.id = i.created_by
WHERE i.id = $1 AND i.candidate_id = $2 AND i.job_id = $3 AND {{visible $4}};

-- Interviews is a page of the interviews of the candidate $1 of the
-- job $2 that the viewer $3 reaches, from the offset $4, with their
-- count.
-- name: Interviews
SELECT i.id, i.job_id, i.candidate_id, j.team_id, i.starts_at, i.ends_at, i.timezone, i.location,
	i.video_url, i.status, i.sequence, i.uid, i.organizer_name, i.organizer_email, i.created_by, cb.name AS created_by_name, cb.email AS created_by_email,
	i.created_at, i.updated_at, c.name AS candidate_name, c.email AS candidate_email, c.status AS candidate_status,
	CASE WHEN c.erased_at IS NULL THEN 0 ELSE 1 END AS candidate_erased, j.title AS job_title, count(*) OVER () AS total FROM interviews AS i
JOIN candidates AS c ON c.id = i.candidate_id
JOIN jobs AS j ON j.id = i.job_id
JOIN users AS cb ON cb.id = i.created_by
WHERE i.candidate_id = $1 AND i.job_id = $2 AND {{visible $3}}
ORDER BY i.starts_at, i.id LIMIT 15 OFFSET $4;

-- ScheduledInterviews are the scheduled interviews of the candidate $1
-- that end after $2, by start: those a status leaving active or an
-- erasure cancels, read on PostgreSQL once LockCandidateInterviews holds
-- every interview of the candidate, so that they need no lock of their
-- own.
-- name: ScheduledInterviews
SELECT i.id, i.job_id, i.candidate_id, j.team_id, i.starts_at, i.ends_at, i.timezone, i.location,
	i.video_url, i.status, i.sequence, i.uid, i.organizer_name, i.organizer_email, i.created_by, cb.name AS created_by_name, cb.email AS created_by_email,
	i.created_at, i.updated_at, c.name AS candidate_name, c.email AS candidate_email, c.status AS candidate_status,
	CASE WHEN c.erased_at IS NULL THEN 0 ELSE 1 END AS candidate_erased, j.title AS job_title FROM interviews AS i
JOIN candidates AS c ON c.id = i.candidate_id
JOIN jobs AS j ON j.id = i.job_id
JOIN users AS cb ON cb.id = i.created_by
WHERE i.candidate_id = $1 AND i.status = 'scheduled' AND i.ends_at > $2
ORDER BY i.starts_at, i.id;

-- name: CountInterviews
SELECT count(*) FROM interviews AS i WHERE i.candidate_id = $1 AND i.job_id = $2;

-- name: InsertInterview
INSERT INTO interviews (job_id, candidate_id, starts_at, ends_at, timezone, location, video_url,
	status, sequence, created_by, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
RETURNING id, (SELECT j.title FROM jobs AS j WHERE j.id = interviews.job_id) AS job_title;

-- name: UpdateInterview
UPDATE interviews SET starts_at = $1, ends_at = $2, timezone = $3, location = $4, video_url = $5,
	status = $6, sequence = $7, updated_at = $8
WHERE id = $9;

-- name: SetInterviewCalendar
UPDATE interviews SET uid = $1, organizer_name = $2, organizer_email = $3 WHERE id = $4;

-- name: DeleteInterviewers
DELETE FROM interview_interviewers WHERE interview_id = $1;
