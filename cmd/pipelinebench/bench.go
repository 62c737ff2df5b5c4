package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// outcome is what a run found.
type outcome struct {
	Compared int                  // requests the correctness check compared
	Cases    map[string][]caseRow // by case name
	Scale    []scaleRow
	DataOnly []dataOnlyRow
	Erasures []erasureRow
	Stored   storedDocuments // with -sqlite
}

// scaleKeys are the seed keys of the scale part's jobs, smallest first.
var scaleKeys = []string{"scale-small", "scale-large"}

// bench runs the benchmark: dataset, servers, correctness check, load,
// scale, tables on out; progress on log.
func bench(ctx context.Context, cfg config, out, log io.Writer) (_ *outcome, err error) {
	if cfg.SQLite {
		return benchSQLite(ctx, cfg, out, log)
	}
	progress, dir, bin, cleanup, err := setUp(ctx, cfg, log, "the servers' logs")
	if err != nil {
		return nil, err
	}
	defer cleanup()
	schema, err := createSchema(ctx, cfg.DB)
	if err != nil {
		return nil, err
	}
	if cfg.Keep {
		progress("keeping schema %s: %s", schema.Name, schema.DSN)
	} else {
		defer func() {
			if derr := schema.drop(cfg.DB); derr != nil && err == nil {
				err = fmt.Errorf("drop schema %s: %w", schema.Name, derr)
			}
		}()
	}
	w, db, err := prepare(ctx, cfg, bin, schema, dir, progress)
	if err != nil {
		return nil, err
	}
	defer db.Close(context.Background())
	ours, base, stop, err := startServers(ctx, cfg, bin, schema.DSN, dir, progress)
	if err != nil {
		return nil, err
	}
	defer func() {
		if serr := stop(); serr != nil && err == nil {
			err = serr
		}
	}()
	o, err := measure(ctx, cfg, w, db, ours, base, out, progress, schema.Name)
	if err == nil {
		o.DataOnly, err = runDataOnly(ctx, cfg, w, ours, base, schema.DSN, dir, out, progress)
	}
	if err == nil && cfg.Hostile {
		err = runHostile(ctx, cfg, w, ours, out, progress)
	}
	if err == nil && cfg.Erasure {
		o.Erasures, err = erasures(ctx, cfg, w, db, ours, bin, schema.DSN, dir, out, progress)
	}
	return o, err
}

// prepare builds the dataset: the skeleton through `pipelined seed`, then
// the candidates in bulk, then fresh planner statistics.
func prepare(ctx context.Context, cfg config, bin string, schema benchSchema, dir string, progress func(string, ...any)) (*world, *pgx.Conn, error) {
	p := newPlan(cfg.Users, cfg.Jobs)
	keys := scaleKeys[:0]
	if cfg.Scale {
		keys = scaleKeys
	}
	progress("seeding %d users and %d jobs into schema %s with pipelined seed", cfg.Users, cfg.Jobs+len(keys), schema.Name)
	res, err := seed(ctx, bin, schema.DSN, dir, p.seedWorld(keys))
	if err != nil {
		return nil, nil, err
	}
	w, err := newWorld(p, res, keys)
	if err != nil {
		return nil, nil, err
	}
	db, err := pgx.Connect(ctx, schema.DSN)
	if err != nil {
		return nil, nil, err
	}
	progress("inserting %d × %d candidates", cfg.Jobs, cfg.Candidates)
	err = insertCandidates(ctx, db, w.Jobs, cfg.Candidates)
	if err == nil && cfg.Scale {
		progress("inserting %d and %d candidates for the scale part", scaleBase, cfg.ScaleSize)
		err = insertCandidates(ctx, db, w.Scale[:1], scaleBase)
		if err == nil {
			err = insertCandidates(ctx, db, w.Scale[1:], cfg.ScaleSize)
		}
	}
	if err == nil {
		err = analyze(ctx, db)
	}
	if err == nil {
		err = loadCandidates(ctx, db, w.Jobs)
	}
	if err != nil {
		db.Close(context.Background())
		return nil, nil, err
	}
	return w, db, nil
}

// startServers starts ours as an operator would, and the baseline, each
// with its access log in dir, on db: a PostgreSQL DSN, or with -sqlite the
// SQLite file's path; stop stops both.
func startServers(ctx context.Context, cfg config, bin, db, dir string, progress func(string, ...any)) (ours, base *endpoint, stop func() error, err error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, nil, err
	}
	oursAddr, err := freeAddr()
	if err != nil {
		return nil, nil, nil, err
	}
	baseAddr, err := freeAddr()
	if err != nil {
		return nil, nil, nil, err
	}
	metricsAddr, err := freeAddr()
	if err != nil {
		return nil, nil, nil, err
	}
	progress("starting pipelined serve on %s", oursAddr)
	op, err := startProcess(ctx, "pipelined", oursAddr, filepath.Join(dir, "pipelined.log"), bin, []string{"serve"},
		serverEnv("PIPELINE_DB="+db, "PIPELINE_ADDR="+oursAddr, "PIPELINE_RATE_LIMIT="+strconv.Itoa(benchRateLimit),
			// Messages are queued, not sent: the benchmark measures their write.
			"PIPELINE_SMTP_URL=log:", "PIPELINE_MAIL_FROM="+benchFrom.String(), "PIPELINE_WEBHOOK_WORKERS=0",
			// Its /metrics tells the heap allocations per request.
			"PIPELINE_METRICS_ADDR="+metricsAddr))
	if err != nil {
		return nil, nil, nil, err
	}
	progress("starting the baseline on %s", baseAddr)
	dbFlag := "-db"
	if cfg.SQLite {
		dbFlag = "-sqlite"
	}
	bp, err := startProcess(ctx, "baseline", baseAddr, filepath.Join(dir, "baseline.log"), self,
		[]string{"baseline", dbFlag, db, "-addr", baseAddr, "-rate-limit", strconv.Itoa(benchRateLimit)}, serverEnv())
	if err != nil {
		_ = op.stop()
		return nil, nil, nil, err
	}
	stop = func() error {
		err1, err2 := op.stop(), bp.stop()
		if err1 != nil {
			return fmt.Errorf("pipelined: %w", err1)
		}
		if err2 != nil {
			return fmt.Errorf("baseline: %w", err2)
		}
		return nil
	}
	ours, base = newEndpoint("ours", oursAddr, cfg.Conns, clientTimeout), newEndpoint("baseline", baseAddr, cfg.Conns, clientTimeout)
	ours.pid, base.pid = op.cmd.Process.Pid, bp.cmd.Process.Pid
	ours.embedded, base.embedded = cfg.SQLite, cfg.SQLite
	ours.allocs, base.allocs = "http://"+metricsAddr+"/metrics", "http://"+baseAddr+"/debug/allocs"
	return ours, base, stop, nil
}

// measure checks the two servers against each other, then loads them case
// by case and, with -scale, runs the scale part.
func measure(ctx context.Context, cfg config, w *world, db *pgx.Conn, ours, base *endpoint, out io.Writer, progress func(string, ...any), schema string) (*outcome, error) {
	keys := newKeySource()
	cases := map[string][]*scenario{}
	for _, name := range caseNames {
		cases[name] = scenarios(w, name, scenarioNames, keys)
	}
	k := &checker{ctx: ctx, ours: newEndpoint(ours.name, ours.addr, 1, checkTimeout),
		base: newEndpoint(base.name, base.addr, 1, checkTimeout), db: db, w: w, keys: keys}
	if cfg.NoCheck {
		progress("the correctness check is skipped (-no-check)")
	} else {
		progress("checking that both servers answer alike")
		if err := k.check(cases); err != nil {
			return nil, err
		}
	}
	var version string
	if err := db.QueryRow(ctx, "SHOW server_version").Scan(&version); err != nil {
		return nil, err
	}
	o := &outcome{Compared: k.compared, Cases: map[string][]caseRow{}}
	writePreamble(out, cfg, w, "schema "+schema, fmt.Sprintf("PostgreSQL %s, %s, GOMAXPROCS %d", version, runtime.Version(), runtime.GOMAXPROCS(0)), k.compared)
	for _, name := range cfg.Cases {
		var run []*scenario
		for _, s := range cases[name] {
			if selected(cfg.Scenarios, s.name) {
				run = append(run, s)
			}
		}
		rows, err := loadCase(ctx, cfg, name, run, ours, base, progress)
		if err != nil {
			return nil, err
		}
		o.Cases[name] = rows
		writeCaseTable(out, name, len(castFor(w, name).users), rows, "PostgreSQL")
		if name == "hot-job" {
			writeHotJobSummary(out, rows)
		}
		writeRoundsTable(out, name, rows)
	}
	if cfg.Scale {
		slow := newEndpoint("ours", ours.addr, 1, scaleTimeout)
		slowBase := newEndpoint("baseline", base.addr, 1, scaleTimeout)
		rows, err := runScale(ctx, w, db, slow, slowBase, cfg.ScaleSamples, progress)
		if err != nil {
			return nil, err
		}
		o.Scale = rows
		writeScaleTable(out, w, cfg.ScaleSamples, rows)
	}
	return o, nil
}

// loadCase runs a case's rounds: in each, every scenario on both servers
// back to back, the first server alternating between rounds.
func loadCase(ctx context.Context, cfg config, name string, run []*scenario, ours, base *endpoint, progress func(string, ...any)) ([]caseRow, error) {
	results := make([][2][]runResult, len(run))
	for round := range cfg.Rounds {
		order := []int{0, 1}
		if round%2 == 1 {
			order = []int{1, 0}
		}
		for i, s := range run {
			if s.prepare != nil && round == 0 {
				if err := s.prepare(ctx, ours); err != nil {
					return nil, fmt.Errorf("%s/%s: %w", name, s.name, err)
				}
			}
			for _, which := range order {
				e := []*endpoint{ours, base}[which]
				r := drive(ctx, e, s, cfg.Conns, cfg.Warmup, cfg.Duration)
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				results[i][which] = append(results[i][which], r)
				progress("%s round %d/%d: %s on %s: %.0f req/s, p50 %s, p99 %s, %d errors, %d timeouts, CPU per request %s, allocated per request %s %s",
					name, round+1, cfg.Rounds, s.name, e.name, r.RPS, ms(r.P50), ms(r.P99), r.Errors, r.Timeouts, cpuPair(r.ServerCPU, r.DBCPU), bytesPer(r.Alloc), r.Sample)
			}
		}
	}
	rows := make([]caseRow, len(run))
	for i, s := range run {
		rows[i] = caseRow{Scenario: s.name, Ours: summarize(results[i][0]), Base: summarize(results[i][1]),
			OursRounds: results[i][0], BaseRounds: results[i][1]}
	}
	return rows, nil
}

// setUp begins a run: its progress lines on log, its working directory
// (kept with -keep, which says it holds kept) and the server's binary,
// -server or built into that directory; cleanup removes the directory
// unless it is kept.
func setUp(ctx context.Context, cfg config, log io.Writer, kept string) (progress func(string, ...any), dir, bin string, cleanup func(), err error) {
	progress = func(format string, args ...any) { fmt.Fprintf(log, "pipelinebench: "+format+"\n", args...) }
	if cfg.Rounds < 3 {
		progress("%d round(s): fine for a try, but a median means something from 3 on", cfg.Rounds)
	}
	if dir, err = os.MkdirTemp("", "pipelinebench-"); err != nil {
		return nil, "", "", nil, err
	}
	cleanup = func() { _ = os.RemoveAll(dir) }
	if cfg.Keep {
		progress("keeping %s in %s", kept, dir)
		cleanup = func() {}
	}
	bin = cfg.Server
	if bin == "" {
		progress("building ./cmd/pipelined")
		if bin, err = buildServer(ctx, dir); err != nil {
			cleanup()
			return nil, "", "", nil, err
		}
	}
	return progress, dir, bin, cleanup, nil
}
