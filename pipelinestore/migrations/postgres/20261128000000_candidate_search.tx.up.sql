-- A copy of each candidate's searched text, narrow, so that counting a
-- common term's matches in a large job visits fewer pages: every match is
-- rechecked on the heap (pg_trgm always rechecks LIKE), and a candidate's
-- row is about twice as wide as this one. The primary key leads with the
-- job, so a term without trigrams still finds a job's rows. Triggers keep
-- the copy in the transaction of every change to the columns it copies,
-- whoever writes the rows.
--
-- Writers of candidates wait from the copy of the rows to the triggers'
-- creation, so that no row is written between the two and missed.
LOCK TABLE candidates IN SHARE ROW EXCLUSIVE MODE;
--bun:split
CREATE TABLE candidate_search (
    job_id bigint NOT NULL,
    id bigint NOT NULL,
    applied date NOT NULL,
    name_fold text NOT NULL,
    email_fold text NOT NULL,
    PRIMARY KEY (job_id, id)
);
--bun:split
INSERT INTO candidate_search (job_id, id, applied, name_fold, email_fold)
SELECT job_id, id, applied, name_fold, email_fold FROM candidates;
--bun:split
DO $$
DECLARE trgm text;
BEGIN
    SELECT n.nspname INTO trgm FROM pg_extension AS e JOIN pg_namespace AS n ON n.oid = e.extnamespace
    WHERE e.extname = 'pg_trgm';
    EXECUTE format('CREATE INDEX candidate_search_name_trgm_idx ON candidate_search USING gin (name_fold %I.gin_trgm_ops)', trgm);
    EXECUTE format('CREATE INDEX candidate_search_email_trgm_idx ON candidate_search USING gin (email_fold %I.gin_trgm_ops)', trgm);
END $$;
--bun:split
-- The candidates' own trigram indexes served only searches, which now
-- find their matches in the copy (a large job's) or walk the job's
-- candidates (a smaller job's). Kept, they would cost every write twice.
DROP INDEX candidates_name_trgm_idx;
--bun:split
DROP INDEX candidates_email_trgm_idx;
--bun:split
CREATE FUNCTION pipeline_search_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO candidate_search (job_id, id, applied, name_fold, email_fold)
    SELECT job_id, id, applied, name_fold, email_fold FROM new_rows;
    RETURN NULL;
END $$;
--bun:split
CREATE FUNCTION pipeline_search_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM candidate_search AS s USING old_rows AS o WHERE s.job_id = o.job_id AND s.id = o.id;
    RETURN NULL;
END $$;
--bun:split
CREATE FUNCTION pipeline_search_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE candidate_search
    SET job_id = NEW.job_id, applied = NEW.applied, name_fold = NEW.name_fold, email_fold = NEW.email_fold
    WHERE job_id = OLD.job_id AND id = OLD.id;
    RETURN NULL;
END $$;
--bun:split
CREATE TRIGGER candidates_search_inserted AFTER INSERT ON candidates
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pipeline_search_inserted();
--bun:split
CREATE TRIGGER candidates_search_deleted AFTER DELETE ON candidates
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pipeline_search_deleted();
--bun:split
-- A move or a note changes none of the copied columns, and fires nothing.
CREATE TRIGGER candidates_search_updated AFTER UPDATE OF job_id, applied, name_fold, email_fold ON candidates
    FOR EACH ROW WHEN (OLD.job_id IS DISTINCT FROM NEW.job_id OR OLD.applied IS DISTINCT FROM NEW.applied
        OR OLD.name_fold IS DISTINCT FROM NEW.name_fold OR OLD.email_fold IS DISTINCT FROM NEW.email_fold)
    EXECUTE FUNCTION pipeline_search_updated();
