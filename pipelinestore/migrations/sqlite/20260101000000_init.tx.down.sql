DROP TABLE IF EXISTS rate_limits;
--bun:split
DROP TABLE IF EXISTS idempotency_keys;
--bun:split
DROP TABLE IF EXISTS activity;
--bun:split
DROP TABLE IF EXISTS tokens;
--bun:split
DROP TABLE IF EXISTS ratings;
--bun:split
DROP TABLE IF EXISTS notes;
--bun:split
DROP TABLE IF EXISTS candidates;
--bun:split
DROP TABLE IF EXISTS stages;
--bun:split
DROP TABLE IF EXISTS job_assignees;
--bun:split
DROP TABLE IF EXISTS jobs;
--bun:split
DROP TABLE IF EXISTS memberships;
--bun:split
DROP TABLE IF EXISTS users;
--bun:split
DROP TABLE IF EXISTS teams;
