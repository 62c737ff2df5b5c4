CREATE OR REPLACE FUNCTION pipeline_lock_record(kind text, id bigint) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(current_schema() || ':' || kind || ':' || id::text, 0));
    RETURN true;
END $$;
--bun:split
ALTER FUNCTION pipeline_claim_key(bigint, bigint, text, timestamptz) ROWS 1000;
