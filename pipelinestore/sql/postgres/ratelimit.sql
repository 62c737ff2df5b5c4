-- Take counts each bucket's requests: it opens a new window when the
-- stored one is at least a window old at the bucket's latest request
-- (both CASEs read the row as it was before this statement), and
-- otherwise adds to its count. Buckets are locked in order, so that two
-- processes counting the same buckets do not deadlock.
-- name: Take
INSERT INTO rate_limits AS r (bucket, window_start, count)
SELECT t.bucket, t.at, t.n FROM jsonb_to_recordset($1::jsonb) AS t(bucket text, at timestamptz, n integer)
ORDER BY t.bucket
ON CONFLICT (bucket) DO UPDATE SET
	window_start = CASE WHEN r.window_start <= EXCLUDED.window_start - $2::bigint * interval '1 microsecond'
		THEN EXCLUDED.window_start ELSE r.window_start END,
	count = CASE WHEN r.window_start <= EXCLUDED.window_start - $2::bigint * interval '1 microsecond'
		THEN EXCLUDED.count ELSE r.count + EXCLUDED.count END
RETURNING bucket, count, window_start;

-- The sweep deletes ended windows, so that the table holds only live
-- buckets.
-- name: SweepRateLimits
DELETE FROM rate_limits WHERE window_start <= $1;
