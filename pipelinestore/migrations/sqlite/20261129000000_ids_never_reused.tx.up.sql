-- A webhook's id, and a delivery attempt's, is never handed out again:
-- without AUTOINCREMENT SQLite gives a new row the largest id plus one, so
-- deleting the newest webhook, or purging every attempt, let the next one
-- take an id a client had already seen. SQLite cannot add AUTOINCREMENT to
-- a table, so both are built again, the attempts first kept aside: with
-- foreign keys on, dropping webhooks would delete them.
CREATE TABLE webhooks_next (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    team_id INTEGER NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    secret BLOB NOT NULL,
    created_by INTEGER NOT NULL REFERENCES users (id),
    created_at TIMESTAMP NOT NULL
);
--bun:split
INSERT INTO webhooks_next (id, team_id, url, events, description, secret, created_by, created_at)
SELECT id, team_id, url, events, description, secret, created_by, created_at FROM webhooks;
--bun:split
CREATE TABLE webhook_deliveries_next (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    webhook_id INTEGER NOT NULL REFERENCES webhooks_next (id) ON DELETE CASCADE,
    activity_id INTEGER NOT NULL REFERENCES activity (id),
    action TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    status_code INTEGER,
    error TEXT NOT NULL DEFAULT '',
    duration_ms INTEGER NOT NULL,
    attempted_at TIMESTAMP NOT NULL,
    next_attempt_at TIMESTAMP
);
--bun:split
INSERT INTO webhook_deliveries_next (id, webhook_id, activity_id, action, attempt, status_code, error, duration_ms, attempted_at, next_attempt_at)
SELECT id, webhook_id, activity_id, action, attempt, status_code, error, duration_ms, attempted_at, next_attempt_at FROM webhook_deliveries;
--bun:split
DROP TABLE webhook_deliveries;
--bun:split
DROP TABLE webhooks;
--bun:split
-- Renaming rewrites the attempts' reference to webhooks_next as well.
ALTER TABLE webhooks_next RENAME TO webhooks;
--bun:split
ALTER TABLE webhook_deliveries_next RENAME TO webhook_deliveries;
--bun:split
CREATE INDEX webhooks_team_created_idx ON webhooks (team_id, created_at DESC, id DESC);
--bun:split
CREATE INDEX webhooks_created_by_idx ON webhooks (created_by);
--bun:split
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, id DESC);
--bun:split
CREATE INDEX webhook_deliveries_activity_idx ON webhook_deliveries (activity_id);
--bun:split
-- Backs the purge of old attempts.
CREATE INDEX webhook_deliveries_attempted_idx ON webhook_deliveries (attempted_at);
