-- name: InsertWebhook
INSERT INTO webhooks (team_id, url, events, description, secret, created_by, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id;

-- name: Webhook
SELECT w.id, w.team_id, w.url, w.events, w.description, w.secret, w.created_by,
	u.name AS creator_name, w.created_at FROM webhooks AS w JOIN users AS u ON u.id = w.created_by
WHERE w.id = $1 AND w.team_id = $2;

-- name: DeleteWebhook
DELETE FROM webhooks WHERE id = $1;

-- name: WebhooksPage
SELECT w.id, w.team_id, w.url, w.events, w.description, w.secret, w.created_by,
	u.name AS creator_name, w.created_at, count(*) OVER () AS total
FROM webhooks AS w JOIN users AS u ON u.id = w.created_by WHERE w.team_id = $1
ORDER BY w.created_at DESC, w.id DESC LIMIT 15 OFFSET $2;

-- name: WebhooksCount
SELECT count(*) FROM webhooks WHERE team_id = $1;

-- name: MemberRole
SELECT role FROM memberships WHERE user_id = $1 AND team_id = $2;
