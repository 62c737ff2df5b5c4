-- Privacy (privacy.md). erased_at marks a candidate whose person was
-- erased; closed_at is when a job last changed to closed, from which a
-- team's retention period counts. A team's retention period (0: off)
-- takes effect 7 days after it is set when it is new or shorter: until
-- then retention_previous_days, the period in effect when it was set,
-- applies.
ALTER TABLE candidates ADD COLUMN erased_at TIMESTAMP;
--bun:split
ALTER TABLE jobs ADD COLUMN closed_at TIMESTAMP;
--bun:split
UPDATE jobs SET closed_at = updated_at WHERE status = 'closed';
--bun:split
ALTER TABLE teams ADD COLUMN retention_days INTEGER NOT NULL DEFAULT 0 CHECK (retention_days >= 0);
--bun:split
ALTER TABLE teams ADD COLUMN retention_previous_days INTEGER NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE teams ADD COLUMN retention_set_at TIMESTAMP;
