package pipelinestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The feed's order and its guarantee. On PostgreSQL an entry's id is taken
// when it is inserted, its transaction commits later, and transactions
// commit in any order, so an entry with a smaller id can appear after a
// larger one was read. Each entry therefore carries the id of its
// transaction (xid), and the feed serves only entries whose xid is below
// the horizon, the oldest transaction id still running
// (pg_snapshot_xmin): every transaction below it has ended, so the entries
// below it are final, and any entry still to come has an xid at or above
// it. Served in (xid, id) order from a cursor, each entry is seen once and
// none is passed over. Two writes of which one committed before the other
// began keep that order; writes that overlapped are ordered by the
// transaction that took its id first. On SQLite one writer commits at a
// time and ids follow commits: the order is the id's, the sequence 0, and
// the bound the last id committed.

// Feed returns the entries after q.After that q.Viewer may read, in feed
// order, at most q.Limit; only those final when it began: on PostgreSQL
// below the horizon, on SQLite up to the last id committed.
func (db activityStore) Feed(ctx context.Context, q pipeline.FeedQuery) (pipeline.FeedResult, error) {
	viewer := q.Viewer
	// Read first: every entry up to it is final, whatever commits while
	// the page is read, and any entry still to come lies beyond it.
	var bound int64
	if err := db.read().get(ctx, db.q.FeedBound, nil, &bound); err != nil {
		return pipeline.FeedResult{}, formatError(err, "Activity")
	}
	after := q.After
	if q.Since != nil {
		// since names where the page starts: the first entry created at or
		// after it; the entries after that one follow in feed order, as
		// they would from a cursor, whatever their own times.
		var start pipeline.FeedPosition
		err := db.read().get(ctx, db.q.FeedStart, args(viewer, ts(*q.Since), bound), &start)
		if errors.Is(err, sql.ErrNoRows) {
			var res pipeline.FeedResult
			return res, db.feedEnd(ctx, bound, &res.End)
		}
		if err != nil {
			return pipeline.FeedResult{}, formatError(err, "Activity")
		}
		after = pipeline.FeedPosition{Seq: start.Seq, ID: start.ID - 1}
	}
	query, a := db.q.FeedPage, args(viewer, after.Seq, after.ID, bound)
	if len(q.Actions) > 0 {
		actions, _ := json.Marshal(q.Actions)
		query, a = db.q.FeedPageActions, append(a, string(actions))
	}
	a = append(a, q.Limit)
	var rows []activityRow
	if err := db.read().all(ctx, query, a, &rows); err != nil {
		return pipeline.FeedResult{}, formatError(err, "Activity")
	}
	res := pipeline.FeedResult{Entries: make([]pipeline.FeedEntry, len(rows))}
	for i, r := range rows {
		res.Entries[i] = r.toFeedEntry()
	}
	if len(rows) == 0 && q.EndIfEmpty {
		return res, db.feedEnd(ctx, bound, &res.End)
	}
	return res, nil
}

// feedEnd sets end to the position of the last entry of the log final by
// bound (Feed's), the zero position when there is none.
func (db *DB) feedEnd(ctx context.Context, bound int64, end *pipeline.FeedPosition) error {
	if db.dialect != DialectPostgres {
		*end = pipeline.FeedPosition{ID: bound}
		return nil
	}
	var r struct {
		Seq int64 `bun:"seq"`
		ID  int64 `bun:"id"`
	}
	if err := db.read().get(ctx, db.q.FeedEnd, args(bound), &r); err != nil {
		return ignoreNoRows(err, "Activity")
	}
	*end = pipeline.FeedPosition{Seq: r.Seq, ID: r.ID}
	return nil
}

// feedEntry returns the entry id as viewer may read it in the feed, or nil.
func (db *DB) feedEntry(ctx context.Context, viewer, id int64) (*pipeline.FeedEntry, error) {
	var rows []activityRow
	if err := db.read().all(ctx, db.q.FeedEntry, args(viewer, id), &rows); err != nil {
		return nil, formatError(err, "Activity")
	}
	if len(rows) == 0 {
		return nil, nil
	}
	e := rows[0].toFeedEntry()
	return &e, nil
}
