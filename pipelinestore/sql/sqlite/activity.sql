-- name: InsertActivity
INSERT INTO activity
(team_id, job_id, user_id, token_id, ip, action, subject_type, subject_id, changes, created_at, reason, approved_by)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id;

-- name: SelectingWebhooks
SELECT id FROM webhooks
WHERE team_id = $1 AND (events = '' OR instr(',' || events || ',', ',' || $2 || ',') > 0);
