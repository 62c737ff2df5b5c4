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

// ClaimIdempotencyKey takes the transaction-scoped lock of a team's key and,
// holding it, reads the key's record created at or after since. On
// PostgreSQL the lock is an advisory lock on a 64-bit hash of the schema,
// team and key, tried without waiting, so that a second request with a key
// still in flight is told at once; lock and read are one statement (the
// function pipeline_claim_key), which waits to be sent with the
// transaction's next one: in the same statement as a candidate's locking
// read (see ClaimCandidate), else just before it in the same round trip as the
// transaction's BEGIN. On SQLite write transactions are already
// serialized, so the lock is always free.
func (t *tx) ClaimIdempotencyKey(ctx context.Context, teamID int64, key string, since time.Time) pipeline.KeyClaim {
	kc := &keyClaim{t: t, teamID: teamID, key: key}
	if !t.pg {
		err := t.run.get(ctx, t.q.IdempotencyRecord, args(teamID, key, ts(since)), &kc.row)
		if errors.Is(err, sql.ErrNoRows) {
			kc.row, err = claimRow{Locked: true}, nil
		}
		kc.done, kc.err = true, err
		return kc
	}
	scan := func(ctx context.Context, rows *sql.Rows) error {
		var r claimRow
		err := t.run.scanOne(ctx, rows, &r)
		kc.settle(r, err)
		return err
	}
	kc.args = args(idempotencyLockID(t.schema, teamID, key), teamID, key, ts(since))
	if kc.err = t.run.deferredReturning(ctx, t.q.ClaimKey, scan, kc.args...); kc.err == nil {
		t.claim = kc
	}
	return kc
}

// keyClaim is a claim of an idempotency key, sent or waiting to be.
type keyClaim struct {
	t      *tx
	teamID int64
	key    string
	args   []any // of ClaimKey
	row    claimRow
	done   bool // row holds the outcome
	err    error
}

// claimRow is what a claim finds, in claimColumns: prefixed, so that a read
// made in the same statement (ClaimCandidate) keeps its own column names.
type claimRow struct {
	Locked    bool       `bun:"claim_locked"`
	UserID    *int64     `bun:"claim_user_id"`
	Request   *string    `bun:"claim_request"`
	Result    []byte     `bun:"claim_result"`
	CreatedAt *time.Time `bun:"claim_created_at"`
}

// Outcome sends the claim if it still waits, and returns what it found.
func (kc *keyClaim) Outcome(ctx context.Context) (bool, *pipeline.IdempotencyRecord, error) {
	if kc.err == nil && !kc.done {
		kc.err = kc.t.run.flush(ctx)
		if kc.err == nil && !kc.done {
			kc.err = sql.ErrNoRows
		}
	}
	if kc.err != nil {
		return false, nil, formatError(kc.err, "Idempotency key")
	}
	r := kc.row
	if !r.Locked || r.UserID == nil {
		return r.Locked, nil, nil
	}
	return true, &pipeline.IdempotencyRecord{
		TeamID: kc.teamID, Key: kc.key, UserID: *r.UserID, Request: *r.Request, Result: r.Result, CreatedAt: r.CreatedAt.UTC(),
	}, nil
}

// waitingClaim takes out of the transaction's batch a claim that waits to
// be sent with the next statement and nothing else, for that statement to
// make it: the caller then sends ClaimKey's arguments after its own, in a
// query that claims first (see ClaimCandidate), and scans its row into the
// claim's. It returns nil when no claim waits.
func (t *tx) waitingClaim() *keyClaim {
	kc := t.claim
	if kc == nil || kc.done || kc.err != nil || !t.run.takeAlone(t.q.ClaimKey) {
		return nil
	}
	t.claim = nil
	return kc
}

// settle records what the statement that made the claim found.
func (kc *keyClaim) settle(r claimRow, err error) {
	kc.row, kc.done, kc.err = r, err == nil, err
}

// claimingGet runs read, a locking read that claims a key first that takes
// readArgs (then the claim's arguments, then tail), in place of the claim
// kc waited to send: it scans the row into
// dest, whose claim columns (claim) go to kc, and reports a read that found
// nothing (id 0) as sql.ErrNoRows.
func (t *tx) claimingGet(ctx context.Context, kc *keyClaim, read string, readArgs, tail []any, dest any, claim *claimRow, id *int64) error {
	err := t.run.get(ctx, read, append(append(readArgs, kc.args...), tail...), dest)
	kc.settle(*claim, err)
	if err == nil && *id == 0 {
		return sql.ErrNoRows
	}
	return err
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
	// NULL for a write about no candidate, and for no operation named.
	var candidate, op any
	if rec.CandidateID != 0 {
		candidate = rec.CandidateID
	}
	if rec.Op != "" {
		op = string(rec.Op)
	}
	err := t.run.deferred(ctx, t.q.SaveIdempotencyRecord, rec.TeamID, rec.Key, rec.UserID, rec.Request, rec.Result, ts(rec.CreatedAt),
		candidate, op)
	return formatError(err, "Idempotency key")
}

// PurgeIdempotency deletes idempotency records created before a time, in
// one statement that the statement timeout does not cut short.
func (db *DB) PurgeIdempotency(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := db.operatorTx(ctx, func(ctx context.Context, run runner) error {
		res, err := run.exec(ctx, db.q.PurgeIdempotency, ts(before))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, formatError(err, "Idempotency key")
}
