DROP TRIGGER IF EXISTS candidates_search_updated ON candidates;
--bun:split
DROP TRIGGER IF EXISTS candidates_search_deleted ON candidates;
--bun:split
DROP TRIGGER IF EXISTS candidates_search_inserted ON candidates;
--bun:split
DROP FUNCTION IF EXISTS pipeline_search_updated, pipeline_search_deleted, pipeline_search_inserted;
--bun:split
DROP TABLE IF EXISTS candidate_search;
--bun:split
DO $$
DECLARE trgm text;
BEGIN
    SELECT n.nspname INTO trgm FROM pg_extension AS e JOIN pg_namespace AS n ON n.oid = e.extnamespace
    WHERE e.extname = 'pg_trgm';
    EXECUTE format('CREATE INDEX IF NOT EXISTS candidates_name_trgm_idx ON candidates USING gin (name_fold %I.gin_trgm_ops)', trgm);
    EXECUTE format('CREATE INDEX IF NOT EXISTS candidates_email_trgm_idx ON candidates USING gin (email_fold %I.gin_trgm_ops)', trgm);
END $$;
