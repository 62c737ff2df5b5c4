-- name: InsertInvitationMail
INSERT INTO invitation_mails
(interview_id, sequence, position, method, recipient, recipient_name, subject, body, calendar, status, attempts, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 0, $11) RETURNING id;
