ALTER TABLE teams DROP COLUMN retention_set_at;
--bun:split
ALTER TABLE teams DROP COLUMN retention_previous_days;
--bun:split
ALTER TABLE teams DROP COLUMN retention_days;
--bun:split
ALTER TABLE jobs DROP COLUMN closed_at;
--bun:split
ALTER TABLE candidates DROP COLUMN erased_at;
