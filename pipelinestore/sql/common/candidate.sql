-- name: SetCandidateStage
UPDATE candidates SET stage_id = $1, updated_at = $2 WHERE id = $3;

-- name: InsertCandidate
INSERT INTO candidates (job_id, stage_id, name, email, name_fold, email_fold, applied, status,
	resume_url, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING id;

-- EmailTaken is whether a candidate of the job $1 other than $3 has
-- the folded email $2.
-- name: EmailTaken
SELECT CASE WHEN EXISTS (SELECT 1 FROM candidates AS c
	WHERE c.job_id = $1 AND c.email_fold = $2 AND c.id <> $3) THEN 1 ELSE 0 END AS taken;

-- name: UpdateCandidate
UPDATE candidates SET name = $1, name_fold = $2, email = $3, email_fold = $4, resume_url = $5,
	status = $6, updated_at = $7
WHERE id = $8;

-- JobSize is a job's number of candidates, for largeJobs alone: the
-- search that follows checks that the viewer reaches the job.
-- name: JobSize
SELECT (SELECT CAST(COALESCE(sum(st.candidate_count), 0) AS BIGINT) FROM stages AS st WHERE st.job_id = $1)
	+ (SELECT CAST(COALESCE(sum(d.delta), 0) AS BIGINT) FROM stage_count_deltas AS d WHERE d.job_id = $1) AS size;
