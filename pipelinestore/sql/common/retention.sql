-- name: SetRetention
UPDATE teams SET retention_days = $1, retention_previous_days = $2, retention_set_at = $3 WHERE id = $4;

-- Its parameters: the team, the cutoff, the id after which to read,
-- the limit. It orders by c.id + 0 so that no plan walks the whole
-- table's primary key hoping to meet the team's rows early: the team's
-- candidates are found through its jobs, then sorted.
-- name: ExpiredCandidates
SELECT c.id, c.job_id, c.stage_id, c.name, c.email, c.applied, c.status, c.resume_url, c.notes_count,
	c.erased_at, j.team_id, (SELECT s.name FROM stages AS s WHERE s.id = c.stage_id) AS stage,
	CASE WHEN j.status = 'closed' AND j.closed_at <= $2 THEN 'job_closed' ELSE c.status END AS why
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE j.team_id = $1 AND c.id > $3 AND c.erased_at IS NULL AND c.status <> 'hired'
	AND ((j.status = 'closed' AND j.closed_at <= $2)
		OR (c.status IN ('rejected', 'withdrawn') AND c.updated_at <= $2
			AND NOT EXISTS (SELECT 1 FROM activity AS a
				WHERE a.subject_type = 'candidate' AND a.subject_id = c.id AND a.created_at > $2)))
ORDER BY c.id + 0 LIMIT $4;
