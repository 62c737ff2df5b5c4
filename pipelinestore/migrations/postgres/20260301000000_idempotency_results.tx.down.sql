DROP TABLE idempotency_keys;
--bun:split
CREATE TABLE idempotency_keys (
    team_id bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    key text NOT NULL,
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    fingerprint text NOT NULL,
    status integer NOT NULL,
    body bytea NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (team_id, key)
);
--bun:split
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);
--bun:split
CREATE INDEX idempotency_keys_user_id_idx ON idempotency_keys (user_id);
