DROP TRIGGER IF EXISTS notes_count_inserted;
--bun:split
DROP TRIGGER IF EXISTS notes_count_deleted;
--bun:split
ALTER TABLE candidates DROP COLUMN notes_count;
--bun:split
DROP INDEX IF EXISTS candidates_stage_applied_idx;
--bun:split
CREATE INDEX candidates_stage_id_idx ON candidates (stage_id);
--bun:split
DROP TRIGGER IF EXISTS candidates_count_moved;
--bun:split
DROP TRIGGER IF EXISTS candidates_count_deleted;
--bun:split
DROP TRIGGER IF EXISTS candidates_count_inserted;
--bun:split
ALTER TABLE stages DROP COLUMN candidate_count;
