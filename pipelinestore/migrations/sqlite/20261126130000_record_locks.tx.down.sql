-- SQLite's write transactions are serialized whole (one writer, BEGIN
-- IMMEDIATE): the record locks of PostgreSQL's migration of this name have
-- nothing to add here.
SELECT 1;
