-- name: InsertDocument
INSERT INTO documents
(candidate_id, user_id, kind, filename, content_type, size, sha256, text_status, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id;

-- name: InsertDocumentContent
INSERT INTO document_contents (document_id, content) VALUES ($1, $2);

-- name: DocumentsPage
SELECT d.id, d.candidate_id, c.job_id, j.team_id, d.kind, d.filename, d.content_type, d.size, d.sha256,
	d.text_status, d.text_truncated, d.created_at, u.id AS author_id, u.name AS author_name, count(*) OVER () AS total
FROM documents AS d
JOIN candidates AS c ON c.id = d.candidate_id
JOIN jobs AS j ON j.id = c.job_id
JOIN users AS u ON u.id = d.user_id
WHERE d.candidate_id = $1 AND c.job_id = $2 AND {{visible $3}}
ORDER BY d.created_at DESC, d.id DESC
LIMIT 15 OFFSET $4;

-- name: DocumentsCount
SELECT (SELECT count(*) FROM documents AS d WHERE d.candidate_id = c.id) AS total
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE c.id = $1 AND c.job_id = $2 AND {{visible $3}};

-- name: Document
SELECT d.id, d.candidate_id, c.job_id, j.team_id, d.kind, d.filename, d.content_type, d.size, d.sha256,
	d.text_status, d.text_truncated, d.created_at, u.id AS author_id, u.name AS author_name
FROM documents AS d
JOIN candidates AS c ON c.id = d.candidate_id
JOIN jobs AS j ON j.id = c.job_id
JOIN users AS u ON u.id = d.user_id
WHERE d.id = $1 AND d.candidate_id = $2 AND c.job_id = $3 AND {{visible $4}};

-- name: DocumentText
SELECT d.id, d.candidate_id, c.job_id, j.team_id, d.kind, d.filename, d.content_type, d.size, d.sha256,
	d.text_status, d.text_truncated, d.created_at, u.id AS author_id, u.name AS author_name, d.text
FROM documents AS d
JOIN candidates AS c ON c.id = d.candidate_id
JOIN jobs AS j ON j.id = c.job_id
JOIN users AS u ON u.id = d.user_id
WHERE d.id = $1 AND d.candidate_id = $2 AND c.job_id = $3 AND {{visible $4}};

-- name: DocumentsWithText
SELECT d.id, d.candidate_id, c.job_id, j.team_id, d.kind, d.filename, d.content_type, d.size, d.sha256,
	d.text_status, d.text_truncated, d.created_at, u.id AS author_id, u.name AS author_name, d.text
FROM documents AS d
JOIN candidates AS c ON c.id = d.candidate_id
JOIN jobs AS j ON j.id = c.job_id
JOIN users AS u ON u.id = d.user_id
WHERE d.candidate_id = $1 AND c.job_id = $2 AND {{visible $3}}
ORDER BY d.created_at DESC, d.id DESC;

-- name: DocumentByID
SELECT d.id, d.candidate_id, c.job_id, j.team_id, d.kind, d.filename, d.content_type, d.size, d.sha256,
	d.text_status, d.text_truncated, d.created_at, u.id AS author_id, u.name AS author_name
FROM documents AS d
JOIN candidates AS c ON c.id = d.candidate_id
JOIN jobs AS j ON j.id = c.job_id
JOIN users AS u ON u.id = d.user_id
WHERE d.id = $1;

-- name: DocumentForDelete
SELECT d.id, d.candidate_id, c.job_id, j.team_id, d.kind, d.filename, d.content_type, d.size, d.sha256,
	d.text_status, d.text_truncated, d.created_at, u.id AS author_id, u.name AS author_name
FROM documents AS d
JOIN candidates AS c ON c.id = d.candidate_id
JOIN jobs AS j ON j.id = c.job_id
JOIN users AS u ON u.id = d.user_id
WHERE d.id = $1 AND d.candidate_id = $2;

-- name: DeleteDocument
DELETE FROM documents WHERE id = $1;

-- name: DocumentContent
SELECT content FROM document_contents WHERE document_id = $1;

-- name: SetDocumentText
UPDATE documents SET text_status = $2, text = $3, text_truncated = $4 WHERE id = $1 AND text_status = 'pending';
