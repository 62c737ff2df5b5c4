ALTER TABLE tokens DROP COLUMN approval;
