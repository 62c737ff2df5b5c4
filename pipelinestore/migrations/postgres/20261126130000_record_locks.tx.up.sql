-- A write takes its record's transaction-scoped advisory lock before the
-- row lock (see recordLock in pipelinestore/query.go): writers of one
-- record then queue without holding a transaction id, so their ids, and
-- with them the feed's order, follow the order their changes took effect.
-- The key is the schema, the kind of record and its id, hashed into the
-- one advisory lock space the database's schemas share.
CREATE FUNCTION pipeline_lock_record(kind text, id bigint) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(current_schema() || ':' || kind || ':' || id::text, 0));
    RETURN true;
END $$;
