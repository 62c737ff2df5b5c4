-- A team's key names it to operators and seed files, uniquely and for good,
-- so that seeding a team again is refused instead of making a second one.
-- Teams made before keys existed get "team-<id>". SQLite cannot add a NOT
-- NULL column without a default: the store always sets it.
ALTER TABLE teams ADD COLUMN key TEXT;
--bun:split
UPDATE teams SET key = 'team-' || id;
--bun:split
CREATE UNIQUE INDEX teams_key_idx ON teams (key);
