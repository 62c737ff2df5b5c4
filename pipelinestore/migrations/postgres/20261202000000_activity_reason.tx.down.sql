ALTER TABLE activity DROP COLUMN reason;
