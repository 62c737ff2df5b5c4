-- A token's approval policy (oversight.md §2): the write operations it may
-- only propose, comma-separated and sorted, or '*'; '' for none.
ALTER TABLE tokens ADD COLUMN approval TEXT NOT NULL DEFAULT '';
