-- PersonForErasureLocked takes, before any row lock, the record locks
-- of the person's candidates and then of their interviews
-- (pipeline_lock_candidates), once, in the subquery evaluated before
-- the first row comes out: the erasure cancels those interviews, and a
-- change of one that took effect before it takes its transaction id
-- before it.
-- name: PersonForErasureLocked
SELECT c.id, c.job_id, c.stage_id, c.name, c.email, c.applied, c.status, c.resume_url, c.notes_count,
	c.erased_at, j.team_id, (SELECT s.name FROM stages AS s WHERE s.id = c.stage_id) AS stage
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE j.team_id = $1 AND c.email_fold = $2 AND c.erased_at IS NULL
	AND (SELECT pipeline_lock_candidates(array_agg(p.id)) FROM candidates AS p JOIN jobs AS pj ON pj.id = p.job_id
		WHERE pj.team_id = $1 AND p.email_fold = $2 AND p.erased_at IS NULL)
ORDER BY c.id FOR NO KEY UPDATE OF c;

-- The River jobs of a candidate's messages and invitation mails,
-- whatever their state: a finished job's row may keep errors naming
-- the recipient.
-- name: EraseMessageJobs
DELETE FROM river_job WHERE kind = 'pipeline_message'
	AND (args->>'message_id')::bigint IN (SELECT m.id FROM messages AS m WHERE m.candidate_id = $1);

-- An invitation mail's job names it by its place, its interview's first
-- (invitationPlaceArgs), or by its id (invitationArgs).
-- name: EraseInvitationJobs
DELETE FROM river_job WHERE (kind = 'pipeline_invitation_place'
	AND (args->>'interview_id')::bigint IN (SELECT i.id FROM interviews AS i WHERE i.candidate_id = $1))
	OR (kind = 'pipeline_invitation' AND (args->>'invitation_mail_id')::bigint IN (SELECT im.id FROM invitation_mails AS im
		JOIN interviews AS i ON i.id = im.interview_id WHERE i.candidate_id = $1));

-- CandidateActivity is the entries about the candidates of the JSON
-- array $1, with their actors, by id.
-- name: CandidateActivity
SELECT a.id, a.team_id, a.job_id, a.user_id, a.token_id, a.action, a.subject_type, a.subject_id, a.changes,
	a.reason, a.approved_by, a.created_at, a.xid AS seq, u.name AS user_name FROM activity AS a JOIN users AS u ON u.id = a.user_id
WHERE a.subject_type = 'candidate' AND a.subject_id IN (SELECT CAST(x AS bigint) FROM json_array_elements_text(CAST($1 AS json)) AS x) ORDER BY a.id;

-- ScrubErased frees the dead versions of the rows an erasure rewrote or
-- deleted: every table it changes. It runs outside any transaction (see
-- DB.Scrub).
-- name: ScrubErased
VACUUM candidates, candidate_search, notes, ratings, messages, invitation_mails, interviews, activity,
	idempotency_keys, river_job, documents, document_contents, proposals;
