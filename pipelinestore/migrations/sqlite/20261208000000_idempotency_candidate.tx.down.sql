ALTER TABLE idempotency_keys DROP COLUMN operation;
--bun:split
ALTER TABLE idempotency_keys DROP COLUMN candidate_id;
