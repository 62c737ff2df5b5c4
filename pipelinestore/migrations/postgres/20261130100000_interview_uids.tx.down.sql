ALTER TABLE interviews DROP COLUMN organizer_email;
--bun:split
ALTER TABLE interviews DROP COLUMN organizer_name;
--bun:split
ALTER TABLE interviews DROP COLUMN uid;
