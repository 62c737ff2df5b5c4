-- Each stage counts its candidates, so that a list's total is read, not
-- counted. Triggers keep the counts in the transaction of every change
-- that moves them, whoever writes the rows.
ALTER TABLE stages ADD COLUMN candidate_count bigint NOT NULL DEFAULT 0;
--bun:split
UPDATE stages AS s SET candidate_count = (SELECT count(*) FROM candidates AS c WHERE c.stage_id = s.id);
--bun:split
-- Stage rows are locked in id order before they change, so that two
-- transactions moving candidates between the same stages in opposite
-- directions wait for each other instead of deadlocking.
CREATE FUNCTION pipeline_add_stage_counts(deltas jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM stages WHERE id IN (SELECT key::bigint FROM jsonb_each_text(deltas)) ORDER BY id FOR NO KEY UPDATE;
    UPDATE stages AS s SET candidate_count = s.candidate_count + d.value::bigint
    FROM jsonb_each_text(deltas) AS d WHERE s.id = d.key::bigint;
END $$;
--bun:split
-- Inserts and deletes count per statement, so that a bulk load updates each
-- stage once.
CREATE FUNCTION pipeline_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pipeline_add_stage_counts(
        (SELECT jsonb_object_agg(stage_id, n) FROM (SELECT stage_id, count(*) AS n FROM new_rows GROUP BY stage_id) AS c));
    RETURN NULL;
END $$;
--bun:split
CREATE FUNCTION pipeline_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pipeline_add_stage_counts(
        (SELECT jsonb_object_agg(stage_id, -n) FROM (SELECT stage_id, count(*) AS n FROM old_rows GROUP BY stage_id) AS c));
    RETURN NULL;
END $$;
--bun:split
-- A move is one row: a row trigger, fired only when the stage changes,
-- that updates the two stages lower id first.
CREATE FUNCTION pipeline_count_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE stages SET candidate_count = candidate_count + CASE WHEN id = NEW.stage_id THEN 1 ELSE -1 END
    WHERE id = least(OLD.stage_id, NEW.stage_id);
    UPDATE stages SET candidate_count = candidate_count + CASE WHEN id = NEW.stage_id THEN 1 ELSE -1 END
    WHERE id = greatest(OLD.stage_id, NEW.stage_id);
    RETURN NULL;
END $$;
--bun:split
CREATE TRIGGER candidates_count_inserted AFTER INSERT ON candidates
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pipeline_count_inserted();
--bun:split
CREATE TRIGGER candidates_count_deleted AFTER DELETE ON candidates
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pipeline_count_deleted();
--bun:split
CREATE TRIGGER candidates_count_moved AFTER UPDATE OF stage_id ON candidates
    FOR EACH ROW WHEN (OLD.stage_id IS DISTINCT FROM NEW.stage_id) EXECUTE FUNCTION pipeline_count_moved();
--bun:split
-- Each candidate counts its notes, kept by row triggers in the note's own
-- transaction: a candidate read under its row lock then sees the count as
-- committed, in the same statement.
ALTER TABLE candidates ADD COLUMN notes_count bigint NOT NULL DEFAULT 0;
--bun:split
UPDATE candidates AS c SET notes_count = (SELECT count(*) FROM notes AS n WHERE n.candidate_id = c.id)
WHERE EXISTS (SELECT 1 FROM notes AS n WHERE n.candidate_id = c.id);
--bun:split
CREATE FUNCTION pipeline_count_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE candidates SET notes_count = notes_count + 1 WHERE id = NEW.candidate_id;
    ELSE
        UPDATE candidates SET notes_count = notes_count - 1 WHERE id = OLD.candidate_id;
    END IF;
    RETURN NULL;
END $$;
--bun:split
CREATE TRIGGER notes_count AFTER INSERT OR DELETE ON notes FOR EACH ROW EXECUTE FUNCTION pipeline_count_note();
--bun:split
-- The stage filter of the candidate list: a stage's candidates, newest
-- applicant first, with the job for the list's condition on it.
DROP INDEX candidates_stage_id_idx;
--bun:split
CREATE INDEX candidates_stage_applied_idx ON candidates (job_id, stage_id, applied DESC, id DESC);
--bun:split
-- Substring search (LIKE '%…%') on the folded columns, served by trigram
-- indexes. pg_trgm is a trusted extension of PostgreSQL's contrib; the
-- operator class is named in whatever schema the extension lives in.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--bun:split
DO $$
DECLARE trgm text;
BEGIN
    SELECT n.nspname INTO trgm FROM pg_extension AS e JOIN pg_namespace AS n ON n.oid = e.extnamespace
    WHERE e.extname = 'pg_trgm';
    EXECUTE format('CREATE INDEX candidates_name_trgm_idx ON candidates USING gin (name_fold %I.gin_trgm_ops)', trgm);
    EXECUTE format('CREATE INDEX candidates_email_trgm_idx ON candidates USING gin (email_fold %I.gin_trgm_ops)', trgm);
    EXECUTE format('CREATE INDEX jobs_title_trgm_idx ON jobs USING gin (title_fold %I.gin_trgm_ops)', trgm);
END $$;
--bun:split
-- Claims an idempotency key in one round trip: the key's advisory lock,
-- tried without waiting, then, holding it, the key's record. The function is
-- VOLATILE, so its query takes a snapshot of its own after the lock is held
-- and sees the record of a transaction that committed while the calling
-- statement waited: a lock and a read in one statement of the caller's
-- could miss it.
CREATE FUNCTION pipeline_claim_key(lock_id bigint, team bigint, k text, since timestamptz)
RETURNS TABLE (locked boolean, user_id bigint, request text, result bytea, created_at timestamptz)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    IF NOT pg_try_advisory_xact_lock(lock_id) THEN
        RETURN QUERY SELECT false, NULL::bigint, NULL::text, NULL::bytea, NULL::timestamptz;
        RETURN;
    END IF;
    RETURN QUERY SELECT true, i.user_id, i.request, i.result, i.created_at FROM idempotency_keys AS i
        WHERE i.team_id = team AND i.key = k AND i.created_at >= since;
    IF NOT FOUND THEN
        RETURN QUERY SELECT true, NULL::bigint, NULL::text, NULL::bytea, NULL::timestamptz;
    END IF;
END $$;
