-- A token acts in the team it was made in, while its user is a member
-- of it (decisions §7); otherwise it is not found, and answers 401.
-- name: TokenByHash
SELECT t.id, t.user_id, t.team_id, t.name, t.scopes, t.approval, t.hash, t.created_at, t.expires_at,
	t.last_used_at, t.revoked_at, u.name AS user_name, u.email AS user_email,
	tm.id AS acting_team_id, tm.key AS team_key, tm.name AS team_name, tm.job_limit AS team_job_limit
FROM tokens AS t
JOIN users AS u ON u.id = t.user_id
JOIN teams AS tm ON tm.id = t.team_id
JOIN memberships AS m ON m.team_id = t.team_id AND m.user_id = t.user_id
WHERE t.hash = $1;

-- name: TokenByID
SELECT t.id, t.user_id, t.team_id, t.name, t.scopes, t.approval, t.hash, t.created_at, t.expires_at,
	t.last_used_at, t.revoked_at, u.name AS user_name, u.email AS user_email,
	tm.id AS acting_team_id, tm.key AS team_key, tm.name AS team_name, tm.job_limit AS team_job_limit
FROM tokens AS t
JOIN users AS u ON u.id = t.user_id
JOIN teams AS tm ON tm.id = t.team_id
JOIN memberships AS m ON m.team_id = t.team_id AND m.user_id = t.user_id
WHERE t.id = $1;

-- name: TouchToken
UPDATE tokens SET last_used_at = $1 WHERE id = $2;

-- name: TeamTokens
SELECT t.*, u.name AS user_name, u.email AS user_email
FROM tokens AS t JOIN users AS u ON u.id = t.user_id
WHERE t.team_id = $1
ORDER BY t.created_at, t.id;

-- A token revoked before keeps its first time.
-- name: RevokeToken
UPDATE tokens SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2;

-- name: SetTokenApproval
UPDATE tokens SET approval = $1 WHERE id = $2;
