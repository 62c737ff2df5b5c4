SELECT pipeline_fold_stage_counts();
--bun:split
DROP FUNCTION pipeline_fold_stage_counts();
--bun:split
CREATE OR REPLACE FUNCTION pipeline_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pipeline_add_stage_counts(
        (SELECT jsonb_object_agg(stage_id, n) FROM (SELECT stage_id, count(*) AS n FROM new_rows GROUP BY stage_id) AS c));
    RETURN NULL;
END $$;
--bun:split
CREATE OR REPLACE FUNCTION pipeline_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pipeline_add_stage_counts(
        (SELECT jsonb_object_agg(stage_id, -n) FROM (SELECT stage_id, count(*) AS n FROM old_rows GROUP BY stage_id) AS c));
    RETURN NULL;
END $$;
--bun:split
CREATE OR REPLACE FUNCTION pipeline_count_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE stages SET candidate_count = candidate_count + CASE WHEN id = NEW.stage_id THEN 1 ELSE -1 END
    WHERE id = least(OLD.stage_id, NEW.stage_id);
    UPDATE stages SET candidate_count = candidate_count + CASE WHEN id = NEW.stage_id THEN 1 ELSE -1 END
    WHERE id = greatest(OLD.stage_id, NEW.stage_id);
    RETURN NULL;
END $$;
--bun:split
DROP TABLE stage_count_deltas;
