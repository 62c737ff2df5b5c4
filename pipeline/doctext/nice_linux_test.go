package doctext_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/doctext"
	"github.com/pipeline-dev/pipeline/pipeline/doctext/doctexttest"
)

// A child reading a slow file runs every thread at doctext.ChildNice,
// as top shows it, and the server's own threads keep their priority.
func TestProcess_ChildNice(t *testing.T) {
	slow := doctexttest.TinyPagesPDF(4000)
	own := threadNices(t, os.Getpid())
	require.NotEmpty(t, own)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _, _ = doctext.Process{}.Extract(ctx, pipeline.TypePDF, slow)
	}()
	var child int
	require.Eventually(t, func() bool { child = childOf(os.Getpid()); return child > 0 }, 10*time.Second, 10*time.Millisecond)
	time.Sleep(200 * time.Millisecond) // the child's runtime has started its threads
	nices := threadNices(t, child)
	require.Greater(t, len(nices), 1, "the child's runtime runs several threads")
	for _, n := range nices {
		assert.Equal(t, doctext.ChildNice, n, "every thread of the child")
	}
	cancel()
	<-done
	for _, n := range threadNices(t, os.Getpid()) {
		assert.Equal(t, own[0], n, "the parent's threads keep their priority")
	}
}

// childOf is a running child process of pid, 0 when there is none.
func childOf(pid int) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		id, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f, ok := statFields(filepath.Join("/proc", e.Name(), "stat"))
		if ok && f[1] == strconv.Itoa(pid) && f[0] != "Z" {
			return id
		}
	}
	return 0
}

// threadNices is the nice value of each thread of process pid.
func threadNices(t *testing.T, pid int) []int {
	tasks, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	require.NoError(t, err)
	var out []int
	for _, task := range tasks {
		f, ok := statFields(filepath.Join("/proc", strconv.Itoa(pid), "task", task.Name(), "stat"))
		if !ok {
			continue // ended meanwhile
		}
		n, err := strconv.Atoi(f[16])
		require.NoError(t, err)
		out = append(out, n)
	}
	return out
}

// statFields are the fields of a /proc stat file after the command name:
// state, ppid, … (proc(5)), nice at 16.
func statFields(path string) ([]string, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, false
	}
	f := strings.Fields(s[i+1:])
	return f, len(f) > 16
}

// BenchmarkProcess_Start is the cost of a child on a small PDF, lowered
// (executed twice) and as started (PIPELINE_DOCTEXT_NICED set: the child
// takes itself for lowered already), in one run.
func BenchmarkProcess_Start(b *testing.B) {
	pdf := doctexttest.PDF("Ada Lovelace", "Analytical Engine (1843)")
	for _, c := range []struct{ name, niced string }{{"lowered", ""}, {"as-started", "1"}} {
		b.Run(c.name, func(b *testing.B) {
			if c.niced != "" {
				b.Setenv("PIPELINE_DOCTEXT_NICED", c.niced)
			}
			for b.Loop() {
				if _, _, err := (doctext.Process{}).Extract(context.Background(), pipeline.TypePDF, pdf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
