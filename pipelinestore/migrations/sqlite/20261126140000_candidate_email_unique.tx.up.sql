-- A job has at most one candidate with an email in any letter case: the
-- folded email (pipeline.Fold) is unique per job. The index holds it for
-- concurrent intakes on any number of replicas, and finds a taken email
-- for the intake's check.
CREATE UNIQUE INDEX candidates_job_email_key ON candidates (job_id, email_fold);
