DO $$
DECLARE trgm text;
BEGIN
    SELECT n.nspname INTO trgm FROM pg_extension AS e JOIN pg_namespace AS n ON n.oid = e.extnamespace
    WHERE e.extname = 'pg_trgm';
    EXECUTE format('CREATE INDEX candidates_name_trgm_idx ON candidates USING gin (name_fold %I.gin_trgm_ops)', trgm);
    EXECUTE format('CREATE INDEX candidates_email_trgm_idx ON candidates USING gin (email_fold %I.gin_trgm_ops)', trgm);
END $$;
--bun:split
DROP INDEX candidates_job_name_trgm_idx;
--bun:split
DROP INDEX candidates_job_email_trgm_idx;
