-- A team's key names it to operators and seed files, uniquely and for good,
-- so that seeding a team again is refused instead of making a second one.
-- Teams made before keys existed get "team-<id>".
ALTER TABLE teams ADD COLUMN key text;
--bun:split
UPDATE teams SET key = 'team-' || id;
--bun:split
ALTER TABLE teams ALTER COLUMN key SET NOT NULL;
--bun:split
CREATE UNIQUE INDEX teams_key_idx ON teams (key);
