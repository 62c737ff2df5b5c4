-- A foreign key's check locks the referenced row in key-share mode in
-- every transaction that inserts or re-points a reference. Many writers
-- locking one row share the lock through a multixact rebuilt at every new
-- locker, whose members go through a small cache of pages: under load
-- each write pays for every other one in flight, and a round of writes
-- runs at half speed or double from one minute to the next as that cache
-- misses or not. Three references locked one row shared by many writers;
-- their rules hold without the lock:
--
-- An activity entry and an idempotency record name their team. Every
-- write of a team wrote one, so every write locked the team's row. Teams
-- are never deleted, and a write names the team of its own record; the
-- log already keeps token ids without a key.
ALTER TABLE activity DROP CONSTRAINT activity_team_id_fkey;
--bun:split
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_team_id_fkey;
--bun:split
-- A candidate's stage is a stage of its job: every move of a job locked
-- its target stage's row. A trigger checks the rule instead, without a
-- lock: stages are deleted only with their job, and its candidates with
-- it.
CREATE FUNCTION pipeline_check_stage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM stages WHERE id = NEW.stage_id AND job_id = NEW.job_id) THEN
        RAISE foreign_key_violation USING MESSAGE = format('stage %s is not a stage of job %s', NEW.stage_id, NEW.job_id);
    END IF;
    RETURN NEW;
END $$;
--bun:split
CREATE TRIGGER candidates_stage_of_job BEFORE INSERT OR UPDATE OF stage_id, job_id ON candidates
    FOR EACH ROW EXECUTE FUNCTION pipeline_check_stage();
--bun:split
ALTER TABLE candidates DROP CONSTRAINT candidates_stage_id_job_id_fkey;
