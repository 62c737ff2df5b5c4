-- name: InterviewLocked
SELECT i.id, i.job_id, i.candidate_id, j.team_id, i.starts_at, i.ends_at, i.timezone, i.location,
	i.video_url, i.status, i.sequence, i.uid, i.organizer_name, i.organizer_email, i.created_by, cb.name AS created_by_name, cb.email AS created_by_email,
	i.created_at, i.updated_at, c.name AS candidate_name, c.email AS candidate_email, c.status AS candidate_status,
	CASE WHEN c.erased_at IS NULL THEN 0 ELSE 1 END AS candidate_erased, j.title AS job_title FROM interviews AS i
JOIN candidates AS c ON c.id = i.candidate_id
JOIN jobs AS j ON j.id = i.job_id
JOIN users AS cb ON cb.id = i.created_by
WHERE i.id = $1 AND i.candidate_id = $2 AND i.job_id = $3 AND {{visible $4}};

-- Interviewers are the interviewers of the interviews of the JSON
-- array $1, each interview's in order.
-- name: Interviewers
SELECT ii.interview_id, u.id, u.name, u.email FROM interview_interviewers AS ii
JOIN users AS u ON u.id = ii.user_id
WHERE ii.interview_id IN (SELECT value FROM json_each($1))
ORDER BY ii.interview_id, ii.position;

-- TeamUsers are the users of the JSON array $2 who are members of the
-- team $1.
-- name: TeamUsers
SELECT u.id, u.name, u.email FROM users AS u
JOIN memberships AS m ON m.user_id = u.id AND m.team_id = $1
WHERE u.id IN (SELECT value FROM json_each($2));

-- Busy are the busy times of the users of the JSON array $1 and of
-- the candidate $4 that overlap [$2, $3), the interview $5 left out.
-- PostgreSQL finds them with the exclusion constraints' indexes.
-- name: Busy
SELECT ii.user_id, 0 AS candidate_id, ii.starts_at, ii.ends_at FROM interview_interviewers AS ii
WHERE ii.active AND ii.user_id IN (SELECT value FROM json_each($1)) AND ii.starts_at < $3 AND ii.ends_at > $2 AND ii.interview_id <> $5
UNION ALL
SELECT 0, i.candidate_id, i.starts_at, i.ends_at FROM interviews AS i
WHERE i.status = 'scheduled' AND i.candidate_id = $4 AND i.starts_at < $3 AND i.ends_at > $2 AND i.id <> $5
ORDER BY 3, 1, 2;

-- InsertInterviewers stores the interviewers of the JSON array $4 of
-- the interview $1, in order, with its times $2, $3 and whether it is
-- scheduled $5.
-- name: InsertInterviewers
INSERT INTO interview_interviewers (interview_id, user_id, position, starts_at, ends_at, active)
SELECT $1, value, key, $2, $3, $5 FROM json_each($4);
