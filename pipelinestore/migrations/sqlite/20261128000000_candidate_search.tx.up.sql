-- PostgreSQL keeps a narrow copy of each candidate's searched text for the
-- searches of large jobs. SQLite searches scan the job's candidates.
SELECT 1;
