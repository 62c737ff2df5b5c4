-- Messages to candidates: the domain's record of each email, its status
-- and its attempts. The River job that sends it is enqueued in the same
-- transaction as the row.
CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    candidate_id INTEGER NOT NULL REFERENCES candidates (id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    recipient TEXT NOT NULL,
    reply_to TEXT NOT NULL,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    status TEXT NOT NULL,
    send_at TIMESTAMP NOT NULL,
    sent_at TIMESTAMP,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    created_at TIMESTAMP NOT NULL
);
--bun:split
-- A candidate's messages are listed newest first.
CREATE INDEX messages_candidate_created_idx ON messages (candidate_id, created_at, id);
--bun:split
CREATE INDEX messages_user_id_idx ON messages (user_id);
