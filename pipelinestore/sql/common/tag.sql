-- A team's tags (pipeline/tag.go). Their writes hold the team locked
-- (TeamTx.Lock), which serializes the team's names and count.

-- name: InsertTag
INSERT INTO tags (team_id, name, name_fold, created_at) VALUES ($1, $2, $3, $4) RETURNING id;

-- TagNameTaken is whether a tag of the team $1 other than $3 has the
-- folded name $2.
-- name: TagNameTaken
SELECT CASE WHEN EXISTS (SELECT 1 FROM tags
	WHERE team_id = $1 AND name_fold = $2 AND id <> $3) THEN 1 ELSE 0 END AS taken;

-- name: TagsCount
SELECT count(*) FROM tags WHERE team_id = $1;

-- name: TeamTags
SELECT id, team_id, name, created_at FROM tags WHERE team_id = $1 ORDER BY id;

-- name: Tag
SELECT id, team_id, name, created_at FROM tags WHERE id = $1 AND team_id = $2;

-- name: RenameTag
UPDATE tags SET name = $2, name_fold = $3 WHERE id = $1;

-- Its candidate_tags go by cascade.
-- name: DeleteTag
DELETE FROM tags WHERE id = $1;

-- CandidateTags are the tags candidate $1 carries, oldest tag first.
-- name: CandidateTags
SELECT t.id, t.team_id, t.name, t.created_at FROM candidate_tags AS ct JOIN tags AS t ON t.id = ct.tag_id
WHERE ct.candidate_id = $1 ORDER BY t.id;

-- name: PutTag
INSERT INTO candidate_tags (candidate_id, tag_id, created_at) VALUES ($1, $2, $3);

-- name: TakeTag
DELETE FROM candidate_tags WHERE candidate_id = $1 AND tag_id = $2;
