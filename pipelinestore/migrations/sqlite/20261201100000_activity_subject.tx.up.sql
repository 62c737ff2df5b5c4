-- The entries about a candidate: what an erasure rewrites, an export
-- shows, and the retention pass reads for the last activity about each
-- (privacy.md), each by the subject rather than by a scan of the log.
CREATE INDEX activity_subject_idx ON activity (subject_type, subject_id, created_at);
