package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// erasureTables are the tables an erasure must never scan whole
// (privacy.md; issue 35).
var erasureTables = []string{"candidates", "activity", "messages", "webhook_deliveries"}

// scrubbedTables are the tables the store vacuums after an erasure has
// committed, inside the request (pipelinestore's erasedTables, Scrub).
var scrubbedTables = "candidates, candidate_search, notes, ratings, messages, invitation_mails, interviews, activity, idempotency_keys, river_job"

// statsSettle is how long to wait for PostgreSQL's table statistics to
// count a finished statement: a backend that went idle reports them
// within 10 s (PGSTAT_IDLE_INTERVAL).
const statsSettle = 11 * time.Second

// insertActivity gives every candidate the activity entry its intake
// would have written, so that the log is as large as the candidates
// (one entry per candidate), and a sent message to each candidate of
// jobIDs, then vacuums and analyzes both.
func insertActivity(ctx context.Context, conn *pgx.Conn, jobIDs []int64) error {
	if _, err := conn.Exec(ctx, `INSERT INTO activity (team_id, job_id, user_id, ip, action, subject_type, subject_id, changes, created_at)
SELECT j.team_id, c.job_id, j.owner_id, '', $1, 'candidate', c.id, '{}', c.created_at
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id`, pipeline.ActionCandidateCreated); err != nil {
		return fmt.Errorf("insert activity: %w", err)
	}
	// messages is then no table small enough to read whole.
	if _, err := conn.Exec(ctx, `INSERT INTO messages (candidate_id, user_id, recipient, reply_to, subject, body, status, send_at, sent_at, attempts, created_at)
SELECT c.id, j.owner_id, c.email, '', 'Hello', 'Thank you for applying.', 'sent', c.created_at, c.created_at, 1, c.created_at
FROM candidates AS c JOIN jobs AS j ON j.id = c.job_id
WHERE c.job_id = ANY($1)`, jobIDs); err != nil {
		return fmt.Errorf("insert messages: %w", err)
	}
	_, err := conn.Exec(ctx, "VACUUM (ANALYZE) activity, messages")
	return err
}

// erasureRow is one timed erasure.
type erasureRow struct {
	Kind     string // where the person's candidates are
	Took     time.Duration
	Erased   int
	Vacuum   time.Duration    // a VACUUM of scrubbedTables just after it
	SeqScans map[string]int64 // sequential scans of erasureTables during it
	Control  map[string]int64 // and during as long a quiet time before it
}

// erasurePlaces are the jobs of a person's three candidates: the last
// three of the -candidates jobs, and, with -scale, the job of -scale-size,
// the job of 10,000 and one of those three.
func erasurePlaces(w *world) map[string][]*benchJob {
	last := w.Jobs[len(w.Jobs)-3:] // -erasure needs three jobs
	places := map[string][]*benchJob{fmt.Sprintf("three %s-candidate jobs", thousands(last[0].Size)): last}
	if len(w.Scale) == 2 {
		places[fmt.Sprintf("the %s, %s and %s-candidate jobs", thousands(w.Scale[1].Size), thousands(w.Scale[0].Size), thousands(last[0].Size))] =
			[]*benchJob{w.Scale[1], w.Scale[0], last[0]}
	}
	return places
}

// addPerson adds a person with a candidate in each of jobs through ours'
// API, with a note and a queued message each, and returns its email.
func addPerson(ctx context.Context, e *endpoint, token string, jobs []*benchJob, n int) (string, error) {
	email := fmt.Sprintf("erase-%d-%s@bench.example", n, randomHex(4))
	for _, j := range jobs {
		body := fmt.Sprintf(`{"name":"Erasable Person %d","email":%q}`, n, email)
		resp, err := e.do(ctx, intakeRequest(token, j, body, ""))
		if err != nil || resp.status != http.StatusCreated {
			return "", fmt.Errorf("intake for erasure: %v %d %s", err, resp.status, clip(resp.body, 300))
		}
		var created struct{ Data struct{ ID int64 } }
		if err := json.Unmarshal(resp.body, &created); err != nil {
			return "", err
		}
		t := target{job: &benchJob{ID: j.ID, Cands: []int64{created.Data.ID}}}
		for _, r := range []request{
			noteRequest(token, t, "A note about Erasable Person", ""),
			messageRequest(token, t, "Hello Erasable Person", ""),
		} {
			resp, err := e.do(ctx, r)
			if err != nil || resp.status >= 300 {
				return "", fmt.Errorf("%s for erasure: %v %d %s", r.path, err, resp.status, clip(resp.body, 300))
			}
		}
	}
	return email, nil
}

// seqScans reads the sequential scans of erasureTables so far.
func seqScans(ctx context.Context, db *pgx.Conn) (map[string]int64, error) {
	if _, err := db.Exec(ctx, "SELECT pg_stat_clear_snapshot()"); err != nil {
		return nil, err
	}
	rows, err := db.Query(ctx, `SELECT relname, COALESCE(seq_scan, 0) FROM pg_stat_user_tables
WHERE schemaname = current_schema() AND relname = ANY($1)`, erasureTables)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			return nil, err
		}
		out[name] = n
	}
	return out, rows.Err()
}

func delta(after, before map[string]int64) map[string]int64 {
	d := map[string]int64{}
	for k, v := range after {
		d[k] = v - before[k]
	}
	return d
}

// erase asks ours to erase email and returns how long it took and how
// many candidates it erased.
func erase(ctx context.Context, e *endpoint, token, email string) (time.Duration, int, error) {
	body := fmt.Sprintf(`{"email":%q,"reason":"The person asked for erasure."}`, email)
	start := time.Now()
	resp, err := e.do(ctx, request{method: http.MethodPost, path: "/api/v1/privacy/erasures", token: token, body: []byte(body)})
	took := time.Since(start)
	if err != nil || resp.status != http.StatusOK {
		return 0, 0, fmt.Errorf("erasure: %v %d %s", err, resp.status, clip(resp.body, 300))
	}
	var out struct {
		Data struct {
			CandidateIDs []int64 `json:"candidate_ids"`
		}
	}
	if err := json.Unmarshal(resp.body, &out); err != nil {
		return 0, 0, err
	}
	return took, len(out.Data.CandidateIDs), nil
}

// runErasures times people erasures of a person with three candidates in
// each place, the places taking turns, and counts the sequential scans
// PostgreSQL made of erasureTables during each and during as long a
// quiet time just before it.
func runErasures(ctx context.Context, w *world, db *pgx.Conn, ours *endpoint, people int, progress func(string, ...any)) ([]erasureRow, error) {
	places := erasurePlaces(w)
	kinds := make([]string, 0, len(places))
	for k := range places {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	token := w.Users[0].Token // an owner: privacy:manage
	var rows []erasureRow
	for i := range people {
		for _, kind := range kinds {
			email, err := addPerson(ctx, ours, token, places[kind], len(rows))
			if err != nil {
				return nil, err
			}
			s0, err := seqScans(ctx, db)
			if err != nil {
				return nil, err
			}
			if !sleepUntil(ctx, time.Now().Add(statsSettle)) {
				return nil, ctx.Err()
			}
			s1, err := seqScans(ctx, db)
			if err != nil {
				return nil, err
			}
			took, n, err := erase(ctx, ours, token, email)
			if err != nil {
				return nil, err
			}
			if !sleepUntil(ctx, time.Now().Add(statsSettle)) {
				return nil, ctx.Err()
			}
			s2, err := seqScans(ctx, db)
			if err != nil {
				return nil, err
			}
			start := time.Now()
			if _, err := db.Exec(ctx, "VACUUM "+scrubbedTables); err != nil {
				return nil, err
			}
			r := erasureRow{Kind: kind, Took: took, Erased: n, Vacuum: time.Since(start), SeqScans: delta(s2, s1), Control: delta(s1, s0)}
			progress("erasure %d/%d, %s: %s, %d candidates, sequential scans during it %v (before it %v); the same VACUUM as its own, just after: %s",
				i+1, people, kind, ms(took), n, r.SeqScans, r.Control, ms(r.Vacuum))
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// writeErasureTable writes each erasure's time and scans.
func writeErasureTable(out io.Writer, rows []erasureRow) {
	fmt.Fprintln(out, "## erasure: a person with three candidates, each with a note and a queued message")
	fmt.Fprintln(out)
	fmt.Fprintf(out, "POST /api/v1/privacy/erasures on ours (the baseline has no erasure), one at a time. Sequential scans of %s counted by pg_stat_user_tables during the erasure and during as long a quiet time before it (%s each).\n\n",
		strings.Join(erasureTables, ", "), statsSettle)
	fmt.Fprintln(out, "The store vacuums "+scrubbedTables+" after an erasure commits, in the request; the benchmark runs the same VACUUM again just after each, for its cost with nothing left to clean.")
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| candidates in | took | erased | the same VACUUM, just after | sequential scans during | during as long before |")
	fmt.Fprintln(out, "|---|--:|--:|--:|---|---|")
	show := func(m map[string]int64) string {
		var parts []string
		for _, t := range erasureTables {
			if m[t] != 0 {
				parts = append(parts, fmt.Sprintf("%s %d", t, m[t]))
			}
		}
		if len(parts) == 0 {
			return "none"
		}
		return strings.Join(parts, ", ")
	}
	for _, r := range rows {
		fmt.Fprintf(out, "| %s | %s | %d | %s | %s | %s |\n", r.Kind, ms(r.Took), r.Erased, ms(r.Vacuum), show(r.SeqScans), show(r.Control))
	}
	fmt.Fprintln(out)
}

// explainRole makes a login role whose sessions load auto_explain and
// log the plan of every statement, nested ones included, and returns dsn
// as that role and a function that drops it. PostgreSQL sets these for a
// superuser's sessions only, and a role keeps them off every other
// session of the server.
func explainRole(ctx context.Context, db *pgx.Conn, dsn string) (string, func(), error) {
	role := "pipelinebench_explain_" + randomHex(4)
	for _, q := range []string{
		"CREATE ROLE " + role + " LOGIN SUPERUSER",
		"ALTER ROLE " + role + " SET session_preload_libraries = 'auto_explain'",
		"ALTER ROLE " + role + " SET auto_explain.log_min_duration = 0",
		"ALTER ROLE " + role + " SET auto_explain.log_nested_statements = on",
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			return "", nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	drop := func() { _, _ = db.Exec(context.Background(), "DROP ROLE IF EXISTS "+role) }
	u, err := url.Parse(dsn)
	if err != nil {
		drop()
		return "", nil, err
	}
	u.User = url.User(role)
	return u.String(), drop, nil
}

// loggedPlans reads the plans auto_explain wrote to the PostgreSQL log at
// path from offset on: each plan's text, its query and plan lines.
func loggedPlans(path string, offset int64) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, err
	}
	var plans []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			plans = append(plans, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.Contains(line, "LOG:  duration:") && strings.Contains(line, "plan:"):
			flush()
			cur = []string{strings.TrimSpace(line[strings.Index(line, "duration:"):])}
		case cur != nil && (strings.HasPrefix(line, "\t") || strings.HasPrefix(line, " ")):
			cur = append(cur, strings.TrimRight(line, " "))
		default:
			flush()
		}
	}
	flush()
	return plans, sc.Err()
}

var (
	seqScanOf    = regexp.MustCompile(`Seq Scan on (\w+)`)
	planDuration = regexp.MustCompile(`^duration: ([0-9.]+) ms`)
)

// writeErasurePlans writes the plans of one erasure, as auto_explain
// logged them, and which of erasureTables any scanned whole.
func writeErasurePlans(out io.Writer, took time.Duration, plans []string) {
	scanned := map[string]bool{}
	var relevant []string
	var total time.Duration
	for _, p := range plans {
		if strings.Contains(p, "river_") && !strings.Contains(p, "candidate") {
			continue // the queue's own polling, not the erasure
		}
		relevant = append(relevant, p)
		if m := planDuration.FindStringSubmatch(p); m != nil {
			if d, err := time.ParseDuration(m[1] + "ms"); err == nil {
				total += d
			}
		}
		for _, m := range seqScanOf.FindAllStringSubmatch(p, -1) {
			if slices.Contains(erasureTables, m[1]) {
				scanned[m[1]] = true
			}
		}
	}
	fmt.Fprintf(out, "### the plans of one erasure (%s with auto_explain on): %d statements, %s in PostgreSQL's executor in all (nested statements counted in their callers too)\n\n",
		ms(took), len(relevant), ms(total))
	if len(scanned) == 0 {
		fmt.Fprintf(out, "No statement scans %s whole.\n\n", strings.Join(erasureTables, ", "))
	} else {
		var names []string
		for t := range scanned {
			names = append(names, t)
		}
		slices.Sort(names)
		fmt.Fprintf(out, "**Scanned whole: %s.**\n\n", strings.Join(names, ", "))
	}
	fmt.Fprintln(out, "```")
	for _, p := range relevant {
		fmt.Fprintln(out, p)
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out, "```")
	fmt.Fprintln(out)
}

// erasures runs the erasure part: the timed erasures, then, with -pg-log,
// one more on a server of its own whose sessions log their plans.
func erasures(ctx context.Context, cfg config, w *world, db *pgx.Conn, ours *endpoint, bin, dsn, dir string, out io.Writer, progress func(string, ...any)) ([]erasureRow, error) {
	// After the load and its correctness check, which counts each
	// candidate's activity entries.
	progress("inserting an activity entry per candidate and a message per candidate of the jobs of -candidates")
	var jobIDs []int64
	for _, j := range w.Jobs {
		jobIDs = append(jobIDs, j.ID)
	}
	if err := insertActivity(ctx, db, jobIDs); err != nil {
		return nil, err
	}
	rows, err := runErasures(ctx, w, db, newEndpoint("ours", ours.addr, 1, scaleTimeout), cfg.People, progress)
	if err != nil {
		return rows, err
	}
	writeErasureTable(out, rows)
	if cfg.PGLog == "" {
		return rows, nil
	}
	addr, err := freeAddr()
	if err != nil {
		return rows, err
	}
	explained, drop, err := explainRole(ctx, db, dsn)
	if err != nil {
		return rows, err
	}
	defer drop()
	progress("starting pipelined serve with auto_explain on %s", addr)
	p, err := startProcess(ctx, "pipelined (auto_explain)", addr, dir+"/pipelined-explain.log", bin, []string{"serve"},
		serverEnv("PIPELINE_DB="+explained, "PIPELINE_ADDR="+addr, "PIPELINE_RATE_LIMIT=1000000000",
			"PIPELINE_SMTP_URL=log:", "PIPELINE_MAIL_FROM=Benchmark <bench@bench.example>", "PIPELINE_WEBHOOK_WORKERS=0"))
	if err != nil {
		return rows, err
	}
	defer p.stop()
	e := newEndpoint("ours", addr, 1, scaleTimeout)
	jobs := w.Jobs[len(w.Jobs)-3:]
	if len(w.Scale) == 2 { // the large job's when there is one
		jobs = []*benchJob{w.Scale[1], w.Scale[0], jobs[0]}
	}
	email, err := addPerson(ctx, e, w.Users[0].Token, jobs, 1000)
	if err != nil {
		return rows, err
	}
	info, err := os.Stat(cfg.PGLog)
	if err != nil {
		return rows, err
	}
	took, _, err := erase(ctx, e, w.Users[0].Token, email)
	if err != nil {
		return rows, err
	}
	time.Sleep(time.Second) // the log is written by another process
	plans, err := loggedPlans(cfg.PGLog, info.Size())
	if err != nil {
		return rows, err
	}
	writeErasurePlans(out, took, plans)
	return rows, nil
}
