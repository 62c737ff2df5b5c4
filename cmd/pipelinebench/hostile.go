package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline/doctext/doctexttest"
)

// hostileFile is a file made to hurt a parser.
type hostileFile struct {
	name    string
	content []byte
}

// hostileFiles are the files of issue 34's hostile-file test, made by
// the doctext tests' own generators: a .docx whose text expands to 256
// MiB, a PDF whose page tree refers to itself, and a PDF of tiny pages as
// large as the server takes (10 MiB).
func hostileFiles() []hostileFile {
	// fpdf's pages are alike: the size of a thousand tells how many fit.
	per := len(doctexttest.TinyPagesPDF(1000)) / 1000
	tiny := (maxDocumentBytes - 512<<10) / per
	pdf := doctexttest.TinyPagesPDF(tiny)
	return []hostileFile{
		{name: "bomb.docx", content: doctexttest.ZipBomb(256 << 20)},
		{name: "loop.pdf", content: doctexttest.LoopPDF()},
		{name: strconv.Itoa(tiny) + "-tiny-pages.pdf", content: pdf},
	}
}

// hostileOutcome is what became of one hostile file.
type hostileOutcome struct {
	name      string
	size      int
	status    string // the document's text_status at the end
	extracted time.Duration
}

// feedHostile uploads the hostile files in turn to t until ctx ends, each
// once the last one's text is no longer pending, so that one is always
// being read; it returns what became of each.
func feedHostile(ctx context.Context, e *endpoint, token string, t target, files []hostileFile) ([]hostileOutcome, error) {
	var out []hostileOutcome
	for i := 0; ctx.Err() == nil; i++ {
		f := files[i%len(files)]
		body, ct := multipartFile(f.name, f.content)
		start := time.Now()
		resp, err := e.do(context.WithoutCancel(ctx), request{method: http.MethodPost, path: candidatePath(t) + "/documents",
			token: token, body: body, contentType: ct})
		if err != nil || resp.status != http.StatusCreated {
			return out, fmt.Errorf("hostile upload %s: %v %d %s", f.name, err, resp.status, clip(resp.body, 300))
		}
		var doc struct{ Data struct{ ID int64 } }
		if err := json.Unmarshal(resp.body, &doc); err != nil {
			return out, err
		}
		status, err := awaitText(e, token, candidatePath(t)+"/documents/"+strconv.FormatInt(doc.Data.ID, 10))
		if err != nil {
			return out, err
		}
		out = append(out, hostileOutcome{name: f.name, size: len(f.content), status: status, extracted: time.Since(start)})
	}
	return out, nil
}

// awaitText polls a document until its text_status is no longer pending,
// for at most a minute.
func awaitText(e *endpoint, token, path string) (string, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := e.do(context.Background(), request{method: http.MethodGet, path: path, token: token})
		if err != nil || resp.status != http.StatusOK {
			return "", fmt.Errorf("read %s: %v %d %s", path, err, resp.status, clip(resp.body, 300))
		}
		var doc struct {
			Data struct {
				TextStatus string `json:"text_status"`
			}
		}
		if err := json.Unmarshal(resp.body, &doc); err != nil {
			return "", err
		}
		if doc.Data.TextStatus != "pending" || time.Now().After(deadline) {
			return doc.Data.TextStatus, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runBeside starts command in a shell of its own process group, with
// $HOSTILE_DIR holding files, and returns what waits for ctx to end and
// then kills the group: a control of -hostile, which puts beside /me a
// load of known kind (a spin loop, a parse outside the server) instead
// of the uploads.
func runBeside(ctx context.Context, command string, files []hostileFile) (func(), error) {
	dir, err := os.MkdirTemp("", "pipelinebench-hostile-")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.content, 0o600); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command("sh", "-c", command)
	cmd.Env = append(os.Environ(), "HOSTILE_DIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return func() {
		<-ctx.Done()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		_ = os.RemoveAll(dir)
	}, nil
}

// hostileRound is one round of /me without and with hostile files.
type hostileRound struct {
	quiet, hostile       runResult
	quietUse, hostileUse cores
	files                []hostileOutcome
	load                 string // the machine's load average as the round began
}

// cores is the CPU used while /me was loaded on a server, in cores (CPU
// seconds per second): by its own process, by its children (the
// extraction's) and by PostgreSQL; and how long the server's threads
// waited for a CPU, in seconds per second. NaN where /proc does not tell,
// or where processes that ended took their share with them (a
// PostgreSQL backend that closed).
type cores struct{ server, children, db, waited float64 }

// measureCores runs f and returns what process pid, its children and
// PostgreSQL used meanwhile.
func measureCores(pid int, f func()) cores {
	start := time.Now()
	s0, ok1 := processCPU(pid)
	c0, ok2 := childrenCPU(pid)
	d0, ok3 := postgresCPU()
	w0, ok4 := runQueueWait(pid)
	f()
	s1, ok5 := processCPU(pid)
	c1, ok6 := childrenCPU(pid)
	d1, ok7 := postgresCPU()
	w1, ok8 := runQueueWait(pid)
	wall := time.Since(start).Seconds()
	per := func(a, b time.Duration, ok bool) float64 {
		if !ok || b < a {
			return math.NaN()
		}
		return (b - a).Seconds() / wall
	}
	return cores{server: per(s0, s1, ok1 && ok5), children: per(c0, c1, ok2 && ok6), db: per(d0, d1, ok3 && ok7),
		waited: per(w0, w1, ok4 && ok8)}
}

// runHostile measures /me on ours with -hostile-conns readers, each
// round once quiet and once while hostile files are uploaded and read,
// the order alternating, and writes the table.
func runHostile(ctx context.Context, cfg config, w *world, ours *endpoint, out io.Writer, progress func(string, ...any)) error {
	progress("making the hostile files")
	files := hostileFiles()
	progress("hostile files: %s %d bytes, %s %d bytes, %s %d bytes", files[0].name, len(files[0].content),
		files[1].name, len(files[1].content), files[2].name, len(files[2].content))
	me := scenarios(w, "spread", []string{"me"}, newKeySource())[0]
	reader := newEndpoint("ours", ours.addr, cfg.HostileConns, clientTimeout)
	reader.pid, reader.allocs = ours.pid, ours.allocs
	feeder := newEndpoint("ours", ours.addr, 1, time.Minute)
	t := target{job: w.Jobs[len(w.Jobs)-1], cand: 0} // a job no case writes to first
	var rounds []hostileRound
	for round := range cfg.Rounds {
		r := hostileRound{load: loadAverage()}
		for _, withFiles := range []bool{round%2 == 1, round%2 == 0} {
			if !withFiles {
				r.quietUse = measureCores(ours.pid, func() { r.quiet = drive(ctx, reader, me, cfg.HostileConns, cfg.Warmup, cfg.Duration) })
				progress("hostile round %d/%d: /me quiet: %.0f req/s, p50 %s, p99 %s", round+1, cfg.Rounds, r.quiet.RPS, ms(r.quiet.P50), ms(r.quiet.P99))
				continue
			}
			fctx, stop := context.WithCancel(ctx)
			var wg sync.WaitGroup
			var ferr error
			if cfg.HostileBeside != "" {
				stopBeside, err := runBeside(fctx, cfg.HostileBeside, files)
				if err != nil {
					stop()
					return err
				}
				wg.Go(stopBeside)
			} else {
				wg.Go(func() { r.files, ferr = feedHostile(fctx, feeder, w.Users[0].Token, t, files) })
			}
			time.Sleep(500 * time.Millisecond) // the first file is being read
			r.hostileUse = measureCores(ours.pid, func() { r.hostile = drive(ctx, reader, me, cfg.HostileConns, cfg.Warmup, cfg.Duration) })
			stop()
			wg.Wait() // the last file's reading ends too
			if ferr != nil {
				return ferr
			}
			progress("hostile round %d/%d: /me with hostile files: %.0f req/s, p50 %s, p99 %s; files %v", round+1, cfg.Rounds,
				r.hostile.RPS, ms(r.hostile.P50), ms(r.hostile.P99), r.files)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rounds = append(rounds, r)
	}
	writeHostileTable(out, cfg, rounds)
	return nil
}

func writeHostileTable(out io.Writer, cfg config, rounds []hostileRound) {
	fmt.Fprintf(out, "## /me beside hostile files: %d reader(s) in a closed loop on ours\n\n", cfg.HostileConns)
	if cfg.HostileBeside != "" {
		fmt.Fprintf(out, "A control: the hostile windows ran `%s` beside /me instead of uploading the files.\n\n", cfg.HostileBeside)
	}
	fmt.Fprintf(out, "Each round measures /me %s quiet and %s while a zip bomb, a reference-loop PDF and a 10 MiB PDF of tiny pages are uploaded in turn, each once the last one's text is no longer pending; the order alternates.\n\n", cfg.Duration, cfg.Duration)
	fmt.Fprint(out, "The cores are the CPU seconds per second that ours' process, its children (the extraction) and PostgreSQL used over each window, warm-up included, quiet → hostile; waited is how long ours' threads waited for a CPU, in ms per second; the load is the machine's load average as the round began. The median row's ratios are the medians of the rounds' ratios.\n\n")
	fmt.Fprintln(out, "| round | load | quiet req/s | quiet p50 | quiet p99 | hostile req/s | hostile p50 | hostile p99 | p50 ratio | p99 ratio | ours' cores | extraction's cores | PostgreSQL's cores | ours waited, ms/s | files read (status, seconds from upload) |")
	fmt.Fprintln(out, "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|")
	var qs, hs []runResult
	var p50s, p99s []float64
	for i, r := range rounds {
		files := ""
		for _, f := range r.files {
			files += fmt.Sprintf("%s %s %.1f s; ", f.name, f.status, f.extracted.Seconds())
		}
		arrow := func(f func(cores) float64, scale float64) string {
			show := func(v float64) string {
				if math.IsNaN(v) {
					return "–"
				}
				return fmt.Sprintf("%.2f", v*scale)
			}
			return show(f(r.quietUse)) + " → " + show(f(r.hostileUse))
		}
		fmt.Fprintf(out, "| %d | %s | %s | %s | %s | %s | %s | %s | %.2f× | %.2f× | %s | %s | %s | %s | %s |\n", i+1, r.load,
			thousands(int(r.quiet.RPS+0.5)), ms(r.quiet.P50), ms(r.quiet.P99),
			thousands(int(r.hostile.RPS+0.5)), ms(r.hostile.P50), ms(r.hostile.P99),
			float64(r.hostile.P50)/float64(max(r.quiet.P50, 1)), float64(r.hostile.P99)/float64(max(r.quiet.P99, 1)),
			arrow(func(c cores) float64 { return c.server }, 1), arrow(func(c cores) float64 { return c.children }, 1),
			arrow(func(c cores) float64 { return c.db }, 1), arrow(func(c cores) float64 { return c.waited }, 1000), files)
		qs, hs = append(qs, r.quiet), append(hs, r.hostile)
		p50s = append(p50s, float64(r.hostile.P50)/float64(max(r.quiet.P50, 1)))
		p99s = append(p99s, float64(r.hostile.P99)/float64(max(r.quiet.P99, 1)))
	}
	q, h := summarize(qs), summarize(hs)
	fmt.Fprintf(out, "| median | | %s | %s | %s | %s | %s | %s | %.2f× | %.2f× | | | | | |\n\n",
		thousands(int(q.RPS+0.5)), ms(q.P50), ms(q.P99), thousands(int(h.RPS+0.5)), ms(h.P50), ms(h.P99),
		median(p50s), median(p99s))
}
