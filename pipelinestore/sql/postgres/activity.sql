-- name: InsertActivity
WITH a AS (INSERT INTO activity
	(team_id, job_id, user_id, token_id, ip, action, subject_type, subject_id, changes, created_at, reason, approved_by)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id, team_id, action)
SELECT a.id, w.id AS webhook_id FROM a
LEFT JOIN webhooks AS w ON w.team_id = a.team_id
	AND (w.events = '' OR strpos(',' || w.events || ',', ',' || a.action || ',') > 0);
