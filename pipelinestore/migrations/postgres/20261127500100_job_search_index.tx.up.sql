-- A search of a job's candidates was served by trigram indexes over every
-- job's candidates, intersected with the job's rows through the job's
-- index: a common term read the matches of every job, and a large job read
-- its whole entry in the job's index, whatever the term. These index each
-- folded column prefixed with the candidate's job id (as the store's
-- search reads it: see jobKeyed), so the job's id is part of every term
-- looked up and the index finds the job's matches alone; a search then
-- costs what it matches in the job, its exact total included.
DO $$
DECLARE trgm text;
BEGIN
    SELECT n.nspname INTO trgm FROM pg_extension AS e JOIN pg_namespace AS n ON n.oid = e.extnamespace
    WHERE e.extname = 'pg_trgm';
    EXECUTE format($f$CREATE INDEX candidates_job_name_trgm_idx ON candidates
        USING gin ((CAST(job_id AS TEXT) || ' ' || name_fold) %I.gin_trgm_ops)$f$, trgm);
    EXECUTE format($f$CREATE INDEX candidates_job_email_trgm_idx ON candidates
        USING gin ((CAST(job_id AS TEXT) || ' ' || email_fold) %I.gin_trgm_ops)$f$, trgm);
END $$;
--bun:split
DROP INDEX candidates_name_trgm_idx;
--bun:split
DROP INDEX candidates_email_trgm_idx;
