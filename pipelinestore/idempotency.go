package pipelinestore

import (
	"context"
	"database/sql"
	"errors"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// idempotencyStore is the DB's IdempotencyStore.
type idempotencyStore struct{ *DB }

// Idempotency purges idempotency records.
func (db *DB) Idempotency() pipeline.IdempotencyStore { return idempotencyStore{db} }

// idempotencyTx is a transaction's IdempotencyTx.
type idempotencyTx struct{ *tx }

// Idempotency claims keys and keeps their records.
func (t *tx) Idempotency() pipeline.IdempotencyTx { return idempotencyTx{t} }

// Claim takes the transaction-scoped lock of a team's key and, holding
// it, reads the key's record created at or after p.Since. On
// PostgreSQL the lock is an advisory lock on a 64-bit hash of the schema,
// team and key, tried without waiting, so that a second request with a key
// still in flight is told at once; lock and read are one statement (the
// function pipeline_claim_key), which waits in the transaction's batch
// (see pgbatch.go), sent with the transaction's BEGIN before the
// statement that follows it. On SQLite write transactions are already
// serialized, so the lock is always free.
func (t idempotencyTx) Claim(ctx context.Context, p pipeline.ClaimKeyParams) pipeline.KeyClaim {
	kc := &keyClaim{t: t.tx, teamID: p.TeamID, key: p.Key}
	if !t.pg {
		err := t.run.get(ctx, t.q.IdempotencyRecord, args(p.TeamID, p.Key, ts(p.Since)), &kc.row)
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
	kc.args = args(idempotencyLockID(t.schema, p.TeamID, p.Key), p.TeamID, p.Key, ts(p.Since))
	kc.err = t.run.deferredReturning(ctx, t.q.ClaimKey, scan, kc.args...)
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
// made in the same statement (claiming) keeps its own column names.
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

// settle records what the statement that made the claim found.
func (kc *keyClaim) settle(r claimRow, err error) {
	kc.row, kc.done, kc.err = r, err == nil, err
}

// claimToMake takes kc, a claim of this transaction, out of the batch when
// it waits there alone, for the statement the caller sends next to make it
// (see claiming), and scan its row into the claim's; nil when it is not
// waiting so, and the batch sends it.
func (t *tx) claimToMake(c pipeline.KeyClaim) *keyClaim {
	kc, ok := c.(*keyClaim)
	if !ok || kc == nil || kc.t != t || kc.done || kc.err != nil || !t.run.takeAlone(t.q.ClaimKey) {
		return nil
	}
	return kc
}

// claiming is the locking read read, whose n parameters come first, that
// claims a key first, as ClaimKey with the four parameters after read's:
// the claim's columns, then read's (r.*), NULL when read finds nothing. Its
// lock ( FOR …) is taken after the claim, on which it depends.
func claiming(read string, n int) string {
	lock := strings.LastIndex(read, " FOR ")
	p := func(i int) string { return "$" + strconv.Itoa(n+i) }
	return `SELECT k.locked AS claim_locked, k.user_id AS claim_user_id, k.request AS claim_request,
	k.result AS claim_result, k.created_at AS claim_created_at, r.*
FROM pipeline_claim_key(` + p(1) + `, ` + p(2) + `, ` + p(3) + `, ` + p(4) + `) AS k
LEFT JOIN LATERAL (` + read[:lock] + ` AND k.locked IS NOT NULL` + read[lock:] + `) AS r ON true`
}

// claimingGet runs read, a locking read that claims a key first that takes
// readArgs (then the claim's arguments, then tail), in place of the claim
// kc waited to send: it scans the row into dest, whose claim columns
// (claim) go to kc, and reports a read that found nothing (id 0) as
// sql.ErrNoRows.
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

// Save stores a record, replacing an expired one under the same team and
// key. The caller holds the key's lock and found no live record, so any
// row already there has expired.
func (t idempotencyTx) Save(ctx context.Context, rec pipeline.IdempotencyRecord) error {
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

// Purge deletes idempotency records created before a time, in one
// statement that the statement timeout does not cut short.
func (db idempotencyStore) Purge(ctx context.Context, before time.Time) (int64, error) {
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

// Records returns the records of a team's keys, expired ones included:
// they hold what they held until the purge.
func (t idempotencyTx) Records(ctx context.Context, p pipeline.IdempotencyRecordsParams) ([]pipeline.IdempotencyRecord, error) {
	var rows []struct {
		TeamID      int64     `bun:"team_id"`
		Key         string    `bun:"key"`
		UserID      int64     `bun:"user_id"`
		Request     string    `bun:"request"`
		Result      []byte    `bun:"result"`
		CreatedAt   time.Time `bun:"created_at"`
		CandidateID *int64    `bun:"candidate_id"`
		Op          *string   `bun:"operation"`
	}
	if err := t.run.all(ctx, t.q.IdempotencyRecords, args(p.TeamID), &rows); err != nil {
		return nil, formatError(err, "Idempotency key")
	}
	out := make([]pipeline.IdempotencyRecord, len(rows))
	for i, r := range rows {
		out[i] = pipeline.IdempotencyRecord{TeamID: r.TeamID, Key: r.Key, UserID: r.UserID, Request: r.Request, Result: r.Result,
			CreatedAt: r.CreatedAt.UTC()}
		if r.CandidateID != nil {
			out[i].CandidateID = *r.CandidateID
		}
		if r.Op != nil {
			out[i].Op = pipeline.Op(*r.Op)
		}
	}
	return out, nil
}

// SetResult replaces the stored result of a team's key.
func (t idempotencyTx) SetResult(ctx context.Context, p pipeline.KeyResultParams) error {
	return formatError(t.run.deferred(ctx, t.q.SetIdempotencyResul, p.Result, p.TeamID, p.Key), "Idempotency key")
}
