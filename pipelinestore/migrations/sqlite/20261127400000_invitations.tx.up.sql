-- Invitation mails: one row per person an interview's invitation is
-- emailed to, for each change of the interview, with the subject, text
-- and iCalendar object as they were when it was queued. The River job
-- that sends it is enqueued in the same transaction as the row.
CREATE TABLE invitation_mails (
    id INTEGER PRIMARY KEY,
    interview_id INTEGER NOT NULL REFERENCES interviews (id) ON DELETE CASCADE,
    sequence INTEGER NOT NULL,
    method TEXT NOT NULL,
    recipient TEXT NOT NULL,
    recipient_name TEXT NOT NULL,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    calendar TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    sent_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX invitation_mails_interview_idx ON invitation_mails (interview_id, sequence);
