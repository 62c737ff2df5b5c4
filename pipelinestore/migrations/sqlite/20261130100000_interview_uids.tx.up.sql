-- An interview's UID and organizer are decided when it is scheduled and
-- kept for its whole life, whatever the server's settings become.
-- Interviews scheduled before were given interview-{id}@{a domain the
-- settings named}; which one is not known here, so they get a UID of the
-- new shape on localhost, and the organizer noreply@localhost.
ALTER TABLE interviews ADD COLUMN uid TEXT NOT NULL DEFAULT '';
--bun:split
ALTER TABLE interviews ADD COLUMN organizer_name TEXT NOT NULL DEFAULT '';
--bun:split
ALTER TABLE interviews ADD COLUMN organizer_email TEXT NOT NULL DEFAULT '';
--bun:split
UPDATE interviews SET uid = 'interview-' || id || '-' || lower(hex(randomblob(8))) || '@localhost',
    organizer_email = 'noreply@localhost';
