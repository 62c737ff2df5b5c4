DROP FUNCTION IF EXISTS pipeline_claim_key;
--bun:split
DROP TRIGGER IF EXISTS notes_count ON notes;
--bun:split
DROP FUNCTION IF EXISTS pipeline_count_note;
--bun:split
ALTER TABLE candidates DROP COLUMN notes_count;
--bun:split
DROP INDEX IF EXISTS jobs_title_trgm_idx;
--bun:split
DROP INDEX IF EXISTS candidates_email_trgm_idx;
--bun:split
DROP INDEX IF EXISTS candidates_name_trgm_idx;
--bun:split
DROP INDEX IF EXISTS candidates_stage_applied_idx;
--bun:split
CREATE INDEX candidates_stage_id_idx ON candidates (stage_id);
--bun:split
DROP TRIGGER IF EXISTS candidates_count_moved ON candidates;
--bun:split
DROP TRIGGER IF EXISTS candidates_count_deleted ON candidates;
--bun:split
DROP TRIGGER IF EXISTS candidates_count_inserted ON candidates;
--bun:split
DROP FUNCTION IF EXISTS pipeline_count_moved, pipeline_count_deleted, pipeline_count_inserted, pipeline_add_stage_counts;
--bun:split
ALTER TABLE stages DROP COLUMN candidate_count;
