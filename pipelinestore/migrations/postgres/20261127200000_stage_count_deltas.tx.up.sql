-- A stage's number of candidates is its candidate_count plus the deltas
-- not yet folded into it. A change appends its deltas, a row each, in its
-- own transaction; a fold (pipeline_fold_stage_counts, run in the
-- background) moves committed deltas into the stages in one transaction.
-- A read sums both in one snapshot, so the total stays exact, while
-- concurrent moves of one job no longer queue on its stages' rows: appending
-- rows locks nothing another writer needs.
--
-- No foreign key: its check would lock the stage's row in share mode in
-- every change, the contention this table exists to avoid. A job deleted
-- with its stages leaves deltas that the next fold drops.
CREATE TABLE stage_count_deltas (
    job_id bigint NOT NULL,
    stage_id bigint NOT NULL,
    delta bigint NOT NULL
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000);
--bun:split
CREATE INDEX stage_count_deltas_job_stage_idx ON stage_count_deltas (job_id, stage_id);
--bun:split
CREATE OR REPLACE FUNCTION pipeline_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO stage_count_deltas (job_id, stage_id, delta)
    SELECT job_id, stage_id, count(*) FROM new_rows GROUP BY job_id, stage_id;
    RETURN NULL;
END $$;
--bun:split
CREATE OR REPLACE FUNCTION pipeline_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO stage_count_deltas (job_id, stage_id, delta)
    SELECT job_id, stage_id, -count(*) FROM old_rows GROUP BY job_id, stage_id;
    RETURN NULL;
END $$;
--bun:split
CREATE OR REPLACE FUNCTION pipeline_count_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO stage_count_deltas (job_id, stage_id, delta)
    VALUES (OLD.job_id, OLD.stage_id, -1), (NEW.job_id, NEW.stage_id, 1);
    RETURN NULL;
END $$;
--bun:split
-- Folds the committed deltas into the stages and returns how many it
-- folded; 0 at once when another fold of the schema is running. The
-- deletion and the update commit together: a reader sees the deltas or
-- their sum in the stages, never both nor neither. Deltas committed after
-- the fold's snapshot stay for the next one.
CREATE FUNCTION pipeline_fold_stage_counts() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE folded bigint;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtextextended(current_schema() || ':fold:stage_counts', 0)) THEN
        RETURN 0;
    END IF;
    -- Every part of the statement runs, the update included, whatever
    -- the final SELECT reads.
    WITH d AS (DELETE FROM stage_count_deltas RETURNING stage_id, delta),
    s AS (SELECT stage_id, sum(delta) AS n, count(*) AS rows FROM d GROUP BY stage_id),
    u AS (UPDATE stages AS st SET candidate_count = st.candidate_count + s.n FROM s WHERE st.id = s.stage_id AND s.n <> 0)
    SELECT COALESCE(sum(rows), 0) INTO folded FROM s;
    RETURN folded;
END $$;
