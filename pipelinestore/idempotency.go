package pipelinestore

import (
	"context"
	"database/sql"
	"errors"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

var (
	qLockKey           = preparedPG(`SELECT pg_try_advisory_xact_lock($1)`)
	qIdempotencyRecord = prepared(`SELECT team_id, key, user_id, request, result, created_at FROM idempotency_keys
WHERE team_id = $1 AND key = $2 AND created_at >= $3`)
	qSaveIdempotencyRecord = prepared(`INSERT INTO idempotency_keys AS k (team_id, key, user_id, request, result, created_at)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (team_id, key) DO UPDATE SET user_id = EXCLUDED.user_id, request = EXCLUDED.request,
	result = EXCLUDED.result, created_at = EXCLUDED.created_at`)
)

// LockIdempotencyKey takes the transaction-scoped lock of a team's key. On
// PostgreSQL it is an advisory lock on a 64-bit hash of the schema, team
// and key, tried without waiting, so that a second request with a key
// still in flight is told at once. On SQLite write transactions are already
// serialized, so the lock is always free.
func (t *tx) LockIdempotencyKey(ctx context.Context, teamID int64, key string) (bool, error) {
	if !t.pg {
		return true, nil
	}
	var ok bool
	err := t.run.get(ctx, qLockKey, args(idempotencyLockID(t.schema, teamID, key)), &ok)
	return ok, formatError(err, "Idempotency key")
}

// idempotencyLockID hashes schema, team and key into the advisory lock
// space, which the whole database shares: the schema keeps two deployments
// on one database (or two test schemas) apart. A collision would answer
// conflict to an unrelated request with a key, which may retry; it cannot
// mix up records.
func idempotencyLockID(schema string, teamID int64, key string) int64 {
	h := fnv.New64a()
	h.Write([]byte("idempotency:" + schema + ":" + strconv.FormatInt(teamID, 10) + ":"))
	h.Write([]byte(key))
	return int64(h.Sum64())
}

// IdempotencyRecord returns the record stored under a team's key and created
// at or after since, or nil.
func (t *tx) IdempotencyRecord(ctx context.Context, teamID int64, key string, since time.Time) (*pipeline.IdempotencyRecord, error) {
	var r idempotencyRow
	err := t.run.get(ctx, qIdempotencyRecord, args(teamID, key, ts(since)), &r)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, formatError(err, "Idempotency key")
	}
	return &pipeline.IdempotencyRecord{
		TeamID:    r.TeamID,
		Key:       r.Key,
		UserID:    r.UserID,
		Request:   r.Request,
		Result:    r.Result,
		CreatedAt: r.CreatedAt.UTC(),
	}, nil
}

// SaveIdempotencyRecord stores a record, replacing an expired one under the
// same team and key. The caller holds the key's lock and found no live
// record, so any row already there has expired.
func (t *tx) SaveIdempotencyRecord(ctx context.Context, rec pipeline.IdempotencyRecord) error {
	_, err := t.run.exec(ctx, qSaveIdempotencyRecord, rec.TeamID, rec.Key, rec.UserID, rec.Request, rec.Result, ts(rec.CreatedAt))
	return formatError(err, "Idempotency key")
}

// PurgeIdempotency deletes idempotency records created before a time.
func (db *DB) PurgeIdempotency(ctx context.Context, before time.Time) (int64, error) {
	res, err := db.w.bun.NewRaw(`DELETE FROM idempotency_keys WHERE created_at < ?`, ts(before)).Exec(ctx)
	if err != nil {
		return 0, formatError(err, "Idempotency key")
	}
	return res.RowsAffected()
}
