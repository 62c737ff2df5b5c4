-- name: WebhookLocked
SELECT w.id, w.team_id, w.url, w.events, w.description, w.secret, w.created_by,
	u.name AS creator_name, w.created_at FROM webhooks AS w JOIN users AS u ON u.id = w.created_by
WHERE w.id = $1 AND w.team_id = $2 AND pipeline_lock_record('webhook', $1) FOR UPDATE OF w;
