DROP TABLE candidate_tags;
--bun:split
DROP TABLE tags;
