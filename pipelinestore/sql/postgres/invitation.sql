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
