-- The activity feed and webhooks (events.md). Each entry names the job it
-- concerns, so that the feed applies the visibility rule to it; a
-- webhook's entries name none. SQLite commits one writer at a time and
-- hands out ids in that order, so the feed follows ids alone.
ALTER TABLE activity ADD COLUMN job_id INTEGER;
--bun:split
UPDATE activity SET job_id = subject_id WHERE subject_type = 'job';
--bun:split
UPDATE activity SET job_id = (SELECT c.job_id FROM candidates AS c WHERE c.id = activity.subject_id)
WHERE subject_type = 'candidate';
--bun:split
-- The feed's since parameter.
CREATE INDEX activity_team_created_idx ON activity (team_id, created_at);
--bun:split
-- events: the actions selected, comma-separated; '' selects every action.
-- secret: the signing secret sealed with the server's key (AES-256-GCM).
CREATE TABLE webhooks (
    id INTEGER PRIMARY KEY,
    team_id INTEGER NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    secret BLOB NOT NULL,
    created_by INTEGER NOT NULL REFERENCES users (id),
    created_at TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX webhooks_team_created_idx ON webhooks (team_id, created_at DESC, id DESC);
--bun:split
CREATE INDEX webhooks_created_by_idx ON webhooks (created_by);
--bun:split
CREATE TABLE webhook_deliveries (
    id INTEGER PRIMARY KEY,
    webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
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
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, id DESC);
--bun:split
CREATE INDEX webhook_deliveries_activity_idx ON webhook_deliveries (activity_id);
--bun:split
-- Backs the purge of old attempts.
CREATE INDEX webhook_deliveries_attempted_idx ON webhook_deliveries (attempted_at);
