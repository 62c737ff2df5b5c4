-- name: InvitationMailByID
SELECT id, interview_id, sequence, method, recipient, recipient_name, subject, body,
	calendar, status, attempts, last_error, created_at
FROM invitation_mails WHERE id = $1;

-- InvitationMailAt is the id of the mail at the position $3 among those
-- of the change $2 (its sequence) of the interview $1.
-- name: InvitationMailAt
SELECT id FROM invitation_mails WHERE interview_id = $1 AND sequence = $2 AND position = $3;

-- name: RecordInvitationAttempt
UPDATE invitation_mails SET status = $2, attempts = $3,
	last_error = COALESCE($4, last_error), sent_at = $5 WHERE id = $1 AND (status = 'queued' OR $2 = 'sent');
