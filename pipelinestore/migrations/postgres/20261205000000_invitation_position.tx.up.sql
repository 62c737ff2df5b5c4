-- An invitation mail's place among the mails of its interview's change
-- (interview_id, sequence), from 0: its River job names it by these
-- three, known before the insert, so that the insert need not return its
-- id. The mails queued before count from 0 in the order of their ids.
-- NULL is a mail queued by a server from before this migration (a schema
-- ahead of the binary is accepted): its job names it by id.
ALTER TABLE invitation_mails ADD COLUMN position integer;
--bun:split
UPDATE invitation_mails AS im SET position = o.n
FROM (SELECT id, row_number() OVER (PARTITION BY interview_id, sequence ORDER BY id) - 1 AS n FROM invitation_mails) AS o
WHERE o.id = im.id;
--bun:split
DROP INDEX invitation_mails_interview_idx;
--bun:split
CREATE UNIQUE INDEX invitation_mails_place_idx ON invitation_mails (interview_id, sequence, position);
