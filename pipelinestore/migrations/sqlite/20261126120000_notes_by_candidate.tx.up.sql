-- A candidate's notes are listed newest first: the index gives them in
-- that order and covers what notes_candidate_id_idx did.
CREATE INDEX notes_candidate_created_idx ON notes (candidate_id, created_at, id);
--bun:split
DROP INDEX notes_candidate_id_idx;
