-- A user's email is unique in any letter case, beyond ASCII too: the
-- store keeps it folded as pipeline.Fold folds it (Migrate folds the
-- existing rows again after this, in Go), where lower() folds ASCII only
-- on SQLite.
ALTER TABLE users ADD COLUMN email_fold TEXT NOT NULL DEFAULT '';
--bun:split
UPDATE users SET email_fold = lower(email);
--bun:split
DROP INDEX users_email_idx;
--bun:split
CREATE UNIQUE INDEX users_email_fold_idx ON users (email_fold);
