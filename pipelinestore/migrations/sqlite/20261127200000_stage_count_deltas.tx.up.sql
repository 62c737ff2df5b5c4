-- The deltas of the stages' counts not yet folded into them, which a list's
-- total adds to candidate_count (see the PostgreSQL migration). SQLite has
-- one writer, so its triggers keep updating candidate_count in place and
-- this table stays empty: it is here so that both databases read a total
-- with the same query.
CREATE TABLE stage_count_deltas (
    job_id INTEGER NOT NULL,
    stage_id INTEGER NOT NULL,
    delta INTEGER NOT NULL
);
--bun:split
CREATE INDEX stage_count_deltas_job_stage_idx ON stage_count_deltas (job_id, stage_id);
