-- PostgreSQL's identity columns never hand out an id twice; only SQLite's
-- tables needed building again.
SELECT 1;
