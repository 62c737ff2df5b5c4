-- Documents of candidates (workflow.md §4). The bytes are in
-- document_contents, or in an object store under the document's id,
-- which AUTOINCREMENT never hands out twice.
CREATE TABLE documents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    candidate_id INTEGER NOT NULL REFERENCES candidates (id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    filename TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    text_status TEXT NOT NULL,
    text_truncated INTEGER NOT NULL DEFAULT 0,
    text TEXT,
    created_at TIMESTAMP NOT NULL
);
--bun:split
-- A candidate's documents are listed newest first.
CREATE INDEX documents_candidate_created_idx ON documents (candidate_id, created_at, id);
--bun:split
CREATE INDEX documents_user_id_idx ON documents (user_id);
--bun:split
CREATE TABLE document_contents (
    document_id INTEGER PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
    content BLOB NOT NULL
);
