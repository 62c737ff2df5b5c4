package pipelinestore

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

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

// feedColumns are the columns of an entry a of the feed, with the actor u
// and the entry's sequence.
func feedColumns(pg bool) string {
	seq := "0"
	if pg {
		seq = "a.xid"
	}
	return `a.id, a.team_id, a.job_id, a.user_id, a.token_id, a.action, a.subject_type, a.subject_id, a.changes,
	a.reason, a.approved_by, a.created_at, ` + seq + ` AS seq, u.name AS user_name`
}

// feedVisible is the feed's visibility rule on the entry a for the viewer
// bound to parameter $n: an entry of a job, when the viewer reaches the job
// (the rule on jobs, in visible); an entry of no job (a webhook's), when the
// viewer owns or administers the entry's team.
func feedVisible(n int) string {
	v := "$" + strconv.Itoa(n)
	return `a.team_id IN (SELECT fm.team_id FROM memberships AS fm WHERE fm.user_id = ` + v + `)
AND CASE WHEN a.job_id IS NULL
	THEN EXISTS (SELECT 1 FROM memberships AS om WHERE om.team_id = a.team_id AND om.user_id = ` + v + `
		AND om.role IN ('owner', 'admin'))
	ELSE EXISTS (SELECT 1 FROM jobs AS j WHERE j.id = a.job_id AND ` + visible(n) + `) END`
}

// params numbers a query's parameters as they are added.
type params struct{ values []any }

func (p *params) add(v any) string {
	p.values = append(p.values, v)
	return "$" + strconv.Itoa(len(p.values))
}

// Feed returns the entries after q.After that viewer may read, in feed
// order, at most q.Limit; only those final when it began: on PostgreSQL
// below the horizon, on SQLite up to the last id committed.
func (db *DB) Feed(ctx context.Context, viewer int64, q pipeline.FeedQuery) (pipeline.FeedResult, error) {
	pg := db.dialect == DialectPostgres
	// Read first: every entry up to it is final, whatever commits while
	// the page is read, and any entry still to come lies beyond it.
	var bound int64
	if err := db.read().get(ctx, db.byDialect(qFeedHorizon, qFeedLastID), nil, &bound); err != nil {
		return pipeline.FeedResult{}, formatError(err, "Activity")
	}
	after := q.After
	if q.Since != nil {
		// since names where the page starts: the first entry created at or
		// after it; the entries after that one follow in feed order, as
		// they would from a cursor, whatever their own times.
		var start pipeline.FeedPosition
		err := db.read().get(ctx, db.byDialect(qFeedStartPG, qFeedStart), args(viewer, ts(*q.Since), bound), &start)
		if errors.Is(err, sql.ErrNoRows) {
			var res pipeline.FeedResult
			return res, db.feedEnd(ctx, bound, &res.End)
		}
		if err != nil {
			return pipeline.FeedResult{}, formatError(err, "Activity")
		}
		after = pipeline.FeedPosition{Seq: start.Seq, ID: start.ID - 1}
	}
	p := &params{}
	where := []string{feedVisible(len(p.values) + 1)}
	p.add(viewer)
	if pg {
		where = append(where, `(a.xid, a.id) > (`+p.add(after.Seq)+`, `+p.add(after.ID)+`)`, `a.xid < `+p.add(bound))
	} else {
		where = append(where, `a.id > `+p.add(after.ID), `a.id <= `+p.add(bound))
	}
	if len(q.Actions) > 0 {
		in := make([]string, len(q.Actions))
		for i, a := range q.Actions {
			in[i] = p.add(a)
		}
		where = append(where, `a.action IN (`+strings.Join(in, ", ")+`)`)
	}
	order := "a.id"
	if pg {
		order = "a.xid, a.id"
	}
	query := `SELECT ` + feedColumns(pg) + ` FROM activity AS a LEFT JOIN users AS u ON u.id = a.user_id
WHERE ` + strings.Join(where, "\nAND ") + `
ORDER BY ` + order + ` LIMIT ` + p.add(q.Limit)
	var rows []activityRow
	if err := db.read().all(ctx, query, p.values, &rows); err != nil {
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

// byDialect is the statement of the database's dialect.
func (db *DB) byDialect(pg, sqlite string) string {
	if db.dialect == DialectPostgres {
		return pg
	}
	return sqlite
}

var (
	qFeedHorizon = `SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint`
	qFeedLastID  = preparedSQLite(`SELECT COALESCE(max(id), 0) FROM activity`)
	// The first entry of the viewer's teams created at or after $2 and
	// final by the bound $3.
	qFeedStartPG = `SELECT xid AS seq, id FROM activity
WHERE team_id IN (SELECT team_id FROM memberships WHERE user_id = $1) AND created_at >= $2 AND xid < $3
ORDER BY xid, id LIMIT 1`
	qFeedStart = preparedSQLite(`SELECT 0 AS seq, id FROM activity
WHERE team_id IN (SELECT team_id FROM memberships WHERE user_id = $1) AND created_at >= $2 AND id <= $3
ORDER BY id LIMIT 1`)
	qFeedEndPG = `SELECT xid AS seq, id FROM activity WHERE xid < $1 ORDER BY xid DESC, id DESC LIMIT 1`
)

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
	if err := db.read().get(ctx, qFeedEndPG, args(bound), &r); err != nil {
		return ignoreNoRows(err, "Activity")
	}
	*end = pipeline.FeedPosition{Seq: r.Seq, ID: r.ID}
	return nil
}

// feedEntry returns the entry id as viewer may read it in the feed, or nil.
func (db *DB) feedEntry(ctx context.Context, viewer, id int64) (*pipeline.FeedEntry, error) {
	var rows []activityRow
	if err := db.read().all(ctx, db.byDialect(qFeedEntryPG, qFeedEntrySQLite), args(viewer, id), &rows); err != nil {
		return nil, formatError(err, "Activity")
	}
	if len(rows) == 0 {
		return nil, nil
	}
	e := rows[0].toFeedEntry()
	return &e, nil
}

var (
	qFeedEntryPG = `SELECT ` + feedColumns(true) + ` FROM activity AS a LEFT JOIN users AS u ON u.id = a.user_id
WHERE a.id = $2 AND ` + feedVisible(1)
	qFeedEntrySQLite = preparedSQLite(`SELECT ` + feedColumns(false) + ` FROM activity AS a LEFT JOIN users AS u ON u.id = a.user_id
WHERE a.id = $2 AND ` + feedVisible(1))
)
