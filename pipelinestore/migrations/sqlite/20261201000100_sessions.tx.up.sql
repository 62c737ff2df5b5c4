-- The people's pages: one-time sign-in links, sessions, and the token
-- forms already sent. Links and sessions keep only hashes of their
-- secrets.
CREATE TABLE sign_in_links (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    hash TEXT NOT NULL UNIQUE,
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    used_at TIMESTAMP
);
--bun:split
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    team_id INTEGER NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    hash TEXT NOT NULL UNIQUE,
    created_at TIMESTAMP NOT NULL,
    last_seen_at TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX sessions_user_id_idx ON sessions (user_id);
--bun:split
CREATE TABLE token_forms (
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    form_hash TEXT NOT NULL,
    token_id INTEGER NOT NULL REFERENCES tokens (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, form_hash)
);
