// Command failover is the load and the checks of .ci/failover/run: writers
// add notes with idempotency keys through two pipelined replicas while a
// reader follows the activity feed; mid-run it kills the node of the
// Patroni leader, measures the time until the standby is promoted and the
// longest pause in acknowledged writes, then checks through the database
// that every acknowledged note exists exactly once and that the feed showed
// each exactly once. It prints a summary and exits 1 when a check fails.
//
//	failover -api URL,URL -patroni URL,URL -kill CMD -seed FILE -db DSN
//
// CMD is run with the leader's node number (0 or 1, the index in -patroni)
// and must kill that node at once. FILE is the output of pipelined seed.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// options are the command line.
type options struct {
	apis       []string
	patroni    []string
	kill       string
	seed       string
	dsn        string
	writers    int
	pause      time.Duration
	retryDelay time.Duration
	warmup     time.Duration
	after      time.Duration
	resume     time.Duration
	limit      time.Duration
}

// seeded is what the run reads of pipelined seed's output.
type seeded struct {
	Jobs       map[string]int64  `json:"jobs"`
	Candidates map[string]int64  `json:"candidates"`
	Tokens     map[string]string `json:"tokens"`
}

func main() {
	o := parseOptions()
	ok, err := run(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "failover:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

func parseOptions() options {
	var o options
	var apis, patroni string
	flag.StringVar(&apis, "api", "", "the two pipelined replicas' base URLs, comma-separated")
	flag.StringVar(&patroni, "patroni", "", "the two Patroni REST base URLs, comma-separated")
	flag.StringVar(&o.kill, "kill", "", "command that kills a node, given its number")
	flag.StringVar(&o.seed, "seed", "", "the output of pipelined seed")
	flag.StringVar(&o.dsn, "db", "", "PostgreSQL DSN (through HAProxy) for the checks")
	flag.IntVar(&o.writers, "writers", 6, "concurrent writers")
	flag.DurationVar(&o.pause, "pause", 20*time.Millisecond, "each writer's pause between notes")
	flag.DurationVar(&o.retryDelay, "retry-delay", 100*time.Millisecond, "wait before retrying a write or a feed read")
	flag.DurationVar(&o.warmup, "warmup", 8*time.Second, "load before the kill")
	flag.DurationVar(&o.after, "after", 8*time.Second, "load after writes resume")
	flag.DurationVar(&o.resume, "resume", 5*time.Second, "bound on the first acknowledged write after the promotion")
	flag.DurationVar(&o.limit, "limit", 150*time.Second, "bound on the whole run")
	flag.Parse()
	o.apis = strings.Split(apis, ",")
	o.patroni = strings.Split(patroni, ",")
	if len(o.apis) != 2 || len(o.patroni) != 2 || o.kill == "" || o.seed == "" || o.dsn == "" || o.writers < 1 {
		fmt.Fprintln(os.Stderr, "usage: failover -api URL,URL -patroni URL,URL -kill CMD -seed FILE -db DSN")
		flag.PrintDefaults()
		os.Exit(2)
	}
	return o
}

// world is the seeded job, its candidates and the token.
type world struct {
	job        int64
	candidates []int64
	token      string
}

func readWorld(path string) (world, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return world{}, err
	}
	var s seeded
	if err := json.Unmarshal(b, &s); err != nil {
		return world{}, fmt.Errorf("%s: %w", path, err)
	}
	w := world{job: s.Jobs["job"], token: s.Tokens["load"]}
	for _, k := range []string{"c0", "c1", "c2", "c3"} {
		w.candidates = append(w.candidates, s.Candidates[k])
	}
	if w.job == 0 || w.token == "" || w.candidates[3] == 0 {
		return world{}, fmt.Errorf("%s: no job, candidates c0-c3 or token load", path)
	}
	return w, nil
}

// run drives the whole scenario and reports whether every check passed.
func run(o options) (bool, error) {
	w, err := readWorld(o.seed)
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.limit)
	defer cancel()
	client := &http.Client{
		Timeout:   20 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 4 * o.writers},
	}
	rec := newRecorder(time.Now())
	feed := newFeedReader(client, o, w.token, rec)
	feedCtx, stopFeed := context.WithCancel(ctx)
	var feedDone sync.WaitGroup
	feedDone.Add(1)
	go func() { defer feedDone.Done(); feed.run(feedCtx) }()

	// Writers stop starting notes at writeCtx's end; a note begun before is
	// retried until acknowledged, or abandoned at giveUp's end.
	writeCtx, stopWriting := context.WithCancel(ctx)
	giveUp, abandon := context.WithCancel(ctx)
	defer abandon()
	var writersDone sync.WaitGroup
	for n := range o.writers {
		wr := &writer{n: n, client: client, o: o, w: w, rec: rec, giveUp: giveUp}
		writersDone.Add(1)
		go func() { defer writersDone.Done(); wr.run(writeCtx) }()
	}

	sw, failErr := switchover(ctx, o, client, rec)
	if failErr == nil {
		failErr = waitResumed(ctx, rec, sw.promoted, o.after)
	}
	stopWriting()
	time.AfterFunc(30*time.Second, abandon)
	writersDone.Wait()
	feed.catchUp(ctx, rec.ackedIDs(), 20*time.Second)
	stopFeed()
	feedDone.Wait()

	// The checks get their own time: a load that ran out of it still reports.
	db, err := check(context.Background(), o.dsn, rec, feed)
	if err != nil {
		db = []result{verdict(false, err.Error(), nil)}
	}
	return report(o, rec, sw, failErr, db), nil
}

// waitResumed waits for the first write acknowledged after the promotion,
// then lets the load run for a while longer.
func waitResumed(ctx context.Context, rec *recorder, promoted time.Time, after time.Duration) error {
	bound := time.NewTimer(30 * time.Second)
	defer bound.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !rec.ackedSince(promoted) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-bound.C:
			return fmt.Errorf("no write acknowledged within 30s of the promotion")
		case <-tick.C:
		}
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(after):
		return nil
	}
}
