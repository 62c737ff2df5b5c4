-- ClaimKey goes in a transaction's batch (see runner.flush), never on
-- its own: not registered.
-- name: ClaimKey
SELECT k.locked AS claim_locked, k.user_id AS claim_user_id, k.request AS claim_request,
	k.result AS claim_result, k.created_at AS claim_created_at
FROM pipeline_claim_key($1, $2, $3, $4) AS k;
