-- name: PersonForErasureLocked
SELECT c.id, c.job_id, c.stage_id, c.name, c.email, c.applied, c.status, c.resume_url, c.notes_count,
	c.erased_at, j.team_id, (SELECT s.name FROM stages AS s WHERE s.id = c.stage_id) AS stage
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE j.team_id = $1 AND c.email_fold = $2 AND c.erased_at IS NULL ORDER BY c.id;

-- The River jobs of a candidate's messages and invitation mails,
-- whatever their state: a finished job's row may keep errors naming
-- the recipient.
-- name: EraseMessageJobs
DELETE FROM river_job WHERE kind = 'pipeline_message'
	AND json_extract(args, '$.message_id') IN (SELECT m.id FROM messages AS m WHERE m.candidate_id = $1);

-- name: EraseInvitationJobs
DELETE FROM river_job WHERE kind = 'pipeline_invitation'
	AND json_extract(args, '$.invitation_mail_id') IN (SELECT im.id FROM invitation_mails AS im
		JOIN interviews AS i ON i.id = im.interview_id WHERE i.candidate_id = $1);

-- CandidateActivity is the entries about the candidates of the JSON
-- array $1, with their actors, by id.
-- name: CandidateActivity
SELECT a.id, a.team_id, a.job_id, a.user_id, a.token_id, a.action, a.subject_type, a.subject_id, a.changes,
	a.reason, a.approved_by, a.created_at, 0 AS seq, u.name AS user_name FROM activity AS a JOIN users AS u ON u.id = a.user_id
WHERE a.subject_type = 'candidate' AND a.subject_id IN (SELECT value FROM json_each($1)) ORDER BY a.id;

-- ScrubErased writes the pages an erasure changed (zeroed, with
-- secure_delete on) back into the database file and truncates the WAL.
-- name: ScrubErased
PRAGMA wal_checkpoint(TRUNCATE);
