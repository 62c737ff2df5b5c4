DROP TABLE IF EXISTS webhook_deliveries;
--bun:split
DROP TABLE IF EXISTS webhooks;
--bun:split
DROP INDEX IF EXISTS activity_team_created_idx;
--bun:split
DROP INDEX IF EXISTS activity_position_idx;
--bun:split
DROP INDEX IF EXISTS activity_feed_idx;
--bun:split
ALTER TABLE activity DROP COLUMN xid;
--bun:split
ALTER TABLE activity DROP COLUMN job_id;
