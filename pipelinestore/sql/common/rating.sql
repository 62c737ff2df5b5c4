-- name: Rating
SELECT candidate_id, user_id, value, updated_at FROM ratings
WHERE candidate_id = $1 AND user_id = $2;

-- name: SaveRating
INSERT INTO ratings (candidate_id, user_id, value, updated_at) VALUES ($1, $2, $3, $4)
ON CONFLICT (candidate_id, user_id) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at;
