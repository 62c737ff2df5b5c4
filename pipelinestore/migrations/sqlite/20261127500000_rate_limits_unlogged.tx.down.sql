-- PostgreSQL keeps the rate-limit counts without a write-ahead log. SQLite
-- keeps them in memory (see DB.Limiter).
SELECT 1;
