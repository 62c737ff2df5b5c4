package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

const (
	// benchRateLimit is the per-user budget both servers run with: high
	// enough that the load is never throttled, while every request still
	// passes through the shared counter.
	benchRateLimit = 1_000_000_000
	// readyTimeout bounds how long a server may take to answer /readyz.
	readyTimeout = 60 * time.Second
	// stopTimeout bounds how long a server may drain after SIGTERM.
	stopTimeout = 30 * time.Second
)

// buildServer builds the pipeline module's ./cmd/pipelined into dir. The
// benchmark is a module of its own that requires pipeline (replaced by the
// checkout around it), so `go list -m` finds the directory to build in from
// anywhere inside the benchmark's module.
func buildServer(ctx context.Context, dir string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/pipeline-dev/pipeline").Output()
	if err != nil {
		return "", fmt.Errorf("go list -m github.com/pipeline-dev/pipeline: %w (run from cmd/pipelinebench, or pass -server PATH)", err)
	}
	root := strings.TrimSpace(string(out))
	if root == "" {
		return "", errors.New("the pipeline module has no directory here: run from cmd/pipelinebench, or pass -server PATH")
	}
	bin := filepath.Join(dir, "pipelined")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/pipelined")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ./cmd/pipelined: %w\n%s", err, stderr.String())
	}
	return bin, nil
}

// serverEnv is the process environment without any PIPELINE_ variable, to
// which a server's own configuration is added: a PIPELINE_BASE_URL of the
// caller's shell would change our links and not the baseline's.
func serverEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PIPELINE_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

// process is a server the benchmark started.
type process struct {
	name string
	addr string
	log  string // path of its stderr: the access log
	cmd  *exec.Cmd
	done chan error
}

// startProcess starts bin with args and env, its stdout and stderr going to
// logPath, and waits until it answers GET /readyz with 200.
func startProcess(ctx context.Context, name, addr, logPath, bin string, args, env []string) (*process, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, addr: addr, log: logPath, cmd: cmd, done: make(chan error, 1)}
	go func() {
		p.done <- cmd.Wait()
		logFile.Close()
	}()
	if err := p.waitReady(ctx); err != nil {
		_ = p.stop()
		return nil, err
	}
	return p, nil
}

// waitReady polls /readyz until it answers 200, the process exits or the
// time is up.
func (p *process) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(readyTimeout)
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{Proxy: nil}}
	defer client.CloseIdleConnections()
	for {
		resp, err := client.Get("http://" + p.addr + "/readyz")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-p.done:
			p.done <- err
			return fmt.Errorf("%s exited before it was ready (%v); its log:\n%s", p.name, err, tail(p.log, 2000))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s; its log:\n%s", p.name, readyTimeout, tail(p.log, 2000))
		}
	}
}

// stop sends SIGTERM, lets the server drain and exit, and kills it when it
// does not within stopTimeout.
func (p *process) stop() error {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		p.done <- err
		return err
	case <-time.After(stopTimeout):
		_ = p.cmd.Process.Kill()
		return fmt.Errorf("%s did not stop within %s after SIGTERM; killed", p.name, stopTimeout)
	}
}

// tail is the end of a file, at most n bytes.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
