-- A write that cancels a candidate's interviews to come (its status
-- leaving active, its erasure) takes, before its first row lock, which
-- gives its transaction its id, the record lock of the candidate and then
-- of each of the candidate's interviews (pipeline_lock_record; see "The
-- store's SQL" in pipelinestore/statements.go). A change of one of those
-- interviews that took effect before it then took its transaction id
-- before it too, and comes first in the feed; one that comes after
-- waits. The candidates' locks come first, in order of id, then the
-- interviews', in order of id: a writer that holds a candidate's lock
-- schedules its interviews, so the interviews read once those are held
-- are all of them. Each statement of the function reads in a snapshot of
-- its own, taken once the locks before it are held.
CREATE FUNCTION pipeline_lock_candidates(ids bigint[]) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    r bigint;
BEGIN
    FOR r IN SELECT DISTINCT x FROM unnest(ids) AS x ORDER BY x LOOP
        PERFORM pipeline_lock_record('candidate', r);
    END LOOP;
    FOR r IN SELECT i.id FROM interviews AS i WHERE i.candidate_id = ANY(ids) ORDER BY i.id LOOP
        PERFORM pipeline_lock_record('interview', r);
    END LOOP;
    RETURN true;
END $$;
