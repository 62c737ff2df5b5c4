DELETE FROM webhook_deliveries WHERE activity_id IN (SELECT id FROM activity WHERE user_id IS NULL);
--bun:split
DELETE FROM activity WHERE user_id IS NULL;
--bun:split
ALTER TABLE activity ALTER COLUMN user_id SET NOT NULL;
