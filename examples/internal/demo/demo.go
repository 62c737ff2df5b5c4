// Package demo holds what the example agents share around their work: the
// job they are told to take from the environment, running until done or
// interrupted, and waiting.
package demo

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"time"
)

// JobFromEnv is the job id PIPELINE_JOB names, 0 (the newest open job) when
// it is unset. A value that is not an id ends the command, named cmd, with
// status 2.
func JobFromEnv(cmd string) int64 {
	v := os.Getenv("PIPELINE_JOB")
	if v == "" {
		return 0
	}
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, cmd+": PIPELINE_JOB must be a job id")
		os.Exit(2)
	}
	return id
}

// Run runs work until it returns or the process is interrupted, and ends
// the command, named cmd, with status 1 when work fails.
func Run(cmd string, work func(context.Context) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := work(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, cmd+":", err)
		os.Exit(1)
	}
}

// Sleep waits for d, or less when ctx is done first.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
