DROP INDEX invitation_mails_place_idx;
--bun:split
CREATE INDEX invitation_mails_interview_idx ON invitation_mails (interview_id, sequence);
--bun:split
ALTER TABLE invitation_mails DROP COLUMN position;
