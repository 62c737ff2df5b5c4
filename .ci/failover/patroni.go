package main

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"strconv"
	"time"
)

// switched is what the switchover did and when.
type switched struct {
	leader   int // the node killed
	killed   time.Time
	promoted time.Time // when the other node's Patroni first answered /primary
}

// switchover lets the load run for the warm-up, kills the leader's node and
// waits until Patroni promotes the other one.
func switchover(ctx context.Context, o options, client *http.Client, rec *recorder) (switched, error) {
	select {
	case <-ctx.Done():
		return switched{}, ctx.Err()
	case <-time.After(o.warmup):
	}
	sw := switched{leader: -1}
	for i, api := range o.patroni {
		if primary(ctx, client, api) {
			sw.leader = i
		}
	}
	if sw.leader < 0 {
		return sw, fmt.Errorf("no Patroni node answers /primary")
	}
	if !rec.ackedSince(rec.start) {
		return sw, fmt.Errorf("no write acknowledged during the warm-up")
	}
	sw.killed = time.Now()
	if out, err := exec.CommandContext(ctx, o.kill, strconv.Itoa(sw.leader)).CombinedOutput(); err != nil {
		return sw, fmt.Errorf("%s %d: %v: %s", o.kill, sw.leader, err, out)
	}
	standby := o.patroni[1-sw.leader]
	bound := time.Now().Add(60 * time.Second)
	for !primary(ctx, client, standby) {
		if ctx.Err() != nil || time.Now().After(bound) {
			return sw, fmt.Errorf("node%d not promoted within 60s of the kill", 1-sw.leader)
		}
		time.Sleep(50 * time.Millisecond)
	}
	sw.promoted = time.Now()
	return sw, nil
}

// primary reports whether a Patroni node answers 200 on /primary: it holds
// the leader lock and runs PostgreSQL as the primary.
func primary(ctx context.Context, client *http.Client, api string) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, api+"/primary", nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
