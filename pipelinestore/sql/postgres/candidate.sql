-- InsertCandidateWithID is InsertCandidate of the candidate whose
-- id $11 was drawn (PostgreSQL).
-- name: InsertCandidateWithID
INSERT INTO candidates (job_id, stage_id, name, email, name_fold, email_fold, applied, status,
	resume_url, created_at, updated_at, id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11);
