-- PostgreSQL serves a job's search with trigram indexes keyed by the job.
-- SQLite has no trigram index: a search reads the job's candidates.
SELECT 1;
