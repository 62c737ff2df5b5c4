package doctext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The environment of the child: childEnv marks it, the others carry its
// media type and limits.
const (
	childEnv    = "PIPELINE_DOCTEXT_CHILD"
	typeEnv     = "PIPELINE_DOCTEXT_TYPE"
	cpuEnv      = "PIPELINE_DOCTEXT_CPU_SECONDS"
	memoryEnv   = "PIPELINE_DOCTEXT_MEMORY_BYTES"
	maxCharsEnv = "PIPELINE_DOCTEXT_MAX_CHARS"
)

// Default limits of a child.
const (
	DefaultWallTime = 10 * time.Second
	DefaultCPUTime  = 10 * time.Second
	// DefaultMemory bounds the child's writable memory (RLIMIT_DATA: the
	// heap, the file and what parsing it takes); its address space
	// (RLIMIT_AS) is bounded at four times that, room for the Go
	// runtime's reservations, which a larger binary makes larger.
	DefaultMemory = 1 << 30
)

// Process is a pipeline.Extractor that parses each file in a child
// process: the executable at Path (the running program's own when
// empty), run with the child's environment, which must call
// ServeChildIfAsked before anything else. The file goes in on stdin and
// the text comes out on stdout; the child sets its CPU time (RLIMIT_CPU)
// and address space (RLIMIT_AS) limits before it reads the file, and the
// parent kills it when WallTime passes. A child that fails, is killed or
// says more than the text may hold is an error: the document ends failed.
type Process struct {
	Path     string
	WallTime time.Duration // 0: DefaultWallTime
	CPUTime  time.Duration // 0: DefaultCPUTime
	Memory   uint64        // bytes; 0: DefaultMemory
}

var _ pipeline.Extractor = Process{}

// Extract runs a child on content.
func (p Process) Extract(ctx context.Context, contentType string, content []byte) (string, bool, error) {
	path := p.Path
	if path == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", false, err
		}
		path = exe
	}
	wall := cmpDuration(p.WallTime, DefaultWallTime)
	cpu := cmpDuration(p.CPUTime, DefaultCPUTime)
	mem := p.Memory
	if mem == 0 {
		mem = DefaultMemory
	}
	ctx, cancel := context.WithTimeout(ctx, wall)
	defer cancel()
	cmd := exec.CommandContext(ctx, path)
	cmd.Env = append(os.Environ(), childEnv+"=1", typeEnv+"="+contentType,
		cpuEnv+"="+strconv.Itoa(int((cpu+time.Second-1)/time.Second)),
		memoryEnv+"="+strconv.FormatUint(mem, 10),
		maxCharsEnv+"="+strconv.Itoa(pipeline.MaxDocumentText),
		"GOMAXPROCS=1", "GOTRACEBACK=none")
	cmd.Stdin = bytes.NewReader(content)
	// The text is at most MaxDocumentText characters of 4 bytes, and a
	// line before it.
	out := &limitedBuffer{max: pipeline.MaxDocumentText*4 + 16}
	cmd.Stdout = out
	cmd.Stderr = io.Discard
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", false, fmt.Errorf("doctext: the child outlived %s: %w", wall, err)
		}
		return "", false, fmt.Errorf("doctext: the child failed: %w", err)
	}
	if out.over {
		return "", false, errors.New("doctext: the child said too much")
	}
	b := out.b.Bytes()
	flag, text, ok := bytes.Cut(b, []byte("\n"))
	if !ok || len(flag) != 1 {
		return "", false, errors.New("doctext: the child's answer is not understood")
	}
	return string(text), flag[0] == 'T', nil
}

func cmpDuration(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// limitedBuffer keeps at most max bytes and notes more.
type limitedBuffer struct {
	b    bytes.Buffer
	max  int
	over bool
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if l.b.Len()+len(p) > l.max {
		l.over = true
		return 0, errors.New("doctext: too much output")
	}
	return l.b.Write(p)
}

// ServeChildIfAsked makes this process the child of a Process when its
// environment says so: it sets its limits, parses the file on stdin,
// writes "T\n" or "F\n" (whether the text was cut) and the text on
// stdout, and exits, 0 when it read the file and 1 when it could not.
// Otherwise it returns at once. Call it first thing in main, and in the
// TestMain of a package whose tests extract text.
func ServeChildIfAsked() {
	if os.Getenv(childEnv) != "1" {
		return
	}
	os.Exit(serveChild())
}

func serveChild() int {
	cpu, _ := strconv.ParseUint(os.Getenv(cpuEnv), 10, 64)
	mem, _ := strconv.ParseUint(os.Getenv(memoryEnv), 10, 64)
	maxChars, _ := strconv.Atoi(os.Getenv(maxCharsEnv))
	if cpu == 0 || mem == 0 || maxChars == 0 {
		return 2
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: cpu, Max: cpu + 1}); err != nil {
		return 2
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: 4 * mem, Max: 4 * mem}); err != nil {
		return 2
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: mem, Max: mem}); err != nil {
		return 2
	}
	// The collector works harder as the heap nears the limit, before the
	// address space runs out.
	debug.SetMemoryLimit(int64(mem / 2))
	content, err := io.ReadAll(os.Stdin)
	if err != nil {
		return 1
	}
	text, truncated, err := Parse(os.Getenv(typeEnv), content, maxChars)
	if err != nil {
		return 1
	}
	flag := "F\n"
	if truncated {
		flag = "T\n"
	}
	if _, err := io.WriteString(os.Stdout, flag+text); err != nil {
		return 1
	}
	return 0
}
