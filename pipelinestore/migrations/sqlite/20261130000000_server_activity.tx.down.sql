-- The column stays nullable; the server's own entries go, with their
-- delivery attempts.
DELETE FROM webhook_deliveries WHERE activity_id IN (SELECT id FROM activity WHERE user_id IS NULL);
--bun:split
DELETE FROM activity WHERE user_id IS NULL;
