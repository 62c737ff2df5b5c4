-- A team's proposals that may be about a person: those on the person's
-- candidates, and those on no candidate (an intake names its person in
-- its input only).
-- name: ProposalsAbout
SELECT p.id, p.team_id, p.job_id, p.candidate_id, p.user_id, ru.name AS user_name, p.token_id, rt.name AS token_name,
	p.operation, p.method, p.path, p.input, p.reason, p.digest, p.status, p.created_at, p.expires_at,
	p.decided_by_user_id AS decider_id, du.name AS decider_name, p.decided_by_token_id AS decider_token_id,
	dt.name AS decider_token_name, p.decided_at, p.note, p.result
FROM proposals AS p
JOIN users AS ru ON ru.id = p.user_id
JOIN tokens AS rt ON rt.id = p.token_id
LEFT JOIN users AS du ON du.id = p.decided_by_user_id
LEFT JOIN tokens AS dt ON dt.id = p.decided_by_token_id
LEFT JOIN jobs AS j ON j.id = p.job_id
WHERE p.team_id = $1 AND (p.candidate_id IS NULL OR p.candidate_id IN (SELECT value FROM json_each($2))) ORDER BY p.id;
