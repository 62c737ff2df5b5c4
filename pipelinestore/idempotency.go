package pipelinestore

import (
	"context"
	"database/sql"
	"errors"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"github.com/pipeline-dev/pipeline/pipeline"
)

var (
	qClaimKey = preparedPG(`SELECT locked, user_id, request, result, created_at
FROM pipeline_claim_key($1, $2, $3, $4)`)
	qIdempotencyRecord = prepared(`SELECT true AS locked, user_id, request, result, created_at FROM idempotency_keys
WHERE team_id = $1 AND key = $2 AND created_at >= $3`)
	qSaveIdempotencyRecord = prepared(`INSERT INTO idempotency_keys AS k (team_id, key, user_id, request, result, created_at)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (team_id, key) DO UPDATE SET user_id = EXCLUDED.user_id, request = EXCLUDED.request,
	result = EXCLUDED.result, created_at = EXCLUDED.created_at`)
)

// ClaimIdempotencyKey takes the transaction-scoped lock of a team's key and,
// holding it, reads the key's record created at or after since. On
// PostgreSQL the lock is an advisory lock on a 64-bit hash of the schema,
// team and key, tried without waiting, so that a second request with a key
// still in flight is told at once; lock and read are one round trip (the
// function pipeline_claim_key). On SQLite write transactions are already
// serialized, so the lock is always free.
func (t *tx) ClaimIdempotencyKey(ctx context.Context, teamID int64, key string, since time.Time) (bool, *pipeline.IdempotencyRecord, error) {
	var r struct {
		Locked    bool       `bun:"locked"`
		UserID    *int64     `bun:"user_id"`
		Request   *string    `bun:"request"`
		Result    []byte     `bun:"result"`
		CreatedAt *time.Time `bun:"created_at"`
	}
	var err error
	if t.pg {
		// The claim opens its transaction (pipeline's write).
		err = t.run.opening().get(ctx, qClaimKey, args(idempotencyLockID(t.schema, teamID, key), teamID, key, ts(since)), &r)
	} else {
		err = t.run.get(ctx, qIdempotencyRecord, args(teamID, key, ts(since)), &r)
		if errors.Is(err, sql.ErrNoRows) {
			return true, nil, nil
		}
	}
	if err != nil {
		return false, nil, formatError(err, "Idempotency key")
	}
	if !r.Locked || r.UserID == nil {
		return r.Locked, nil, nil
	}
	return true, &pipeline.IdempotencyRecord{
		TeamID: teamID, Key: key, UserID: *r.UserID, Request: *r.Request, Result: r.Result, CreatedAt: r.CreatedAt.UTC(),
	}, nil
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

// SaveIdempotencyRecord stores a record, replacing an expired one under the
// same team and key. The caller holds the key's lock and found no live
// record, so any row already there has expired.
func (t *tx) SaveIdempotencyRecord(ctx context.Context, rec pipeline.IdempotencyRecord) error {
	err := t.run.deferred(ctx, qSaveIdempotencyRecord, rec.TeamID, rec.Key, rec.UserID, rec.Request, rec.Result, ts(rec.CreatedAt))
	return formatError(err, "Idempotency key")
}

// PurgeIdempotency deletes idempotency records created before a time, in
// one statement that the statement timeout does not cut short.
func (db *DB) PurgeIdempotency(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := db.w.bun.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := db.liftStatementTimeout(ctx, tx); err != nil {
			return err
		}
		res, err := tx.NewRaw(`DELETE FROM idempotency_keys WHERE created_at < ?`, ts(before)).Exec(ctx)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, formatError(err, "Idempotency key")
}
