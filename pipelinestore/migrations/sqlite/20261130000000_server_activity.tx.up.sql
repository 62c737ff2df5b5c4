-- The server logs what it did by itself (a message sent or failed by the
-- mail queue): such an entry has no user, as it has no token or address.
-- SQLite cannot drop a NOT NULL, so the log is built again, with the
-- delivery attempts that refer to it kept aside first: with foreign keys
-- on, dropping the log would delete them.
CREATE TABLE activity_next (
    id INTEGER PRIMARY KEY,
    team_id INTEGER NOT NULL REFERENCES teams (id),
    user_id INTEGER REFERENCES users (id),
    token_id INTEGER,
    ip TEXT NOT NULL DEFAULT '',
    action TEXT NOT NULL,
    subject_type TEXT NOT NULL,
    subject_id INTEGER NOT NULL,
    changes TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    job_id INTEGER
);
--bun:split
INSERT INTO activity_next (id, team_id, user_id, token_id, ip, action, subject_type, subject_id, changes, created_at, job_id)
SELECT id, team_id, user_id, token_id, ip, action, subject_type, subject_id, changes, created_at, job_id FROM activity;
--bun:split
CREATE TABLE webhook_deliveries_next (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    activity_id INTEGER NOT NULL REFERENCES activity_next (id),
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
-- AUTOINCREMENT's counter goes with the table: keep it, so that no id of
-- a purged attempt is handed out again.
DELETE FROM sqlite_sequence WHERE name = 'webhook_deliveries_next';
--bun:split
INSERT INTO sqlite_sequence (name, seq) SELECT 'webhook_deliveries_next', seq FROM sqlite_sequence WHERE name = 'webhook_deliveries';
--bun:split
DROP TABLE webhook_deliveries;
--bun:split
DROP TABLE activity;
--bun:split
-- Renaming rewrites the attempts' reference to activity_next as well.
ALTER TABLE activity_next RENAME TO activity;
--bun:split
ALTER TABLE webhook_deliveries_next RENAME TO webhook_deliveries;
--bun:split
CREATE INDEX activity_team_id_idx ON activity (team_id, id);
--bun:split
CREATE INDEX activity_user_id_idx ON activity (user_id);
--bun:split
CREATE INDEX activity_team_created_idx ON activity (team_id, created_at);
--bun:split
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, id DESC);
--bun:split
CREATE INDEX webhook_deliveries_activity_idx ON webhook_deliveries (activity_id);
--bun:split
CREATE INDEX webhook_deliveries_attempted_idx ON webhook_deliveries (attempted_at);
