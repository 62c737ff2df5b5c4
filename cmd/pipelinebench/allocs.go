package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
)

// allocMetric is the Prometheus name of the bytes a Go process has
// allocated on its heap so far: ours serves it at /metrics (the Go
// collector), the baseline at /debug/allocs, so that both are read alike.
const allocMetric = "go_memstats_alloc_bytes_total"

// serveAllocs answers the baseline's /debug/allocs: its heap allocations
// so far, in the line our /metrics has for them.
func serveAllocs(c *gin.Context) {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	c.Data(http.StatusOK, "text/plain; charset=utf-8", []byte(allocMetric+" "+strconv.FormatUint(s[0].Value.Uint64(), 10)+"\n"))
}

// readAllocs reads a server's heap allocations so far from url; false
// when it does not tell.
func readAllocs(ctx context.Context, url string) (uint64, bool) {
	if url == "" {
		return 0, false
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || name != allocMetric {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		return uint64(f), err == nil
	}
	return 0, false
}

// bytesPer shows bytes per request in KiB, "–" when not known.
func bytesPer(b int64) string {
	if b <= 0 {
		return "–"
	}
	return fmt.Sprintf("%s KiB", thousands(int(b/1024)))
}
