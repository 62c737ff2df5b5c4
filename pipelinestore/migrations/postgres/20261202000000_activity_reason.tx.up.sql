-- Why a write was made, in its caller's words (oversight.md §1); NULL when
-- no reason was given, and on entries the server makes itself.
ALTER TABLE activity ADD COLUMN reason TEXT;
