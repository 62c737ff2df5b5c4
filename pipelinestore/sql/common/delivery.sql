-- name: DeliveriesPage
SELECT id, webhook_id, activity_id, action, attempt, status_code, error, duration_ms,
	attempted_at, next_attempt_at, count(*) OVER () AS total
FROM webhook_deliveries WHERE webhook_id = $1
ORDER BY id DESC LIMIT 15 OFFSET $2;

-- name: DeliveriesCount
SELECT count(*) FROM webhook_deliveries WHERE webhook_id = $1;

-- An attempt of a webhook deleted meanwhile is dropped.
-- name: RecordDelivery
INSERT INTO webhook_deliveries
(webhook_id, activity_id, action, attempt, status_code, error, duration_ms, attempted_at, next_attempt_at)
SELECT w.id, a.id, a.action, $3, $4, $5, $6, $7, $8 FROM webhooks AS w, activity AS a
WHERE w.id = $1 AND a.id = $2;

-- name: DeliveryWebhook
SELECT w.id, w.team_id, w.url, w.events, w.description, w.secret, w.created_by,
	u.name AS creator_name, w.created_at,
	(SELECT m.role FROM memberships AS m WHERE m.user_id = w.created_by AND m.team_id = w.team_id) AS creator_role
FROM webhooks AS w JOIN users AS u ON u.id = w.created_by WHERE w.id = $1;

-- name: PurgeDeliveries
DELETE FROM webhook_deliveries WHERE attempted_at < $1;
