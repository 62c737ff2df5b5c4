DROP TABLE IF EXISTS webhook_deliveries;
--bun:split
DROP TABLE IF EXISTS webhooks;
--bun:split
DROP INDEX IF EXISTS activity_team_created_idx;
--bun:split
ALTER TABLE activity DROP COLUMN job_id;
