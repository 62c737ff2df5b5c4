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
	// purgeInterval is how often expired idempotency records are deleted.
	purgeInterval = time.Hour
	// cutGrace is how long the requests cut at the end of the drain period
	// have to answer before their connections are closed.
	cutGrace = time.Second
)

// errStopping is why the requests still running at the end of the drain
// period are cut: they answer 503 unavailable.
var errStopping = pipeline.Unavailable(errors.New("the server is stopping"))

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
	db, err := openServed(ctx, e.cfg)
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

// serve serves the API on ln until ctx is cancelled, then stops (see stop)
// and returns nil. It owns ln.
func serve(ctx context.Context, e env, db *pipelinestore.DB, ln net.Listener) error {
	logger := slog.New(slog.NewJSONHandler(e.stderr, nil))
	stopping := make(chan struct{})
	handler := pipelinehttp.New(pipeline.NewService(db), pipelinehttp.Config{
		BaseURL:        e.cfg.BaseURL,
		Limiter:        db.Limiter(e.cfg.RateLimit), // in the database: shared by replicas
		Logger:         logger,                      // the access log; it never holds a token
		RequestTimeout: e.cfg.RequestTimeout,
		Stopping:       stopping,
	})
	// Requests' contexts derive from base, so that cutting them is one call.
	base, cut := context.WithCancelCause(context.Background())
	defer cut(nil)
	srv := &http.Server{
		Handler:           handler,
		ReadTimeout:       e.cfg.ReadTimeout,
		ReadHeaderTimeout: min(10*time.Second, e.cfg.ReadTimeout),
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return base },
		// OPTIONS * goes to the API, which answers it in the envelope.
		DisableGeneralOptionsHandler: true,
	}

	served := make(chan error, 1)
	go func() { served <- srv.Serve(pipelinehttp.Listener(ln, logger)) }()
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
	close(stopping)
	stop(srv, e.cfg.ShutdownTimeout, cut, logger)
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	logger.Info("stopped")
	return nil
}

// stop stops srv: it stops accepting connections at once (/readyz already
// answers 503) and lets the requests in flight finish within drain. Those
// still running then, such as an upload that stopped arriving, are cut:
// their contexts are cancelled with errStopping, so that they answer 503
// at once, and after cutGrace their connections are closed. It is not an
// error: the server did what a stop asks.
func stop(srv *http.Server, drain time.Duration, cut context.CancelCauseFunc, logger *slog.Logger) {
	logger.Info("shutting down", "drain", drain.String())
	dctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	if srv.Shutdown(dctx) == nil {
		return
	}
	logger.Warn("drain period over: cutting the requests still running")
	cut(errStopping)
	gctx, cancel := context.WithTimeout(context.Background(), cutGrace)
	defer cancel()
	if srv.Shutdown(gctx) != nil {
		_ = srv.Close()
	}
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
