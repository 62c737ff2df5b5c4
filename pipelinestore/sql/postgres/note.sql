-- name: InsertNote
INSERT INTO notes (candidate_id, user_id, content, created_at)
VALUES ($1, $2, $3, $4) RETURNING id;
