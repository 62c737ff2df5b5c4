-- name: FeedBound
SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint;

-- The first entry of the viewer's teams created at or after $2 and
-- final by the bound $3.
-- name: FeedStart
SELECT xid AS seq, id FROM activity
WHERE team_id IN (SELECT team_id FROM memberships WHERE user_id = $1) AND created_at >= $2 AND xid < $3
ORDER BY xid, id LIMIT 1;

-- name: FeedEnd
SELECT xid AS seq, id FROM activity WHERE xid < $1 ORDER BY xid DESC, id DESC LIMIT 1;

-- name: FeedEntry
SELECT a.id, a.team_id, a.job_id, a.user_id, a.token_id, a.action, a.subject_type, a.subject_id, a.changes,
	a.reason, a.approved_by, a.created_at, a.xid AS seq, u.name AS user_name FROM activity AS a LEFT JOIN users AS u ON u.id = a.user_id
WHERE a.id = $2 AND a.team_id IN (SELECT fm.team_id FROM memberships AS fm WHERE fm.user_id = $1)
AND CASE WHEN a.job_id IS NULL
	THEN EXISTS (SELECT 1 FROM memberships AS om WHERE om.team_id = a.team_id AND om.user_id = $1
		AND om.role IN ('owner', 'admin'))
	ELSE EXISTS (SELECT 1 FROM jobs AS j WHERE j.id = a.job_id AND {{visible $1}}) END;

-- FeedPage is a page of the feed for viewer $1: the entries after the
-- position ($2, $3) below the horizon $4, in feed order, at most $5.
-- FeedPageActions is the same for the actions of the JSON array $5, at
-- most $6.
-- name: FeedPage
SELECT a.id, a.team_id, a.job_id, a.user_id, a.token_id, a.action, a.subject_type, a.subject_id, a.changes,
	a.reason, a.approved_by, a.created_at, a.xid AS seq, u.name AS user_name FROM activity AS a LEFT JOIN users AS u ON u.id = a.user_id
WHERE a.team_id IN (SELECT fm.team_id FROM memberships AS fm WHERE fm.user_id = $1)
AND CASE WHEN a.job_id IS NULL
	THEN EXISTS (SELECT 1 FROM memberships AS om WHERE om.team_id = a.team_id AND om.user_id = $1
		AND om.role IN ('owner', 'admin'))
	ELSE EXISTS (SELECT 1 FROM jobs AS j WHERE j.id = a.job_id AND {{visible $1}}) END
AND (a.xid, a.id) > ($2, $3)
AND a.xid < $4
ORDER BY a.xid, a.id LIMIT $5;

-- name: FeedPageActions
SELECT a.id, a.team_id, a.job_id, a.user_id, a.token_id, a.action, a.subject_type, a.subject_id, a.changes,
	a.reason, a.approved_by, a.created_at, a.xid AS seq, u.name AS user_name FROM activity AS a LEFT JOIN users AS u ON u.id = a.user_id
WHERE a.team_id IN (SELECT fm.team_id FROM memberships AS fm WHERE fm.user_id = $1)
AND CASE WHEN a.job_id IS NULL
	THEN EXISTS (SELECT 1 FROM memberships AS om WHERE om.team_id = a.team_id AND om.user_id = $1
		AND om.role IN ('owner', 'admin'))
	ELSE EXISTS (SELECT 1 FROM jobs AS j WHERE j.id = a.job_id AND {{visible $1}}) END
AND (a.xid, a.id) > ($2, $3)
AND a.xid < $4
AND a.action IN (SELECT x FROM json_array_elements_text(CAST($5 AS json)) AS x)
ORDER BY a.xid, a.id LIMIT $6;
