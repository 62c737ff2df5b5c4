-- Idempotency records keep the write's domain result, which each face of the
-- API renders, instead of an HTTP status and body. Records written before
-- are dropped: they hold responses, not results.
DROP TABLE idempotency_keys;
--bun:split
CREATE TABLE idempotency_keys (
    team_id bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    key text NOT NULL,
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    request text NOT NULL,
    result bytea NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (team_id, key)
);
--bun:split
-- Backs the purge of expired records.
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);
--bun:split
CREATE INDEX idempotency_keys_user_id_idx ON idempotency_keys (user_id);
