package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// insertCandidatesSQL inserts $2 candidates into each job of $1 in one
// statement, filling every NOT NULL column. Three hashes of the job and the
// candidate's number pick the first and last name ($3–$8: shown, folded and
// ASCII), the stage (a funnel: half in the first stage, 5% hired), the
// applied date (two years' spread, so that newest first is a real order)
// and leave the rest varied. Rows are inserted in number order, so ids grow
// with it. The stage is joined by position, so every candidate's stage is
// one of its own job's.
const insertCandidatesSQL = `WITH x AS (
	SELECT j.id AS job_id, g,
		hashint8(g * 4 + j.id * 1000003) & 2147483647 AS h1,
		hashint8(g * 4 + 1 + j.id * 1000003) & 2147483647 AS h2,
		hashint8(g * 4 + 2 + j.id * 1000003) & 2147483647 AS h3
	FROM unnest($1::bigint[]) AS j(id), generate_series(1, $2::int) AS g
), y AS (
	SELECT x.*,
		1 + x.h1 % cardinality($3::text[]) AS fi,
		1 + x.h2 % cardinality($6::text[]) AS li,
		CASE WHEN x.h3 % 100 < 50 THEN 1 WHEN x.h3 % 100 < 75 THEN 2 WHEN x.h3 % 100 < 88 THEN 3
			WHEN x.h3 % 100 < 95 THEN 4 ELSE 5 END AS pos
	FROM x
), z AS (
	SELECT y.*, ($5::text[])[y.fi] || '.' || ($8::text[])[y.li] || '.' || y.job_id || '.' || y.g || '@mail.example' AS email
	FROM y
)
INSERT INTO candidates (job_id, stage_id, name, email, name_fold, email_fold, applied, status, resume_url, created_at, updated_at)
SELECT z.job_id, s.id,
	($3::text[])[z.fi] || ' ' || ($6::text[])[z.li],
	z.email,
	($4::text[])[z.fi] || ' ' || ($7::text[])[z.li],
	lower(z.email),
	date '2024-01-01' + ((z.h3 / 100) % 730)::int,
	CASE WHEN z.pos = 5 THEN 'hired' WHEN z.g % 20 = 0 THEN 'rejected' WHEN z.g % 20 = 7 THEN 'withdrawn' ELSE 'active' END,
	CASE WHEN z.g % 3 = 0 THEN '' ELSE 'https://files.example.test/cv/' || z.job_id || '-' || z.g || '.pdf' END,
	$9, $9
FROM z JOIN stages AS s ON s.job_id = z.job_id AND s.position = z.pos
ORDER BY z.job_id, z.g`

// insertCandidates inserts n candidates into each of jobs. Nothing else is
// written to the tables directly: whatever the schema keeps up to date by
// triggers stays right.
func insertCandidates(ctx context.Context, conn *pgx.Conn, jobs []*benchJob, n int) error {
	ids := make([]int64, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
		j.Size = n
	}
	fs, ff, fa := nameColumns(firstNames)
	ls, lf, la := nameColumns(lastNames)
	tag, err := conn.Exec(ctx, insertCandidatesSQL, ids, n, fs, ff, fa, ls, lf, la, time.Now().UTC())
	if err != nil {
		return fmt.Errorf("insert candidates: %w", err)
	}
	if want := int64(len(jobs) * n); tag.RowsAffected() != want {
		return fmt.Errorf("inserted %d candidates, want %d", tag.RowsAffected(), want)
	}
	return nil
}

// analyze vacuums the dataset's tables and refreshes their statistics, and
// candidate_search's, the searches' copy of the candidates, in a schema
// that has it: the measurements then find the tables as a database that
// holds them for a while keeps them, rather than racing the autovacuum
// that a million fresh rows set off.
func analyze(ctx context.Context, conn *pgx.Conn) error {
	tables := "teams, users, memberships, jobs, job_assignees, stages, candidates, tokens"
	var search bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass('candidate_search') IS NOT NULL").Scan(&search); err != nil {
		return err
	}
	if search {
		tables += ", candidate_search"
	}
	_, err := conn.Exec(ctx, "VACUUM (ANALYZE) "+tables)
	return err
}

// loadCandidates reads the candidates of the jobs of the load back, with
// their stage positions, for the targets of the writes.
func loadCandidates(ctx context.Context, conn *pgx.Conn, jobs []*benchJob) error {
	byID := map[int64]*benchJob{}
	ids := make([]int64, len(jobs))
	for i, j := range jobs {
		byID[j.ID], ids[i] = j, j.ID
	}
	rows, err := conn.Query(ctx, `SELECT c.job_id, c.id, s.position, c.status = 'active' FROM candidates AS c
JOIN stages AS s ON s.id = c.stage_id WHERE c.job_id = ANY($1) ORDER BY c.job_id, c.id`, ids)
	if err != nil {
		return err
	}
	var positions = map[int64][]int32{}
	for rows.Next() {
		var job, id int64
		var pos int32
		var active bool
		if err := rows.Scan(&job, &id, &pos, &active); err != nil {
			return err
		}
		byID[job].Cands = append(byID[job].Cands, id)
		byID[job].Active = append(byID[job].Active, active)
		positions[job] = append(positions[job], pos)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, j := range jobs {
		j.Pos = make([]atomic.Int32, len(j.Cands))
		for i, p := range positions[j.ID] {
			j.Pos[i].Store(p)
		}
	}
	return nil
}
