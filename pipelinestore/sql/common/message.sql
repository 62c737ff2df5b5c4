-- name: InsertMessage
INSERT INTO messages
(candidate_id, user_id, recipient, reply_to, subject, body, status, send_at, attempts, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, $9) RETURNING id;

-- name: MessagesPage
SELECT m.id, c.job_id, m.candidate_id, j.team_id, m.recipient, c.name AS to_name, m.reply_to, m.subject, m.body, m.status,
	m.send_at, m.sent_at, m.attempts, m.last_error, m.created_at, u.id AS author_id, u.name AS author_name, count(*) OVER () AS total
FROM messages AS m
JOIN candidates AS c ON c.id = m.candidate_id
JOIN jobs AS j ON j.id = c.job_id
JOIN users AS u ON u.id = m.user_id
WHERE m.candidate_id = $1 AND c.job_id = $2 AND {{visible $3}}
ORDER BY m.created_at DESC, m.id DESC
LIMIT 15 OFFSET $4;

-- name: MessagesCount
SELECT (SELECT count(*) FROM messages AS m WHERE m.candidate_id = c.id) AS total
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE c.id = $1 AND c.job_id = $2 AND {{visible $3}};

-- name: Message
SELECT m.id, c.job_id, m.candidate_id, j.team_id, m.recipient, c.name AS to_name, m.reply_to, m.subject, m.body, m.status,
	m.send_at, m.sent_at, m.attempts, m.last_error, m.created_at, u.id AS author_id, u.name AS author_name
FROM messages AS m
JOIN candidates AS c ON c.id = m.candidate_id
JOIN jobs AS j ON j.id = c.job_id
JOIN users AS u ON u.id = m.user_id
WHERE m.id = $1 AND m.candidate_id = $2 AND c.job_id = $3 AND {{visible $4}};

-- name: MessageByID
SELECT m.id, c.job_id, m.candidate_id, j.team_id, m.recipient, c.name AS to_name, m.reply_to, m.subject, m.body, m.status,
	m.send_at, m.sent_at, m.attempts, m.last_error, m.created_at, u.id AS author_id, u.name AS author_name
FROM messages AS m
JOIN candidates AS c ON c.id = m.candidate_id
JOIN jobs AS j ON j.id = c.job_id
JOIN users AS u ON u.id = m.user_id
WHERE m.id = $1;

-- name: MessageForUpdate
SELECT m.id, c.job_id, m.candidate_id, j.team_id, m.recipient, c.name AS to_name, m.reply_to, m.subject, m.body, m.status,
	m.send_at, m.sent_at, m.attempts, m.last_error, m.created_at, u.id AS author_id, u.name AS author_name
FROM messages AS m
JOIN candidates AS c ON c.id = m.candidate_id
JOIN jobs AS j ON j.id = c.job_id
JOIN users AS u ON u.id = m.user_id
WHERE m.id = $1 AND m.candidate_id = $2;

-- name: CancelMessage
UPDATE messages SET status = 'cancelled' WHERE id = $1 AND status = 'queued';

-- name: RequeueMessage
UPDATE messages SET status = 'queued', send_at = $2, attempts = $3 WHERE id = $1;

-- A retry or a failure is recorded only on a message still queued
-- (a cancel wins); a sent one whatever it has become meanwhile.
-- name: RecordMessageAttempt
UPDATE messages SET status = $2, attempts = $3, last_error = COALESCE($4, last_error),
	sent_at = $5 WHERE id = $1 AND (status = 'queued' OR $2 = 'sent');
