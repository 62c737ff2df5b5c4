-- name: Person
SELECT c.id, c.job_id, c.stage_id, c.name, c.email, c.applied, c.status, c.resume_url, c.notes_count,
	c.erased_at, j.team_id, (SELECT s.name FROM stages AS s WHERE s.id = c.stage_id) AS stage
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE j.team_id = $1 AND c.email_fold = $2 ORDER BY c.id;

-- name: PersonForErasure
SELECT c.id, c.job_id, c.stage_id, c.name, c.email, c.applied, c.status, c.resume_url, c.notes_count,
	c.erased_at, j.team_id, (SELECT s.name FROM stages AS s WHERE s.id = c.stage_id) AS stage
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE j.team_id = $1 AND c.email_fold = $2 AND c.erased_at IS NULL ORDER BY c.id;

-- name: Ratings
SELECT u.id, u.name, r.value FROM ratings AS r JOIN users AS u ON u.id = r.user_id
WHERE r.candidate_id = $1 ORDER BY u.id;

-- name: EraseCandidate
UPDATE candidates SET name = $1, name_fold = $2, email = $3, email_fold = $4, resume_url = '',
	erased_at = $5, updated_at = $5
WHERE id = $6;

-- name: EraseNotes
DELETE FROM notes WHERE candidate_id = $1;

-- The candidate's documents, each deleted as RemoveDocument deletes one.
-- name: CandidateDocuments
SELECT id FROM documents WHERE candidate_id = $1;

-- name: EraseRatings
DELETE FROM ratings WHERE candidate_id = $1;

-- name: EraseMessages
UPDATE messages SET recipient = '', subject = '', body = '', last_error = NULL,
	status = CASE WHEN status = 'queued' THEN 'cancelled' ELSE status END
WHERE candidate_id = $1;

-- name: EraseInvitations
DELETE FROM invitation_mails
WHERE interview_id IN (SELECT i.id FROM interviews AS i WHERE i.candidate_id = $1);

-- Two reads of activity_subject_idx: as one OR, PostgreSQL reads
-- every interview's entries and filters them.
-- name: CandidateEntries
SELECT id, team_id, job_id, user_id, token_id, ip, action, subject_type, subject_id, changes, created_at
FROM activity WHERE subject_type = 'candidate' AND subject_id = $1
UNION ALL
SELECT id, team_id, job_id, user_id, token_id, ip, action, subject_type, subject_id, changes, created_at
FROM activity WHERE subject_type = 'interview' AND subject_id IN (SELECT i.id FROM interviews AS i WHERE i.candidate_id = $1)
ORDER BY id;

-- The reasons of the entries about a candidate: its own, its
-- interviews' and the proposals' about it.
-- name: EraseEntryReasons
UPDATE activity SET reason = '[erased]'
WHERE reason IS NOT NULL AND (
	(subject_type = 'candidate' AND subject_id = $1)
	OR (subject_type = 'interview' AND subject_id IN (SELECT i.id FROM interviews AS i WHERE i.candidate_id = $1))
	OR (subject_type = 'proposal' AND subject_id IN (SELECT p.id FROM proposals AS p WHERE p.candidate_id = $1)));

-- name: SetActivityChanges
UPDATE activity SET changes = $1 WHERE id = $2;

-- name: SetIdempotencyResul
UPDATE idempotency_keys SET result = $1 WHERE team_id = $2 AND key = $3;

-- name: IdempotencyRecords
SELECT team_id, key, user_id, request, result, created_at, candidate_id, operation FROM idempotency_keys WHERE team_id = $1;
