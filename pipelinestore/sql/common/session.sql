-- The people's sign-in links, sessions and token forms. Every time is
-- compared in Go, not SQL.

-- name: SignInLink
SELECT l.id, l.user_id, l.hash, l.created_at, l.expires_at, l.used_at,
	u.name AS user_name, u.email AS user_email
FROM sign_in_links AS l JOIN users AS u ON u.id = l.user_id WHERE l.hash = $1;

-- A link is used once.
-- name: UseSignInLink
UPDATE sign_in_links SET used_at = $1 WHERE id = $2 AND used_at IS NULL;

-- A session acts in its team while its user is a member of it, else in
-- the user's current team.
-- name: SessionByHash
SELECT s.id, s.user_id, s.team_id, s.hash, s.created_at, s.last_seen_at,
	u.name AS user_name, u.email AS user_email,
	t.id AS acts_in, t.key AS team_key, t.name AS team_name, t.job_limit AS team_job_limit,
	COALESCE(m.role, '') AS role
FROM sessions AS s
JOIN users AS u ON u.id = s.user_id
LEFT JOIN memberships AS sm ON sm.user_id = s.user_id AND sm.team_id = s.team_id
JOIN teams AS t ON t.id = CASE WHEN sm.team_id IS NULL THEN u.current_team_id ELSE s.team_id END
LEFT JOIN memberships AS m ON m.user_id = s.user_id AND m.team_id = t.id
WHERE s.hash = $1;

-- name: TouchSession
UPDATE sessions SET last_seen_at = $1 WHERE id = $2;

-- name: SetSessionTeam
UPDATE sessions SET team_id = $1 WHERE hash = $2 AND user_id = $3;

-- name: DeleteSession
DELETE FROM sessions WHERE hash = $1;

-- name: UserTeams
SELECT t.id, t.key, t.name, t.job_limit, m.role
FROM memberships AS m JOIN teams AS t ON t.id = m.team_id
WHERE m.user_id = $1 ORDER BY t.id;

-- name: UserTokens
SELECT t.id, t.user_id, t.team_id, t.name, t.scopes, t.approval, t.hash, t.created_at, t.expires_at,
	t.last_used_at, t.revoked_at
FROM tokens AS t WHERE t.user_id = $1 ORDER BY t.created_at, t.id;

-- name: TokenFormSeen
SELECT 1 FROM token_forms WHERE user_id = $1 AND form_hash = $2;

-- name: InsertTokenForm
INSERT INTO token_forms (user_id, form_hash, token_id) VALUES ($1, $2, $3);
