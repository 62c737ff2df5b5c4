ALTER TABLE activity DROP COLUMN approved_by;
--bun:split
DROP TABLE proposals;
