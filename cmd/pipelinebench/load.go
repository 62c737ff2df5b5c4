package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

const (
	// benchHost is the Host header of every request to either server, so
	// that the absolute links of lists, built from it, are the same.
	benchHost = "api.pipeline.bench"
	// clientTimeout bounds one request; one that takes longer counts as a
	// timeout.
	clientTimeout = 2 * time.Second
	// latencyHint is the expected requests per second and connection, to
	// size the latency slices so that recording does not allocate.
	latencyHint = 2000
)

// endpoint is a server under load and the client that reaches it: one
// transport with as many keep-alive connections as the load has.
type endpoint struct {
	name   string
	addr   string // host:port
	base   string // http://host:port
	client *http.Client
	pid    int    // the server's process, for its CPU time; 0 if not known
	allocs string // URL of its heap allocations so far (allocMetric); "" if not known
	// embedded says the database runs in the server's process (SQLite):
	// no PostgreSQL's CPU time is its.
	embedded bool
}

func newEndpoint(name, addr string, conns int, timeout time.Duration) *endpoint {
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: clientTimeout, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
	return &endpoint{name: name, addr: addr, base: "http://" + addr, client: &http.Client{Transport: tr, Timeout: timeout}}
}

// response is what a request got.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends r and reads the whole response.
func (e *endpoint) do(ctx context.Context, r request) (response, error) {
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, e.base+r.path, body)
	if err != nil {
		return response{}, err
	}
	req.Host = benchHost
	req.Header.Set("Accept", "application/json")
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	if r.body != nil {
		req.Header.Set("Content-Type", cmpOr(r.contentType, "application/json"))
	}
	if r.keyed {
		req.Header["Idempotency-Key"] = []string{r.key}
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: b}, err
}

// runResult is one measurement of one scenario on one server.
type runResult struct {
	Requests int
	RPS      float64
	P50, P99 time.Duration
	Errors   int // unexpected statuses and transport errors
	Timeouts int
	Sample   string // the first error, for the progress log
	// CPU time per measured request of the server's process and of
	// PostgreSQL on this machine; 0 where not known.
	ServerCPU, DBCPU time.Duration
	// Alloc is the bytes the server's Go heap allocated per measured
	// request (with whatever it ran in the background meanwhile); 0 where
	// not known.
	Alloc int64
}

// drive runs a closed loop of conns workers against e: each sends the
// scenario's next request as soon as its previous one is answered. The
// first warmup is not measured; requests sent during the following
// duration are. Every measured latency is kept, timeouts and errors
// included (a timeout as the client's limit). A worker whose request sent
// during the warm-up was still running when the window closed sends one
// more, measured: on a machine so busy that a request outlasts the whole
// window, the window would otherwise hold no request, and its result would
// say nothing of them (requests per second then count over the window
// stretched to that request's answer).
func drive(ctx context.Context, e *endpoint, s *scenario, conns int, warmup, duration time.Duration) runResult {
	start := time.Now()
	from, until := start.Add(warmup), start.Add(warmup+duration)
	perWorker := int(duration.Seconds()*latencyHint) + 16
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		all     = make([]time.Duration, 0, perWorker*conns)
		res     runResult
		sampled bool
		end     = until // of the measurement
	)
	var before, after cpuSample
	var allocBefore, allocAfter uint64
	var allocOK bool
	cpuDone := make(chan struct{})
	go func() {
		defer close(cpuDone)
		if sleepUntil(ctx, from) {
			before = sampleCPU(e.pid)
			allocBefore, allocOK = readAllocs(ctx, e.allocs)
		}
		if sleepUntil(ctx, until) {
			after = sampleCPU(e.pid)
			var ok bool
			allocAfter, ok = readAllocs(ctx, e.allocs)
			allocOK = allocOK && ok
		}
	}()
	for range conns {
		wg.Go(func() {
			lat := make([]time.Duration, 0, perWorker)
			var errs, timeouts int
			var sample string
			late := until
			for ctx.Err() == nil {
				sent := time.Now()
				if !sent.Before(until) && len(lat) > 0 {
					break
				}
				resp, err := e.do(ctx, s.next(s.count.Add(1)-1))
				took := time.Since(sent)
				if sent.Before(from) {
					continue
				}
				lat = append(lat, took)
				if !sent.Before(until) {
					late = sent.Add(took)
				}
				switch {
				case isTimeout(err):
					timeouts++
				case err != nil:
					errs++
					sample = cmpOr(sample, err.Error())
				case resp.status != s.status:
					errs++
					sample = cmpOr(sample, fmt.Sprintf("%d %s", resp.status, clip(resp.body, 200)))
				}
			}
			mu.Lock()
			defer mu.Unlock()
			all = append(all, lat...)
			if late.After(end) {
				end = late
			}
			res.Errors += errs
			res.Timeouts += timeouts
			if sample != "" && !sampled {
				res.Sample, sampled = sample, true
			}
		})
	}
	wg.Wait()
	<-cpuDone
	res.ServerCPU = perRequest(before.server, after.server, before.serverOK, after.serverOK, len(all))
	if !e.embedded {
		res.DBCPU = perRequest(before.db, after.db, before.dbOK, after.dbOK, len(all))
	}
	res.Requests = len(all)
	if allocOK && len(all) > 0 && allocAfter > allocBefore {
		res.Alloc = int64(allocAfter-allocBefore) / int64(len(all))
	}
	res.RPS = float64(len(all)) / end.Sub(from).Seconds()
	res.P50, res.P99 = percentiles(all)
	return res
}

// sleepUntil waits until t; false if ctx ends first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// clip is b as text, at most n bytes of it.
func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
