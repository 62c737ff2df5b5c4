-- The secret key that seals webhook secrets when the operator gives none
-- (PIPELINE_SECRET_KEY): made once, read by every replica.
CREATE TABLE secret_keys (
    name text PRIMARY KEY,
    key bytea NOT NULL,
    created_at timestamptz NOT NULL
);
