DROP INDEX candidates_job_email_key;
