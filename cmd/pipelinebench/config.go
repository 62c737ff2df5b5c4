package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"
)

// dbEnv names the environment variable that gives -db its default.
const dbEnv = "PIPELINE_BENCH_DB"

// config is the command line of a benchmark run.
type config struct {
	DB            string
	Conns         int
	Users         int
	Jobs          int
	Candidates    int // per job
	Rounds        int
	Warmup        time.Duration
	Duration      time.Duration
	Scale         bool
	ScaleSize     int
	ScaleSamples  int
	Server        string // prebuilt pipelined; "" builds one
	Keep          bool
	NoCheck       bool     // skip the correctness check
	DataOnly      bool     // also load the job read and the stage filter against the data-only baseline
	Erasure       bool     // time erasures of a person (erasure.go)
	People        int      // erasures per place
	PGLog         string   // the PostgreSQL server's log, for the plans of one erasure; "" skips them
	Hostile       bool     // /me with and without hostile files being read (hostile.go)
	HostileConns  int      // readers of /me in the hostile part
	HostileBeside string   // a shell command run instead of the uploads, as a control (hostile.go)
	SQLite        bool     // ours and the SQLite baseline on a SQLite file (sqlite.go); -db unused
	PauseText     bool     // with SQLite: River's documents queue paused during the loads
	Scenarios     []string // in run order
	Cases         []string // in run order
}

// errHelp reports that the usage was asked for and printed.
var errHelp = errors.New("help requested")

// parseConfig reads the command line; -db defaults to PIPELINE_BENCH_DB.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var cfg config
	var scenarios, cases string
	fs := flag.NewFlagSet("pipelinebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.DB, "db", getenv(dbEnv), "PostgreSQL server URL (default $"+dbEnv+"); the run uses a fresh schema of it")
	fs.IntVar(&cfg.Conns, "conns", 32, "concurrent connections of the load generator")
	fs.IntVar(&cfg.Users, "users", 64, "users, each with a token of every scope")
	fs.IntVar(&cfg.Jobs, "jobs", 100, "jobs")
	fs.IntVar(&cfg.Candidates, "candidates", 1000, "candidates per job")
	fs.IntVar(&cfg.Rounds, "rounds", 3, "rounds; tables show the median over rounds")
	fs.DurationVar(&cfg.Warmup, "warmup", 2*time.Second, "warm-up before each measurement")
	fs.DurationVar(&cfg.Duration, "duration", 5*time.Second, "measurement of each scenario on each server")
	fs.BoolVar(&cfg.Scale, "scale", false, "also run the scale part: one job with 10,000 and one with -scale-size candidates")
	fs.IntVar(&cfg.ScaleSize, "scale-size", 1_000_000, "candidates of the large job of the scale part")
	fs.IntVar(&cfg.ScaleSamples, "scale-samples", 50, "sequential requests measured per query of the scale part")
	fs.StringVar(&cfg.Server, "server", "", "prebuilt pipelined binary (default: go build ./cmd/pipelined of this module)")
	fs.BoolVar(&cfg.DataOnly, "data-only", true, "also load the job read and the stage filter (spread) on the baseline without authentication and limiter")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the schema (and print its DSN) instead of dropping it")
	fs.BoolVar(&cfg.NoCheck, "no-check", false, "skip the correctness check, to load a server that lacks some scenario's operations (an earlier build); the report says it was skipped")
	fs.BoolVar(&cfg.Erasure, "erasure", false, "also time erasures of a person with three candidates, in small jobs and, with -scale, in the large one; the activity log gets an entry per candidate")
	fs.IntVar(&cfg.People, "erasure-people", 3, "erasures per place of the person's candidates")
	fs.StringVar(&cfg.PGLog, "pg-log", "", "the PostgreSQL server's log file, readable here: with -erasure, one more erasure runs on a server with auto_explain and its plans are shown")
	fs.BoolVar(&cfg.Hostile, "hostile", false, "also measure /me on ours with and without hostile files (a zip bomb, a reference-loop PDF, a 10 MiB PDF of tiny pages) being read in the background")
	fs.IntVar(&cfg.HostileConns, "hostile-conns", 1, "readers of /me in a closed loop in the hostile part")
	fs.StringVar(&cfg.HostileBeside, "hostile-beside", "", "in the hostile part, run this shell command beside /me instead of uploading the files (a control; $HOSTILE_DIR holds the files)")
	fs.BoolVar(&cfg.SQLite, "sqlite", false, "run on SQLite instead: ours on a fresh SQLite file in a temporary directory (bytes in the database) against a Gin + SQLite baseline on the same file; scenarios "+strings.Join(sqliteScenarios, " and ")+", -db unused")
	fs.BoolVar(&cfg.PauseText, "pause-text", false, "with -sqlite: pause River's documents queue during the loads, so that ours reads no text meanwhile (the uploads' text jobs wait)")
	fs.StringVar(&scenarios, "scenarios", strings.Join(scenarioNames, ","), "scenarios to load, comma-separated (with -sqlite: "+strings.Join(sqliteScenarios, ",")+")")
	fs.StringVar(&cases, "cases", strings.Join(caseNames, ","), "cases to load, comma-separated (with -sqlite: spread by default, or "+strings.Join(sqliteCases, ", ")+")")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return config{}, errHelp
		}
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	knownScenarios, knownCases := scenarioNames, caseNames
	if cfg.PauseText && !cfg.SQLite {
		return config{}, errors.New("-pause-text goes with -sqlite")
	}
	if cfg.SQLite {
		knownScenarios, knownCases = sqliteScenarios, sqliteCases
		if !set["scenarios"] {
			scenarios = strings.Join(sqliteScenarios, ",")
		}
		if !set["cases"] {
			cases = "spread"
		}
		for _, name := range []string{"scale", "erasure", "data-only", "pg-log"} {
			if set[name] {
				return config{}, fmt.Errorf("-%s runs on PostgreSQL only, not with -sqlite", name)
			}
		}
		if cfg.Hostile && cfg.PauseText {
			return config{}, errors.New("-hostile needs the text read: not with -pause-text")
		}
		cfg.DataOnly = false
	}
	var err error
	if cfg.Scenarios, err = pickNames("scenario", scenarios, knownScenarios); err != nil {
		return config{}, err
	}
	if cfg.Cases, err = pickNames("case", cases, knownCases); err != nil {
		return config{}, err
	}
	return cfg, cfg.validate()
}

func (cfg config) validate() error {
	if cfg.SQLite {
		return cfg.validateLoad()
	}
	if cfg.DB == "" {
		return fmt.Errorf("no database: pass -db postgres://USER@HOST:PORT/DB?sslmode=disable or set %s", dbEnv)
	}
	if u, err := url.Parse(cfg.DB); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return fmt.Errorf("-db must be a postgres:// or postgresql:// URL")
	}
	if err := cfg.validateLoad(); err != nil {
		return err
	}
	switch {
	case cfg.Scale && cfg.ScaleSize < scalePage*pageSize:
		return fmt.Errorf("-scale-size must be at least %d, so that page %d has candidates", scalePage*pageSize, scalePage)
	case cfg.Erasure && (cfg.Jobs < 3 || cfg.People < 1):
		return errors.New("-erasure needs -jobs of 3 or more and -erasure-people of 1 or more")
	case cfg.Scale && cfg.ScaleSamples < 1:
		return errors.New("-scale-samples must be at least 1")
	}
	return nil
}

// validateLoad checks the flags of the dataset and the load.
func (cfg config) validateLoad() error {
	switch {
	case cfg.Conns < 1 || cfg.Users < 1 || cfg.Jobs < 1 || cfg.Rounds < 1:
		return errors.New("-conns, -users, -jobs and -rounds must be at least 1")
	case cfg.Candidates < minCandidates:
		return fmt.Errorf("-candidates must be at least %d", minCandidates)
	case cfg.Warmup < 0 || cfg.Duration <= 0:
		return errors.New("-warmup may not be negative and -duration must be positive")
	}
	return nil
}

// pickNames splits a comma list and checks each name against known, keeping
// the order of known.
func pickNames(kind, list string, known []string) ([]string, error) {
	var picked []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if !slices.Contains(known, n) {
			return nil, fmt.Errorf("unknown %s %q (known: %s)", kind, n, strings.Join(known, ", "))
		}
		picked = append(picked, n)
	}
	if len(picked) == 0 {
		return nil, fmt.Errorf("no %s selected", kind)
	}
	var ordered []string
	for _, n := range known {
		if slices.Contains(picked, n) {
			ordered = append(ordered, n)
		}
	}
	return ordered, nil
}
