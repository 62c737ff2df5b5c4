package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

const (
	// shutdownTimeout bounds how long in-flight requests may drain after
	// SIGINT or SIGTERM.
	shutdownTimeout = 20 * time.Second
	// purgeInterval is how often expired idempotency records are deleted.
	purgeInterval = time.Hour
)

// runServe serves the API on the configured address until ctx is
// cancelled.
func runServe(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e, "serve", "[-addr ADDR] [-db DSN]")
	fs.StringVar(&e.cfg.Addr, "addr", e.cfg.Addr, "listen address (PIPELINE_ADDR)")
	fs.StringVar(&e.cfg.DB, "db", e.cfg.DB, "database (PIPELINE_DB)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(e, fs, "serve takes no arguments")
	}
	db, err := openStore(ctx, e.cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	ln, err := net.Listen("tcp", e.cfg.Addr)
	if err != nil {
		return err
	}
	return serve(ctx, e, db, ln)
}

// serve serves the API on ln until ctx is cancelled, then stops accepting,
// lets in-flight requests finish and returns nil. It owns ln.
func serve(ctx context.Context, e env, db *pipelinestore.DB, ln net.Listener) error {
	logger := slog.New(slog.NewJSONHandler(e.stderr, nil))
	handler := pipelinehttp.New(pipeline.NewService(db), pipelinehttp.Config{
		BaseURL: e.cfg.BaseURL,
		Limiter: db.Limiter(e.cfg.RateLimit), // in the database: shared by replicas
		Logger:  logger,                      // the access log; it never holds a token
	})
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	logger.Info("listening", "addr", ln.Addr().String())

	purgeCtx, stopPurge := context.WithCancel(context.Background())
	var purging sync.WaitGroup
	purging.Go(func() { purgeIdempotency(purgeCtx, pipeline.NewOperator(db), logger) })
	defer func() {
		stopPurge()
		purging.Wait()
	}()

	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down", "timeout", shutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		// Requests still running after the timeout are cut off.
		return errors.Join(fmt.Errorf("shutdown: %w", err), srv.Close())
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	logger.Info("stopped")
	return nil
}

// purgeIdempotency deletes expired idempotency records now and then every
// purgeInterval until ctx is cancelled.
func purgeIdempotency(ctx context.Context, op *pipeline.Operator, logger *slog.Logger) {
	tick := time.NewTicker(purgeInterval)
	defer tick.Stop()
	for {
		n, err := op.PurgeIdempotency(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			logger.Error("purge idempotency records", "err", err)
		case n > 0:
			logger.Info("purged idempotency records", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
