-- name: InsertInvitationMail
INSERT INTO invitation_mails
(interview_id, sequence, method, recipient, recipient_name, subject, body, calendar, status, attempts, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, $10) RETURNING id;

-- name: InvitationMailByID
SELECT id, interview_id, sequence, method, recipient, recipient_name, subject, body,
	calendar, status, attempts, last_error, created_at
FROM invitation_mails WHERE id = $1;

-- name: RecordInvitationAttempt
UPDATE invitation_mails SET status = $2, attempts = $3,
	last_error = COALESCE($4, last_error), sent_at = $5 WHERE id = $1 AND (status = 'queued' OR $2 = 'sent');

-- InsertInvitationMails stores the invitation mails of the JSON array
-- $1 (invitationMailJSON) in one statement.
-- name: InsertInvitationMails
INSERT INTO invitation_mails
(interview_id, sequence, method, recipient, recipient_name, subject, body, calendar, status, attempts, created_at)
SELECT m.interview_id, m.sequence, m.method, m.recipient, m.recipient_name, m.subject, m.body, m.calendar, m.status, 0, m.created_at
FROM json_to_recordset(CAST($1 AS json)) AS m(interview_id bigint, sequence integer, method text, recipient text,
	recipient_name text, subject text, body text, calendar text, status text, created_at timestamptz)
RETURNING id;
