-- name: IdempotencyRecord
SELECT true AS claim_locked, k.user_id AS claim_user_id, k.request AS claim_request,
	k.result AS claim_result, k.created_at AS claim_created_at
FROM idempotency_keys AS k WHERE k.team_id = $1 AND k.key = $2 AND k.created_at >= $3;

-- name: PurgeIdempotency
DELETE FROM idempotency_keys WHERE created_at < $1;

-- name: SaveIdempotencyRecord
INSERT INTO idempotency_keys AS k (team_id, key, user_id, request, result, created_at, candidate_id, operation)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT (team_id, key) DO UPDATE SET user_id = EXCLUDED.user_id, request = EXCLUDED.request,
	result = EXCLUDED.result, created_at = EXCLUDED.created_at, candidate_id = EXCLUDED.candidate_id,
	operation = EXCLUDED.operation;
