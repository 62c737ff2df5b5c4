-- name: MessageForUpdateLocked
SELECT m.id, c.job_id, m.candidate_id, j.team_id, m.recipient, c.name AS to_name, m.reply_to, m.subject, m.body, m.status,
	m.send_at, m.sent_at, m.attempts, m.last_error, m.created_at, u.id AS author_id, u.name AS author_name
FROM messages AS m
JOIN candidates AS c ON c.id = m.candidate_id
JOIN jobs AS j ON j.id = c.job_id
JOIN users AS u ON u.id = m.user_id
WHERE m.id = $1 AND m.candidate_id = $2;
