DROP TABLE IF EXISTS rate_limits, idempotency_keys, activity, tokens, ratings, notes, candidates, stages, job_assignees, jobs, memberships, users, teams;
