CREATE TABLE teams (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    job_limit INTEGER CHECK (job_limit >= 0)
);
--bun:split
CREATE TABLE users (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    current_team_id INTEGER NOT NULL REFERENCES teams (id)
);
--bun:split
-- Emails are unique, and looked up, regardless of letter case.
CREATE UNIQUE INDEX users_email_idx ON users (lower(email));
--bun:split
CREATE INDEX users_current_team_id_idx ON users (current_team_id);
--bun:split
CREATE TABLE memberships (
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    team_id INTEGER NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    PRIMARY KEY (user_id, team_id)
);
--bun:split
CREATE INDEX memberships_team_id_idx ON memberships (team_id);
--bun:split
CREATE TABLE jobs (
    id INTEGER PRIMARY KEY,
    team_id INTEGER NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    owner_id INTEGER NOT NULL REFERENCES users (id),
    title TEXT NOT NULL,
    title_fold TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'draft', 'closed')),
    description TEXT NOT NULL DEFAULT '',
    work_mode TEXT NOT NULL DEFAULT 'onsite' CHECK (work_mode IN ('onsite', 'remote', 'hybrid')),
    employment_type TEXT NOT NULL DEFAULT 'full_time'
        CHECK (employment_type IN ('full_time', 'part_time', 'contract', 'internship', 'temporary')),
    application_deadline DATE NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
--bun:split
-- Backs the job list (status filter, newest first) and the plan limit count.
CREATE INDEX jobs_team_status_created_idx ON jobs (team_id, status, created_at DESC, id DESC);
--bun:split
CREATE INDEX jobs_owner_id_idx ON jobs (owner_id);
--bun:split
CREATE TABLE job_assignees (
    job_id INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (job_id, user_id)
);
--bun:split
CREATE INDEX job_assignees_user_id_idx ON job_assignees (user_id);
--bun:split
CREATE TABLE stages (
    id INTEGER PRIMARY KEY,
    job_id INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    position INTEGER NOT NULL,
    UNIQUE (job_id, position),
    -- Target of the candidates' (stage_id, job_id) key: a candidate's stage
    -- is always a stage of the candidate's own job.
    UNIQUE (id, job_id)
);
--bun:split
CREATE TABLE candidates (
    id INTEGER PRIMARY KEY,
    job_id INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    stage_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    name_fold TEXT NOT NULL,
    email_fold TEXT NOT NULL,
    applied DATE NOT NULL,
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'hired', 'rejected', 'withdrawn')),
    resume_url TEXT NOT NULL DEFAULT '',
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    FOREIGN KEY (stage_id, job_id) REFERENCES stages (id, job_id)
);
--bun:split
-- Backs the candidate list: a job's candidates, newest applicant first.
CREATE INDEX candidates_job_applied_idx ON candidates (job_id, applied DESC, id DESC);
--bun:split
CREATE INDEX candidates_stage_id_idx ON candidates (stage_id);
--bun:split
CREATE TABLE notes (
    id INTEGER PRIMARY KEY,
    candidate_id INTEGER NOT NULL REFERENCES candidates (id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    content TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX notes_candidate_id_idx ON notes (candidate_id);
--bun:split
CREATE INDEX notes_user_id_idx ON notes (user_id);
--bun:split
CREATE TABLE ratings (
    candidate_id INTEGER NOT NULL REFERENCES candidates (id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    value TEXT NOT NULL CHECK (value IN ('good_fit', 'maybe', 'not_a_fit')),
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (candidate_id, user_id)
);
--bun:split
CREATE INDEX ratings_user_id_idx ON ratings (user_id);
--bun:split
CREATE TABLE tokens (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    team_id INTEGER NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    scopes TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    last_used_at TIMESTAMP,
    revoked_at TIMESTAMP
);
--bun:split
CREATE INDEX tokens_team_id_idx ON tokens (team_id, created_at, id);
--bun:split
CREATE INDEX tokens_user_id_idx ON tokens (user_id);
--bun:split
-- token_id has no foreign key: the log outlives the tokens it names.
CREATE TABLE activity (
    id INTEGER PRIMARY KEY,
    team_id INTEGER NOT NULL REFERENCES teams (id),
    user_id INTEGER NOT NULL REFERENCES users (id),
    token_id INTEGER,
    ip TEXT NOT NULL DEFAULT '',
    action TEXT NOT NULL,
    subject_type TEXT NOT NULL,
    subject_id INTEGER NOT NULL,
    changes TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX activity_team_id_idx ON activity (team_id, id);
--bun:split
CREATE INDEX activity_user_id_idx ON activity (user_id);
--bun:split
CREATE TABLE idempotency_keys (
    team_id INTEGER NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    fingerprint TEXT NOT NULL,
    status INTEGER NOT NULL,
    body BLOB NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (team_id, key)
);
--bun:split
-- Backs the purge of expired records.
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);
--bun:split
CREATE INDEX idempotency_keys_user_id_idx ON idempotency_keys (user_id);
--bun:split
-- Kept for a uniform schema; SQLite deployments count requests in memory.
CREATE TABLE rate_limits (
    bucket TEXT PRIMARY KEY,
    window_start TIMESTAMP NOT NULL,
    count INTEGER NOT NULL
);
