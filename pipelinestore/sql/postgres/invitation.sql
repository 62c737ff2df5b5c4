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

-- InsertInvitationMails stores the invitation mails of the JSON array
-- $1 (invitationMailsJSON: mails alike but for their recipients) in one
-- statement.
-- name: InsertInvitationMails
INSERT INTO invitation_mails
(interview_id, sequence, position, method, recipient, recipient_name, subject, body, calendar, status, attempts, created_at)
SELECT m.interview_id, m.sequence, r.position, m.method, r.recipient, r.recipient_name, m.subject, m.body, m.calendar, m.status, 0, m.created_at
FROM json_to_recordset(CAST($1 AS json)) AS m(interview_id bigint, sequence integer, method text, subject text, body text,
	calendar text, status text, created_at timestamptz, "to" json)
CROSS JOIN LATERAL json_to_recordset(m."to") AS r(position integer, recipient text, recipient_name text);
