DROP INDEX users_email_fold_idx;
--bun:split
CREATE UNIQUE INDEX users_email_idx ON users (lower(email));
--bun:split
ALTER TABLE users DROP COLUMN email_fold;
