// Command pipelinebench is the project's load benchmark. So far it holds the
// baseline it compares our server with, as the subcommand
//
//	pipelinebench baseline -db DSN -addr ADDR -rate-limit N
//
// a hand-written Gin + pgx server (a pgxpool of 32 connections, all opened
// at start, with pgx's default statement cache) that serves GET /api/v1/me,
// GET /api/v1/jobs/:job, GET /api/v1/jobs/:job/candidates, the stage move,
// the note and GET /readyz, and does the work ours does for them: the
// token's shape, checksum and hash lookup with its user and current team,
// the shared fixed-window counter in rate_limits, the scope and visibility
// checks, and each write with its activity row and idempotency record in
// one transaction, answering the same bytes.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pipelinebench:", err)
		os.Exit(1)
	}
}

// run runs the command named by args.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "baseline" {
		return runBaseline(ctx, args[1:], stderr)
	}
	return errors.New("usage: pipelinebench baseline -db DSN -addr ADDR [-rate-limit N]")
}
