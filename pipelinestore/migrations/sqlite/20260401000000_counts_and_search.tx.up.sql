-- Each stage counts its candidates, so that a list's total is read, not
-- counted. Triggers keep the counts in the transaction of every change
-- that moves them, whoever writes the rows.
ALTER TABLE stages ADD COLUMN candidate_count INTEGER NOT NULL DEFAULT 0;
--bun:split
UPDATE stages SET candidate_count = (SELECT count(*) FROM candidates AS c WHERE c.stage_id = stages.id);
--bun:split
CREATE TRIGGER candidates_count_inserted AFTER INSERT ON candidates BEGIN
    UPDATE stages SET candidate_count = candidate_count + 1 WHERE id = NEW.stage_id;
END;
--bun:split
CREATE TRIGGER candidates_count_deleted AFTER DELETE ON candidates BEGIN
    UPDATE stages SET candidate_count = candidate_count - 1 WHERE id = OLD.stage_id;
END;
--bun:split
CREATE TRIGGER candidates_count_moved AFTER UPDATE OF stage_id ON candidates
WHEN OLD.stage_id <> NEW.stage_id BEGIN
    UPDATE stages SET candidate_count = candidate_count - 1 WHERE id = OLD.stage_id;
    UPDATE stages SET candidate_count = candidate_count + 1 WHERE id = NEW.stage_id;
END;
--bun:split
-- Each candidate counts its notes, kept by row triggers in the note's own
-- transaction.
ALTER TABLE candidates ADD COLUMN notes_count INTEGER NOT NULL DEFAULT 0;
--bun:split
UPDATE candidates SET notes_count = (SELECT count(*) FROM notes AS n WHERE n.candidate_id = candidates.id);
--bun:split
CREATE TRIGGER notes_count_inserted AFTER INSERT ON notes BEGIN
    UPDATE candidates SET notes_count = notes_count + 1 WHERE id = NEW.candidate_id;
END;
--bun:split
CREATE TRIGGER notes_count_deleted AFTER DELETE ON notes BEGIN
    UPDATE candidates SET notes_count = notes_count - 1 WHERE id = OLD.candidate_id;
END;
--bun:split
-- The stage filter of the candidate list. Substring search stays a scan of
-- the job's candidates on SQLite.
DROP INDEX candidates_stage_id_idx;
--bun:split
CREATE INDEX candidates_stage_applied_idx ON candidates (job_id, stage_id, applied DESC, id DESC);
