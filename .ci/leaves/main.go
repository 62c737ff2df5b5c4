// Command leaves runs every leaf test of the module alone and reports those
// that fail: the house rule is that every test and subtest passes when run
// alone with `go test -run` on its full name, because it seeds what it needs.
//
//	go run ./.ci/leaves [-p 2] [-pkg REGEXP] [-run REGEXP] [-v]
//
// For each package it compiles the test binary once, runs it whole to learn
// its tests (a leaf is a test without subtests; examples are not leaves),
// then runs each leaf alone, anchored on every element of its name, from the
// package directory and with the caller's environment (so that
// PIPELINE_TEST_POSTGRES reaches it). It prints each failing leaf with the
// tail of its output, then "N leaves, N passed alone, N failed", and exits 1
// on any failure.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

func main() {
	var o options
	flag.IntVar(&o.parallel, "p", 2, "leaves run at a time")
	pkg := flag.String("pkg", "", "run only packages whose import path matches this regexp")
	run := flag.String("run", "", "run only leaves whose full name matches this regexp")
	flag.DurationVar(&o.timeout, "timeout", 5*time.Minute, "test timeout of each run of a test binary")
	flag.IntVar(&o.tail, "tail", 30, "lines of output shown for a failing leaf")
	flag.BoolVar(&o.verbose, "v", false, "print every leaf's result, not only failures")
	flag.Parse()
	o.pkg = regexp.MustCompile(*pkg)
	o.run = regexp.MustCompile(*run)
	if o.parallel < 1 {
		o.parallel = 1
	}
	failed, err := runAll(context.Background(), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "leaves:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

type options struct {
	parallel int
	pkg, run *regexp.Regexp
	timeout  time.Duration
	tail     int
	verbose  bool
}

// pkgInfo is a package of the module that has tests.
type pkgInfo struct {
	ImportPath, Dir string
	binary          string
}

// leaf is one leaf test of a package and, once run alone, its outcome.
type leaf struct {
	pkg     *pkgInfo
	name    string
	outcome string // pass, skip, fail, or "did not run"
	output  []string
	elapsed time.Duration
}

func runAll(ctx context.Context, o options) (failed bool, err error) {
	pkgs, err := listPackages(ctx, o.pkg)
	if err != nil {
		return false, err
	}
	tmp, err := os.MkdirTemp("", "leaves-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)

	var leaves []*leaf
	for _, p := range pkgs {
		names, err := discover(ctx, o, tmp, p)
		if err != nil {
			return false, err
		}
		for _, n := range names {
			if o.run.MatchString(n) {
				leaves = append(leaves, &leaf{pkg: p, name: n})
			}
		}
	}
	fmt.Printf("running %d leaves of %d packages alone, %d at a time\n", len(leaves), len(pkgs), o.parallel)
	start := time.Now()
	runLeaves(ctx, o, leaves)

	var passed, skipped, nfailed int
	for _, l := range leaves {
		switch l.outcome {
		case "pass":
			passed++
		case "skip":
			passed++
			skipped++
		default:
			nfailed++
		}
	}
	fmt.Printf("%d leaves, %d passed alone, %d failed", len(leaves), passed, nfailed)
	if skipped > 0 {
		fmt.Printf(" (%d of the passes skipped)", skipped)
	}
	fmt.Printf(" in %s\n", time.Since(start).Round(time.Second))
	return nfailed > 0, nil
}

// listPackages lists the packages of the module that have tests and whose
// import path matches filter.
func listPackages(ctx context.Context, filter *regexp.Regexp) ([]*pkgInfo, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-json=ImportPath,Dir,TestGoFiles,XTestGoFiles", "./...")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var pkgs []*pkgInfo
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath, Dir           string
			TestGoFiles, XTestGoFiles []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list: %w", err)
		}
		if len(p.TestGoFiles)+len(p.XTestGoFiles) == 0 || !filter.MatchString(p.ImportPath) {
			continue
		}
		pkgs = append(pkgs, &pkgInfo{ImportPath: p.ImportPath, Dir: p.Dir})
	}
	return pkgs, nil
}

// discover compiles p's test binary into dir and runs it whole to list its
// leaves, in the order they ran.
func discover(ctx context.Context, o options, dir string, p *pkgInfo) ([]string, error) {
	p.binary = filepath.Join(dir, strings.ReplaceAll(p.ImportPath, "/", "_")+".test")
	build := exec.CommandContext(ctx, "go", "test", "-c", "-o", p.binary, p.ImportPath)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("compile tests of %s: %w", p.ImportPath, err)
	}
	events, err := runBinary(ctx, o, p, "")
	if err != nil && len(events) == 0 {
		return nil, fmt.Errorf("list tests of %s: %w", p.ImportPath, err)
	} else if err != nil {
		fmt.Printf("note: %s fails when run whole: %v\n", p.ImportPath, err)
	}
	var names []string
	parents := map[string]bool{}
	for _, e := range events {
		if e.Action != "run" || isExample(e.Test) {
			continue
		}
		if i := strings.LastIndex(e.Test, "/"); i >= 0 {
			for parent := e.Test[:i]; ; parent = parent[:i] {
				parents[parent] = true
				if i = strings.LastIndex(parent, "/"); i < 0 {
					break
				}
			}
		}
		names = append(names, e.Test)
	}
	return slices.DeleteFunc(names, func(n string) bool { return parents[n] }), nil
}

func isExample(name string) bool {
	top, _, _ := strings.Cut(name, "/")
	return strings.HasPrefix(top, "Example")
}

// runLeaves runs each leaf alone, o.parallel at a time, printing failures as
// they come.
func runLeaves(ctx context.Context, o options, leaves []*leaf) {
	var mu sync.Mutex
	work := make(chan *leaf)
	var wg sync.WaitGroup
	for range o.parallel {
		wg.Go(func() {
			for l := range work {
				runLeaf(ctx, o, l)
				mu.Lock()
				report(o, l)
				mu.Unlock()
			}
		})
	}
	for _, l := range leaves {
		work <- l
	}
	close(work)
	wg.Wait()
}

func report(o options, l *leaf) {
	if l.outcome == "pass" || l.outcome == "skip" {
		if o.verbose {
			fmt.Printf("%-4s %s %s (%s)\n", strings.ToUpper(l.outcome), l.pkg.ImportPath, l.name, l.elapsed.Round(time.Millisecond))
		}
		return
	}
	fmt.Printf("FAIL %s %s (%s, %s) -run '%s'\n", l.pkg.ImportPath, l.name, l.outcome, l.elapsed.Round(time.Millisecond), pattern(l.name))
	tail := l.output
	if len(tail) > o.tail {
		tail = tail[len(tail)-o.tail:]
	}
	for _, line := range tail {
		fmt.Printf("    | %s\n", line)
	}
}

// pattern is the -test.run pattern that selects name and nothing else: each
// element of the name, quoted and anchored.
func pattern(name string) string {
	elems := strings.Split(name, "/")
	for i, e := range elems {
		elems[i] = "^" + regexp.QuoteMeta(e) + "$"
	}
	return strings.Join(elems, "/")
}

func runLeaf(ctx context.Context, o options, l *leaf) {
	start := time.Now()
	events, err := runBinary(ctx, o, l.pkg, pattern(l.name))
	l.elapsed = time.Since(start)
	l.outcome = "did not run"
	for _, e := range events {
		if e.Action == "output" {
			l.output = append(l.output, strings.TrimRight(e.Output, "\n"))
		}
		if e.Test == l.name && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") {
			l.outcome = e.Action
		}
	}
	if err != nil && l.outcome != "fail" {
		// The leaf passed, but the binary did not: a parent failed around
		// it, or the process itself did.
		l.outcome = "fail"
		l.output = append(l.output, err.Error())
	}
}

// event is a test2json event.
type event struct {
	Action, Test, Output string
}

// runBinary runs p's test binary from p's directory, with run as
// -test.run unless empty, and returns its events. err reports a failing run.
func runBinary(ctx context.Context, o options, p *pkgInfo, run string) ([]event, error) {
	args := []string{"tool", "test2json", "-p", p.ImportPath, p.binary, "-test.v=test2json",
		"-test.timeout", o.timeout.String()}
	if run != "" {
		args = append(args, "-test.run", run)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = p.Dir
	cmd.Env = os.Environ()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var events []event
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			events = append(events, e)
		}
	}
	scanErr := sc.Err()
	if err := cmd.Wait(); err != nil {
		return events, fmt.Errorf("%w %s", err, strings.TrimSpace(stderr.String()))
	}
	return events, scanErr
}
