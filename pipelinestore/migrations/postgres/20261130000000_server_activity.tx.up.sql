-- The server logs what it did by itself (a message sent or failed by the
-- mail queue): such an entry has no user, as it has no token or address.
ALTER TABLE activity ALTER COLUMN user_id DROP NOT NULL;
