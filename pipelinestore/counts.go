package pipelinestore

import (
	"context"
	"sync/atomic"
	"time"
)

// foldInterval is the least time between two folds of one process: the
// unfolded deltas a read sums are those of about this long.
const foldInterval = 100 * time.Millisecond

// stageCountsFolder folds the deltas of the stages' candidate counts on
// PostgreSQL (migration 20261127200000_stage_count_deltas).
//
// The trade-off: a stage's count is candidate_count plus its deltas not
// yet folded. A move, an intake or a delete appends a row per stage it
// changes, which locks nothing other writers need, so that concurrent
// moves of one job no longer wait for each other's commit on the job's
// stage rows (they did when each move updated the two stages in place).
// Reads stay exact, and one statement: a total adds the job's unfolded
// deltas, which the fold keeps to about foldInterval's worth of writes,
// so a read costs one index lookup per stage plus a walk of those few
// rows, not a count of the job's candidates. The price is that row per
// change, the folds' own work, and that a read's cost grows with the
// deltas if nothing folds them (only our writes start folds; deltas of
// other writers wait for the next one).
type stageCountsFolder struct {
	pending atomic.Bool // deltas were appended since the running fold began
	running atomic.Bool // a fold loop is running
}

// appended tells the folder that a committed write appended deltas; a
// fold follows in the background within foldInterval.
func (db *DB) appended() {
	f := &db.folder
	f.pending.Store(true)
	if f.running.CompareAndSwap(false, true) {
		db.goBackground(db.foldLoop)
	}
}

// foldLoop folds while writes keep appending, at most once per
// foldInterval, and ends when none did since its last fold (or the store
// closes).
func (db *DB) foldLoop() {
	f := &db.folder
	for {
		for f.pending.Swap(false) {
			// An error only leaves the deltas to the next fold.
			_, _ = db.foldStageCounts(context.Background())
			time.Sleep(foldInterval)
			if db.isClosed() {
				f.running.Store(false)
				return
			}
		}
		f.running.Store(false)
		// A write that appended after the last Swap and found the loop
		// still running left its deltas to this loop.
		if !f.pending.Load() || !f.running.CompareAndSwap(false, true) {
			return
		}
	}
}

// foldStageCounts folds the committed deltas into the stages, in one
// transaction, and returns how many it folded (0 while another process's
// fold runs).
func (db *DB) foldStageCounts(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var n int64
	err := db.write().get(ctx, db.q.FoldStageCounts, nil, &n)
	return n, formatError(err, "Stage")
}

// isClosed reports whether Close has begun.
func (db *DB) isClosed() bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.closed
}
