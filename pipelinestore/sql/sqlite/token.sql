-- A token is created in the team $10 or, when it is NULL, in its
-- user's current team, read in the same statement.
-- name: InsertToken
INSERT INTO tokens (user_id, team_id, name, scopes, approval, hash, created_at, expires_at, last_used_at, revoked_at)
SELECT u.id, COALESCE($10, u.current_team_id), $1, $2, $3, $4, $5, $6, $7, $8 FROM users AS u WHERE u.id = $9
RETURNING id, team_id;

-- name: TokenLocked
SELECT t.* FROM tokens AS t WHERE t.id = $1;
