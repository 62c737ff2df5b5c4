-- A key's claim returns one row. Planned as a thousand (a set-returning
-- function's default), the locked read joined beside it was wrapped in a
-- cache by key (Memoize), set up anew for every claim.
ALTER FUNCTION pipeline_claim_key(bigint, bigint, text, timestamptz) ROWS 1;
--bun:split
-- In SQL the record's lock is an expression the planner writes into the
-- statement that takes it, instead of a call into PL/pgSQL per statement.
-- It is taken where the statement's filters put it: always before the
-- row lock, which comes after every filter.
CREATE OR REPLACE FUNCTION pipeline_lock_record(kind text, id bigint) RETURNS boolean LANGUAGE sql VOLATILE AS $$
    SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || ':' || kind || ':' || id::text, 0)) IS NOT NULL
$$;
