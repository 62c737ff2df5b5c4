-- Interviews of a job's candidates. start and end are whole seconds in
-- UTC; an interview occupies [starts_at, ends_at), so back-to-back slots
-- do not overlap. The one writer checks for an overlap before it writes
-- (see pipelinestore/interview.go).
CREATE TABLE interviews (
    id INTEGER PRIMARY KEY,
    job_id INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    candidate_id INTEGER NOT NULL REFERENCES candidates (id) ON DELETE CASCADE,
    starts_at TIMESTAMP NOT NULL,
    ends_at TIMESTAMP NOT NULL CHECK (ends_at > starts_at),
    timezone TEXT NOT NULL,
    location TEXT NOT NULL DEFAULT '',
    video_url TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL CHECK (status IN ('scheduled', 'cancelled')),
    sequence INTEGER NOT NULL DEFAULT 0,
    created_by INTEGER NOT NULL REFERENCES users (id),
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
--bun:split
-- Backs a candidate's list of interviews, by start, and the candidate's
-- busy times.
CREATE INDEX interviews_candidate_start_idx ON interviews (candidate_id, starts_at, id);
--bun:split
-- Each interviewer of an interview, in the order given, with the
-- interview's times and whether it is scheduled (active) copied, as on
-- PostgreSQL.
CREATE TABLE interview_interviewers (
    interview_id INTEGER NOT NULL REFERENCES interviews (id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    starts_at TIMESTAMP NOT NULL,
    ends_at TIMESTAMP NOT NULL,
    active BOOLEAN NOT NULL,
    PRIMARY KEY (interview_id, user_id)
);
--bun:split
-- Backs the interviewers' busy times.
CREATE INDEX interview_interviewers_busy_idx ON interview_interviewers (user_id, starts_at) WHERE active;
