-- name: DocumentForDeleteLocked
SELECT d.id, d.candidate_id, c.job_id, j.team_id, d.kind, d.filename, d.content_type, d.size, d.sha256,
	d.text_status, d.text_truncated, d.created_at, u.id AS author_id, u.name AS author_name
FROM documents AS d
JOIN candidates AS c ON c.id = d.candidate_id
JOIN jobs AS j ON j.id = c.job_id
JOIN users AS u ON u.id = d.user_id
WHERE d.id = $1 AND d.candidate_id = $2;
