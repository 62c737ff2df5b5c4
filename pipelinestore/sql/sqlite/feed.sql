-- name: FeedBound
SELECT COALESCE(max(id), 0) FROM activity;

-- The first entry of the viewer's teams created at or after $2 and
-- final by the bound $3.
-- name: FeedStart
SELECT 0 AS seq, id FROM activity
WHERE team_id IN (SELECT team_id FROM memberships WHERE user_id = $1) AND created_at >= $2 AND id <= $3
ORDER BY id LIMIT 1;

-- name: FeedEntry
SELECT a.id, a.team_id, a.job_id, a.user_id, a.token_id, a.action, a.subject_type, a.subject_id, a.changes,
	a.reason, a.approved_by, a.created_at, 0 AS seq, u.name AS user_name FROM activity AS a LEFT JOIN users AS u ON u.id = a.user_id
WHERE a.id = $2 AND a.team_id IN (SELECT fm.team_id FROM memberships AS fm WHERE fm.user_id = $1)
AND CASE WHEN a.job_id IS NULL
	THEN EXISTS (SELECT 1 FROM memberships AS om WHERE om.team_id = a.team_id AND om.user_id = $1
		AND om.role IN ('owner', 'admin'))
	ELSE EXISTS (SELECT 1 FROM jobs AS j WHERE j.id = a.job_id AND {{visible $1}}) END;

-- FeedPage is a page of the feed for viewer $1: the entries after the id
-- $3 up to the last id committed $4, in feed order, at most $5 ($2, the
-- position's sequence, is 0 on SQLite). FeedPageActions is the same for
-- the actions of the JSON array $5, at most $6.
-- name: FeedPage
SELECT a.id, a.team_id, a.job_id, a.user_id, a.token_id, a.action, a.subject_type, a.subject_id, a.changes,
	a.reason, a.approved_by, a.created_at, 0 AS seq, u.name AS user_name FROM activity AS a LEFT JOIN users AS u ON u.id = a.user_id
WHERE a.team_id IN (SELECT fm.team_id FROM memberships AS fm WHERE fm.user_id = $1)
AND CASE WHEN a.job_id IS NULL
	THEN EXISTS (SELECT 1 FROM memberships AS om WHERE om.team_id = a.team_id AND om.user_id = $1
		AND om.role IN ('owner', 'admin'))
	ELSE EXISTS (SELECT 1 FROM jobs AS j WHERE j.id = a.job_id AND {{visible $1}}) END
AND a.id > $3
AND a.id <= $4
ORDER BY a.id LIMIT $5;

-- name: FeedPageActions
SELECT a.id, a.team_id, a.job_id, a.user_id, a.token_id, a.action, a.subject_type, a.subject_id, a.changes,
	a.reason, a.approved_by, a.created_at, 0 AS seq, u.name AS user_name FROM activity AS a LEFT JOIN users AS u ON u.id = a.user_id
WHERE a.team_id IN (SELECT fm.team_id FROM memberships AS fm WHERE fm.user_id = $1)
AND CASE WHEN a.job_id IS NULL
	THEN EXISTS (SELECT 1 FROM memberships AS om WHERE om.team_id = a.team_id AND om.user_id = $1
		AND om.role IN ('owner', 'admin'))
	ELSE EXISTS (SELECT 1 FROM jobs AS j WHERE j.id = a.job_id AND {{visible $1}}) END
AND a.id > $3
AND a.id <= $4
AND a.action IN (SELECT value FROM json_each($5))
ORDER BY a.id LIMIT $6;
