DROP INDEX teams_key_idx;
--bun:split
ALTER TABLE teams DROP COLUMN key;
