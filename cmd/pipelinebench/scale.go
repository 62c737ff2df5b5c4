package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pipeline-dev/pipeline/pipeline"
)

const (
	// scaleBase is the size of the scale part's reference job.
	scaleBase = 10_000
	// scalePage is the deep page of the scale part.
	scalePage = 50
	// scaleWarmups are the unmeasured requests before each measurement.
	scaleWarmups = 5
	// scaleSearchGoal is the most the search may take at the large size.
	scaleSearchGoal = 50 * time.Millisecond
	// scaleRatioGoal is how much slower than at scaleBase the other queries
	// may be at the large size.
	scaleRatioGoal = 2.0
	// scaleTimeout bounds one request of the scale part, whose queries on
	// a large job may take far longer than the load's client allows.
	scaleTimeout = 2 * time.Minute
)

// scaleQuery is a query of the scale part: its path's query string and the
// count that its meta.total must equal.
type scaleQuery struct {
	name   string
	search bool // its goal is an absolute time, not a ratio
	query  func(j *benchJob) string
	count  func(ctx context.Context, db *pgx.Conn, j *benchJob) (int, error)
}

func scaleQueries() []scaleQuery {
	all := func(ctx context.Context, db *pgx.Conn, j *benchJob) (n int, err error) {
		err = db.QueryRow(ctx, `SELECT count(*) FROM candidates WHERE job_id = $1`, j.ID).Scan(&n)
		return n, err
	}
	fragment := searchFragments[0]
	return []scaleQuery{
		{name: "page 1", query: func(*benchJob) string { return "" }, count: all},
		{name: "stage filter, page 1", query: func(j *benchJob) string {
			return "?stage=" + strconv.FormatInt(j.Stages[stageScreening-1], 10)
		}, count: func(ctx context.Context, db *pgx.Conn, j *benchJob) (n int, err error) {
			err = db.QueryRow(ctx, `SELECT count(*) FROM candidates WHERE job_id = $1 AND stage_id = $2`,
				j.ID, j.Stages[stageScreening-1]).Scan(&n)
			return n, err
		}},
		{name: "page " + strconv.Itoa(scalePage), query: func(*benchJob) string { return "?page=" + strconv.Itoa(scalePage) }, count: all},
		searchQuery(fragment),
		searchQuery(commonFragment),
	}
}

// searchQuery is the scale query of a search for fragment.
func searchQuery(fragment string) scaleQuery {
	return scaleQuery{name: "search " + strconv.Quote(fragment), search: true, query: func(*benchJob) string {
		return "?search=" + url.QueryEscape(fragment)
	}, count: func(ctx context.Context, db *pgx.Conn, j *benchJob) (n int, err error) {
		pattern := "%" + likeEscaper.Replace(pipeline.Fold(fragment)) + "%"
		err = db.QueryRow(ctx, `SELECT count(*) FROM candidates WHERE job_id = $1
AND (name_fold LIKE $2 ESCAPE '\' OR email_fold LIKE $2 ESCAPE '\')`, j.ID, pattern).Scan(&n)
		return n, err
	}}
}

// scaleRow is one query of the scale table.
type scaleRow struct {
	Query      string
	Search     bool
	Ours, Base [2]time.Duration // p50 on the reference job and on the large one
	// OursP99 and BaseP99 are the p99s, likewise.
	OursP99, BaseP99 [2]time.Duration
	Totals           [2]int // the exact counts
}

// ratio is the large job's p50 over the reference job's.
func ratio(p [2]time.Duration) float64 {
	if p[0] <= 0 {
		return 0
	}
	return float64(p[1]) / float64(p[0])
}

// met reports whether ours meets the query's goal.
func (r scaleRow) met() bool {
	if r.Search {
		return r.Ours[1] <= scaleSearchGoal
	}
	return ratio(r.Ours) <= scaleRatioGoal
}

// runScale measures each scale query on both jobs and both servers with
// sequential requests by the first owner, after checking on the first
// answer that meta.total is the exact count and that the two servers
// answer the same bytes.
func runScale(ctx context.Context, w *world, db *pgx.Conn, ours, base *endpoint, samples int, progress func(string, ...any)) ([]scaleRow, error) {
	var rows []scaleRow
	for _, q := range scaleQueries() {
		row := scaleRow{Query: q.name, Search: q.search}
		for i, j := range w.Scale {
			n, err := q.count(ctx, db, j)
			if err != nil {
				return nil, err
			}
			row.Totals[i] = n
			r := request{method: http.MethodGet, path: candidatesPath(j) + q.query(j), token: w.Users[0].Token}
			if err := checkScaleAnswer(ctx, ours, base, r, n); err != nil {
				return nil, fmt.Errorf("scale %s with %d candidates: %w", q.name, j.Size, err)
			}
			if row.Ours[i], row.OursP99[i], err = sequentialLatency(ctx, ours, r, samples); err != nil {
				return nil, err
			}
			if row.Base[i], row.BaseP99[i], err = sequentialLatency(ctx, base, r, samples); err != nil {
				return nil, err
			}
			progress("scale: %s with %d candidates: ours p50 %s, baseline p50 %s", q.name, j.Size, ms(row.Ours[i]), ms(row.Base[i]))
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// checkScaleAnswer requires 200, meta.total equal to the exact count, and
// the same body from both servers.
func checkScaleAnswer(ctx context.Context, ours, base *endpoint, r request, total int) error {
	o, err := ours.do(ctx, r)
	if err != nil {
		return err
	}
	b, err := base.do(ctx, r)
	if err != nil {
		return err
	}
	var list struct {
		Meta struct {
			Total int `json:"total"`
		} `json:"meta"`
	}
	if o.status != http.StatusOK || json.Unmarshal(o.body, &list) != nil || list.Meta.Total != total {
		return fmt.Errorf("ours answered %d with meta.total %d, want 200 and the exact count %d: %s", o.status, list.Meta.Total, total, clip(o.body, 300))
	}
	if b.status != o.status || !bytes.Equal(b.body, o.body) {
		return mismatch("scale", r, "bodies differ", o, b)
	}
	return nil
}

// sequentialLatency sends r scaleWarmups times, then samples times, one
// after the other, and returns the p50 and p99 of the measured ones.
func sequentialLatency(ctx context.Context, e *endpoint, r request, samples int) (p50, p99 time.Duration, err error) {
	lat := make([]time.Duration, 0, samples)
	for i := range scaleWarmups + samples {
		start := time.Now()
		resp, err := e.do(ctx, r)
		took := time.Since(start)
		if err != nil {
			return 0, 0, fmt.Errorf("%s %s: %w", e.name, r.path, err)
		}
		if resp.status != http.StatusOK {
			return 0, 0, fmt.Errorf("%s %s: %d %s", e.name, r.path, resp.status, clip(resp.body, 200))
		}
		if i >= scaleWarmups {
			lat = append(lat, took)
		}
	}
	p50, p99 = percentiles(lat)
	return p50, p99, nil
}
