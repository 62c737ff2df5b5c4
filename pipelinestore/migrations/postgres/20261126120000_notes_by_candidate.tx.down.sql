CREATE INDEX notes_candidate_id_idx ON notes (candidate_id);
--bun:split
DROP INDEX notes_candidate_created_idx;
