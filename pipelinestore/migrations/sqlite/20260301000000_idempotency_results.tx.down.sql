DROP TABLE idempotency_keys;
--bun:split
CREATE TABLE idempotency_keys (
    team_id INTEGER NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    fingerprint TEXT NOT NULL,
    status INTEGER NOT NULL,
    body BLOB NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (team_id, key)
);
--bun:split
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);
--bun:split
CREATE INDEX idempotency_keys_user_id_idx ON idempotency_keys (user_id);
