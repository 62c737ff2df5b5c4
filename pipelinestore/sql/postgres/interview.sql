-- InterviewLockedWithInterviewers is Interview, its row locked as a
-- write's read locks (see statements.go), with its interviewers in
-- order, a JSON array of {id, name, email, member}, member saying whether
-- they belong to the job's team. The statement's snapshot predates the
-- row it locked when another writer of the interview committed since it
-- began (it waited for the lock, or the write came first):
-- interviewers_current is false then (the row's version is not the
-- snapshot's), as the interviewers and the candidate it joined may be
-- those of before, and the statement runs again.
-- name: InterviewLockedWithInterviewers
SELECT i.id, i.job_id, i.candidate_id, j.team_id, i.starts_at, i.ends_at, i.timezone, i.location,
	i.video_url, i.status, i.sequence, i.uid, i.organizer_name, i.organizer_email, i.created_by, cb.name AS created_by_name, cb.email AS created_by_email,
	i.created_at, i.updated_at, c.name AS candidate_name, c.email AS candidate_email, c.status AS candidate_status,
	CASE WHEN c.erased_at IS NULL THEN 0 ELSE 1 END AS candidate_erased, j.title AS job_title,
	(SELECT COALESCE(json_agg(json_build_object('id', u.id, 'name', u.name, 'email', u.email,
		'member', EXISTS (SELECT 1 FROM memberships AS m WHERE m.team_id = j.team_id AND m.user_id = u.id)) ORDER BY ii.position), '[]')
		FROM interview_interviewers AS ii JOIN users AS u ON u.id = ii.user_id WHERE ii.interview_id = i.id) AS interviewers,
	i.xmin = (SELECT s.xmin FROM interviews AS s WHERE s.id = i.id) AS interviewers_current
FROM interviews AS i
JOIN candidates AS c ON c.id = i.candidate_id
JOIN jobs AS j ON j.id = i.job_id
JOIN users AS cb ON cb.id = i.created_by
WHERE i.id = $1 AND i.candidate_id = $2 AND i.job_id = $3 AND {{visible $4}} AND pipeline_lock_record('interview', $1) FOR NO KEY UPDATE OF i;

-- LockCandidateInterviews locks every interview of the candidate $1,
-- in order of id, and writes each row anew, unchanged, ahead of a change
-- of the candidate that changes of their interviews must heed (an
-- erasure, a status leaving active). A write of one of them whose locking
-- read began before that change committed then finds the row changed and
-- reads it again, candidate included (see InterviewLockedWithInterviewers);
-- a lock alone would leave it the candidate its snapshot saw. A write of
-- one that committed while this waited is seen by the statements after
-- this one, each reading in a snapshot of its own.
-- name: LockCandidateInterviews
UPDATE interviews AS i SET updated_at = i.updated_at
FROM (SELECT id FROM interviews WHERE candidate_id = $1 ORDER BY id FOR NO KEY UPDATE) AS l WHERE i.id = l.id;

-- Interviewers are the interviewers of the interviews of the JSON
-- array $1, each interview's in order.
-- name: Interviewers
SELECT ii.interview_id, u.id, u.name, u.email FROM interview_interviewers AS ii
JOIN users AS u ON u.id = ii.user_id
WHERE ii.interview_id IN (SELECT CAST(x AS bigint) FROM json_array_elements_text(CAST($1 AS json)) AS x)
ORDER BY ii.interview_id, ii.position;

-- TeamUsers are the users of the JSON array $2 who are members of the
-- team $1.
-- name: TeamUsers
SELECT u.id, u.name, u.email FROM users AS u
JOIN memberships AS m ON m.user_id = u.id AND m.team_id = $1
WHERE u.id IN (SELECT CAST(x AS bigint) FROM json_array_elements_text(CAST($2 AS json)) AS x);

-- Busy are the busy times of the users of the JSON array $1 and of
-- the candidate $4 that overlap [$2, $3), the interview $5 left out.
-- PostgreSQL finds them with the exclusion constraints' indexes.
-- name: Busy
SELECT ii.user_id, 0 AS candidate_id, ii.starts_at, ii.ends_at FROM interview_interviewers AS ii
WHERE ii.active AND ii.user_id IN (SELECT CAST(x AS bigint) FROM json_array_elements_text(CAST($1 AS json)) AS x)
	AND tstzrange(ii.starts_at, ii.ends_at) && tstzrange(CAST($2 AS timestamptz), CAST($3 AS timestamptz)) AND ii.interview_id <> $5
UNION ALL
SELECT 0, i.candidate_id, i.starts_at, i.ends_at FROM interviews AS i
WHERE i.status = 'scheduled' AND i.candidate_id = $4
	AND tstzrange(i.starts_at, i.ends_at) && tstzrange(CAST($2 AS timestamptz), CAST($3 AS timestamptz)) AND i.id <> $5
ORDER BY 3, 1, 2;

-- InsertInterviewWithInterviewers is InsertInterview with the
-- interviewers of the JSON array $12, as InsertInterviewers, in one
-- statement; with the id $13 when drawn (else 0: the identity's
-- next), and the UID $14 and organizer $15, $16.
-- name: InsertInterviewWithInterviewers
WITH i AS (INSERT INTO interviews (id, job_id, candidate_id, starts_at, ends_at, timezone,
	location, video_url, status, sequence, created_by, created_at, updated_at, uid, organizer_name, organizer_email)
VALUES (COALESCE(NULLIF(CAST($13 AS bigint), 0), nextval(pg_get_serial_sequence('interviews', 'id'))),
	$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $14, $15, $16) RETURNING id, job_id, starts_at, ends_at),
ii AS (INSERT INTO interview_interviewers (interview_id, user_id, position, starts_at, ends_at, active)
SELECT i.id, CAST(x.value AS bigint), x.n, i.starts_at, i.ends_at, CAST($8 AS text) = 'scheduled'
FROM i, json_array_elements_text(CAST($12 AS json)) WITH ORDINALITY AS x(value, n))
SELECT i.id, (SELECT j.title FROM jobs AS j WHERE j.id = i.job_id) AS job_title FROM i;

-- InsertInterviewDrawn is InsertInterviewWithInterviewers for an
-- interview whose id $13 was drawn and whose job's title is known: it
-- returns nothing, so that it waits in the transaction's batch.
-- name: InsertInterviewDrawn
WITH i AS (INSERT INTO interviews (id, job_id, candidate_id, starts_at, ends_at, timezone,
	location, video_url, status, sequence, created_by, created_at, updated_at, uid, organizer_name, organizer_email)
VALUES (CAST($13 AS bigint), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $14, $15, $16) RETURNING id, starts_at, ends_at)
INSERT INTO interview_interviewers (interview_id, user_id, position, starts_at, ends_at, active)
SELECT i.id, CAST(x.value AS bigint), x.n, i.starts_at, i.ends_at, CAST($8 AS text) = 'scheduled'
FROM i, json_array_elements_text(CAST($12 AS json)) WITH ORDINALITY AS x(value, n);

-- UpdateInterviewWithInterviewers is UpdateInterview with its
-- interviewers set to those of the JSON array $10, in order, in one
-- statement: the others' rows deleted, the kept ones' updated, the new
-- ones inserted. A row deleted and inserted again by one statement would
-- fail the primary key, so each row is touched once.
-- name: UpdateInterviewWithInterviewers
WITH i AS (UPDATE interviews SET starts_at = $1, ends_at = $2, timezone = $3, location = $4, video_url = $5,
	status = $6, sequence = $7, updated_at = $8
WHERE id = $9),
x AS (SELECT CAST(e.value AS bigint) AS user_id, e.n FROM json_array_elements_text(CAST($10 AS json)) WITH ORDINALITY AS e(value, n)),
gone AS (DELETE FROM interview_interviewers AS ii WHERE ii.interview_id = $9 AND ii.user_id NOT IN (SELECT x.user_id FROM x)),
kept AS (UPDATE interview_interviewers AS ii SET position = x.n, starts_at = $1, ends_at = $2, active = CAST($6 AS text) = 'scheduled'
FROM x WHERE ii.interview_id = $9 AND ii.user_id = x.user_id)
INSERT INTO interview_interviewers (interview_id, user_id, position, starts_at, ends_at, active)
SELECT $9, x.user_id, x.n, $1, $2, CAST($6 AS text) = 'scheduled' FROM x
WHERE NOT EXISTS (SELECT 1 FROM interview_interviewers AS ii WHERE ii.interview_id = $9 AND ii.user_id = x.user_id);

-- InsertInterviewers stores the interviewers of the JSON array $4 of
-- the interview $1, in order, with its times $2, $3 and whether it is
-- scheduled $5.
-- name: InsertInterviewers
INSERT INTO interview_interviewers (interview_id, user_id, position, starts_at, ends_at, active)
SELECT CAST($1 AS bigint), CAST(x.value AS bigint), x.n, CAST($2 AS timestamptz), CAST($3 AS timestamptz), CAST($5 AS boolean)
FROM json_array_elements_text(CAST($4 AS json)) WITH ORDINALITY AS x(value, n);
