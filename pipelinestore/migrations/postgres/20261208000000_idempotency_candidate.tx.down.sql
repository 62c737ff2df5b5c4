ALTER TABLE idempotency_keys DROP COLUMN candidate_id, DROP COLUMN operation;
