-- name: InsertNote
INSERT INTO notes (candidate_id, user_id, content, created_at)
VALUES ($1, $2, $3, $4) RETURNING id;

-- A page of a candidate's notes, newest first, each row with the count of
-- them all.
-- name: NotesPage
SELECT n.id, n.candidate_id, n.content, n.created_at,
	u.id AS author_id, u.name AS author_name, count(*) OVER () AS total
FROM notes AS n
JOIN candidates AS c ON c.id = n.candidate_id
JOIN jobs AS j ON j.id = c.job_id
JOIN users AS u ON u.id = n.user_id
WHERE n.candidate_id = $1 AND c.job_id = $2 AND {{visible $3}}
ORDER BY n.created_at DESC, n.id DESC
LIMIT $4 OFFSET $5;

-- name: NotesCount
SELECT c.notes_count FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE c.id = $1 AND c.job_id = $2 AND {{visible $3}};
