-- A team's tags (evaluation.md §7): a name unique in the team in any
-- letter case, compared as pipeline.Fold folds it (name_fold), and the
-- tags each candidate carries. A tag's deletion takes it off every
-- candidate; a candidate's row going takes its tags off it.
CREATE TABLE tags (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    team_id INTEGER NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    name_fold TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
--bun:split
CREATE UNIQUE INDEX tags_team_name_fold_key ON tags (team_id, name_fold);
--bun:split
-- The team's list, oldest first.
CREATE INDEX tags_team_id_idx ON tags (team_id, id);
--bun:split
CREATE TABLE candidate_tags (
    candidate_id INTEGER NOT NULL REFERENCES candidates (id) ON DELETE CASCADE,
    tag_id INTEGER NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (candidate_id, tag_id)
);
--bun:split
-- A tag's candidates: the list's filter, and the tag's deletion.
CREATE INDEX candidate_tags_tag_idx ON candidate_tags (tag_id, candidate_id);
