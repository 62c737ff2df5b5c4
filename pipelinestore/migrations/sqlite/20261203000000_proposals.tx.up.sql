-- Writes held for a person's decision (oversight.md §3): the REST request
-- each stands for, who asked, and what became of it.
CREATE TABLE proposals (
    id INTEGER PRIMARY KEY,
    team_id INTEGER NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    job_id INTEGER REFERENCES jobs (id) ON DELETE CASCADE,
    -- The candidate it is about, when its path names one (erasure finds it).
    candidate_id INTEGER REFERENCES candidates (id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_id INTEGER NOT NULL REFERENCES tokens (id) ON DELETE CASCADE,
    operation TEXT NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    input TEXT NOT NULL,
    reason TEXT,
    digest TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    decided_by_user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
    decided_by_token_id INTEGER REFERENCES tokens (id) ON DELETE SET NULL,
    decided_at TIMESTAMP,
    note TEXT,
    result TEXT
);
--bun:split
-- The same request again, and the count of a token's pending proposals.
CREATE INDEX proposals_token_status_idx ON proposals (token_id, status, digest);
--bun:split
-- A person's erasure finds the proposals about their candidates.
CREATE INDEX proposals_candidate_idx ON proposals (candidate_id);
--bun:split
-- The pass that closes pending proposals past their time.
CREATE INDEX proposals_pending_idx ON proposals (status, expires_at);
--bun:split
-- A team's proposals are listed newest first.
CREATE INDEX proposals_team_created_idx ON proposals (team_id, created_at, id);
--bun:split
-- Who approved the write an entry records (oversight.md §3), as JSON
-- {user: {id, name}, token_id}; NULL on every entry that was not approved.
ALTER TABLE activity ADD COLUMN approved_by TEXT;
