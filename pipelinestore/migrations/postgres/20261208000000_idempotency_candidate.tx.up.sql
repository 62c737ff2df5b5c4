-- The candidate a keyed write was about and its operation, so that an
-- erasure finds every record about the person by id, whatever their name
-- was, and knows what each record reads as after it. NULL: a write about
-- no candidate, or a record stored before this migration.
ALTER TABLE idempotency_keys ADD COLUMN candidate_id bigint, ADD COLUMN operation text;
