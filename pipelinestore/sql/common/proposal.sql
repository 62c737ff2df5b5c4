-- name: InsertProposal
INSERT INTO proposals
(team_id, job_id, candidate_id, user_id, token_id, operation, method, path, input, reason, digest, status, created_at, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id;

-- Pending proposals whose time ran out, or whose token was revoked or
-- expired: the pass closes them.
-- name: ProposalsToClose
SELECT p.id, p.team_id, p.job_id, p.candidate_id, p.user_id, ru.name AS user_name, p.token_id, rt.name AS token_name,
	p.operation, p.method, p.path, p.input, p.reason, p.digest, p.status, p.created_at, p.expires_at,
	p.decided_by_user_id AS decider_id, du.name AS decider_name, p.decided_by_token_id AS decider_token_id,
	dt.name AS decider_token_name, p.decided_at, p.note, p.result
FROM proposals AS p
JOIN users AS ru ON ru.id = p.user_id
JOIN tokens AS rt ON rt.id = p.token_id
LEFT JOIN users AS du ON du.id = p.decided_by_user_id
LEFT JOIN tokens AS dt ON dt.id = p.decided_by_token_id
LEFT JOIN jobs AS j ON j.id = p.job_id
WHERE p.status = 'pending' AND (p.expires_at <= $1 OR rt.revoked_at IS NOT NULL OR rt.expires_at <= $1)
ORDER BY p.id LIMIT 500;

-- name: CloseProposal
UPDATE proposals SET status = $2, decided_at = $3 WHERE id = $1 AND status = 'pending';

-- name: EraseProposal
UPDATE proposals SET input = '{}', reason = NULL, note = NULL, result = $2 WHERE id = $1;

-- name: EraseProposalReasons
UPDATE activity SET reason = '[erased]'
WHERE subject_type = 'proposal' AND subject_id = $1 AND reason IS NOT NULL;

-- name: CandidateProposals
SELECT p.id, p.team_id, p.job_id, p.candidate_id, p.user_id, ru.name AS user_name, p.token_id, rt.name AS token_name,
	p.operation, p.method, p.path, p.input, p.reason, p.digest, p.status, p.created_at, p.expires_at,
	p.decided_by_user_id AS decider_id, du.name AS decider_name, p.decided_by_token_id AS decider_token_id,
	dt.name AS decider_token_name, p.decided_at, p.note, p.result
FROM proposals AS p
JOIN users AS ru ON ru.id = p.user_id
JOIN tokens AS rt ON rt.id = p.token_id
LEFT JOIN users AS du ON du.id = p.decided_by_user_id
LEFT JOIN tokens AS dt ON dt.id = p.decided_by_token_id
LEFT JOIN jobs AS j ON j.id = p.job_id
WHERE p.candidate_id = $1 ORDER BY p.created_at, p.id;

-- name: Proposal
SELECT p.id, p.team_id, p.job_id, p.candidate_id, p.user_id, ru.name AS user_name, p.token_id, rt.name AS token_name,
	p.operation, p.method, p.path, p.input, p.reason, p.digest, p.status, p.created_at, p.expires_at,
	p.decided_by_user_id AS decider_id, du.name AS decider_name, p.decided_by_token_id AS decider_token_id,
	dt.name AS decider_token_name, p.decided_at, p.note, p.result
FROM proposals AS p
JOIN users AS ru ON ru.id = p.user_id
JOIN tokens AS rt ON rt.id = p.token_id
LEFT JOIN users AS du ON du.id = p.decided_by_user_id
LEFT JOIN tokens AS dt ON dt.id = p.decided_by_token_id
LEFT JOIN jobs AS j ON j.id = p.job_id
WHERE p.id = $1;

-- name: PendingProposal
SELECT p.id, p.team_id, p.job_id, p.candidate_id, p.user_id, ru.name AS user_name, p.token_id, rt.name AS token_name,
	p.operation, p.method, p.path, p.input, p.reason, p.digest, p.status, p.created_at, p.expires_at,
	p.decided_by_user_id AS decider_id, du.name AS decider_name, p.decided_by_token_id AS decider_token_id,
	dt.name AS decider_token_name, p.decided_at, p.note, p.result
FROM proposals AS p
JOIN users AS ru ON ru.id = p.user_id
JOIN tokens AS rt ON rt.id = p.token_id
LEFT JOIN users AS du ON du.id = p.decided_by_user_id
LEFT JOIN tokens AS dt ON dt.id = p.decided_by_token_id
LEFT JOIN jobs AS j ON j.id = p.job_id
WHERE p.token_id = $1 AND p.status = 'pending' AND p.digest = $2 AND p.expires_at > $3
ORDER BY p.id LIMIT 1;

-- name: CountPendingProposals
SELECT count(*) FROM proposals AS p
WHERE p.token_id = $1 AND p.status = 'pending' AND p.expires_at > $2;

-- The decision is one conditional update: of concurrent ones, on any
-- replica, one finds the proposal pending.
-- name: DecideProposal
UPDATE proposals SET status = $2, decided_by_user_id = $3, decided_by_token_id = $4,
	decided_at = $5, note = $6, result = $7
WHERE id = $1 AND status = 'pending' AND expires_at > $8;

-- name: SetProposalResult
UPDATE proposals SET result = $2 WHERE id = $1;

-- name: ProposalsPage
SELECT p.id, p.team_id, p.job_id, p.candidate_id, p.user_id, ru.name AS user_name, p.token_id, rt.name AS token_name,
	p.operation, p.method, p.path, p.input, p.reason, p.digest, p.status, p.created_at, p.expires_at,
	p.decided_by_user_id AS decider_id, du.name AS decider_name, p.decided_by_token_id AS decider_token_id,
	dt.name AS decider_token_name, p.decided_at, p.note, p.result, count(*) OVER () AS total
FROM proposals AS p
JOIN users AS ru ON ru.id = p.user_id
JOIN tokens AS rt ON rt.id = p.token_id
LEFT JOIN users AS du ON du.id = p.decided_by_user_id
LEFT JOIN tokens AS dt ON dt.id = p.decided_by_token_id
LEFT JOIN jobs AS j ON j.id = p.job_id
WHERE (p.job_id IS NULL OR {{visible $1}})
	AND (p.token_id = $2
		OR ($4 = 1 AND p.team_id = $3 AND (p.job_id IS NOT NULL OR $5 = 1)))
	AND ($6 = '' OR (CASE WHEN p.status = 'pending' AND p.expires_at <= $8 THEN 'expired' ELSE p.status END) = $6)
	AND ($7 = 0 OR p.job_id = $7)
ORDER BY p.created_at DESC, p.id DESC
LIMIT 15 OFFSET $9;

-- name: TeamProposals
SELECT p.id, p.team_id, p.job_id, p.candidate_id, p.user_id, ru.name AS user_name, p.token_id, rt.name AS token_name,
	p.operation, p.method, p.path, p.input, p.reason, p.digest, p.status, p.created_at, p.expires_at,
	p.decided_by_user_id AS decider_id, du.name AS decider_name, p.decided_by_token_id AS decider_token_id,
	dt.name AS decider_token_name, p.decided_at, p.note, p.result
FROM proposals AS p
JOIN users AS ru ON ru.id = p.user_id
JOIN tokens AS rt ON rt.id = p.token_id
LEFT JOIN users AS du ON du.id = p.decided_by_user_id
LEFT JOIN tokens AS dt ON dt.id = p.decided_by_token_id
LEFT JOIN jobs AS j ON j.id = p.job_id
WHERE p.team_id = $1 AND ($2 = '' OR (CASE WHEN p.status = 'pending' AND p.expires_at <= $3 THEN 'expired' ELSE p.status END) = $2)
ORDER BY p.created_at DESC, p.id DESC;
