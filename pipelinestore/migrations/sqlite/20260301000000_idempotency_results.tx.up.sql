-- Idempotency records keep the write's domain result, which each face of the
-- API renders, instead of an HTTP status and body. Records written before
-- are dropped: they hold responses, not results.
DROP TABLE idempotency_keys;
--bun:split
CREATE TABLE idempotency_keys (
    team_id INTEGER NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    request TEXT NOT NULL,
    result BLOB NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (team_id, key)
);
--bun:split
-- Backs the purge of expired records.
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);
--bun:split
CREATE INDEX idempotency_keys_user_id_idx ON idempotency_keys (user_id);
