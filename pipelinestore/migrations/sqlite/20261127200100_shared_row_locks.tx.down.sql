-- PostgreSQL drops foreign keys whose checks locked rows that many writers
-- share. SQLite's checks lock nothing (it has one writer), so its keys
-- stay.
SELECT 1;
