package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
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
	// purgeInterval is how often expired idempotency records and old
	// delivery attempts are deleted.
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
	handler := pipelinehttp.New(pipeline.NewService(db, e.cfg.domainOptions()...), pipelinehttp.Config{
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
	purging.Go(func() { purge(purgeCtx, pipeline.NewOperator(db), logger) })
	defer func() {
		stopPurge()
		purging.Wait()
	}()
	deliveries, err := startDeliveries(e, db, logger)
	if err != nil {
		return errors.Join(err, srv.Close())
	}
	// Deferred after the purge's: deliveries stop first, once requests
	// have drained.
	defer stopDeliveries(deliveries, logger)

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

// startDeliveries starts the delivery of webhook messages with
// PIPELINE_WEBHOOK_WORKERS workers; none with 0.
func startDeliveries(e env, db *pipelinestore.DB, logger *slog.Logger) (*pipelinestore.Deliveries, error) {
	if e.cfg.WebhookWorkers == 0 {
		return nil, nil
	}
	if e.cfg.SecretKey == nil {
		logger.Warn("PIPELINE_SECRET_KEY is not set: webhooks cannot be created, nor their messages signed")
	}
	sender := pipelinehttp.NewWebhookSender(pipelinehttp.WebhookSenderConfig{
		AllowPrivate: e.cfg.WebhookAllowPrivate,
		UserAgent:    userAgent(),
	})
	dispatcher := pipeline.NewDispatcher(db, sender, e.cfg.domainOptions()...)
	d, err := db.StartDeliveries(context.Background(), dispatcher, pipelinestore.DeliveryConfig{
		Workers: e.cfg.WebhookWorkers,
		Logger:  logger,
	})
	if err != nil {
		return nil, fmt.Errorf("deliveries: %w", err)
	}
	logger.Info("delivering webhooks", "workers", e.cfg.WebhookWorkers)
	return d, nil
}

// stopDeliveries lets the attempts in flight finish, for as long as one
// may take; those cut off are attempted again later.
func stopDeliveries(d *pipelinestore.Deliveries, logger *slog.Logger) {
	if d == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), pipeline.DeliveryTimeout+5*time.Second)
	defer cancel()
	if err := d.Stop(ctx); err != nil {
		logger.Error("stop deliveries", "err", err)
	}
}

// userAgent names pipelined and its version in webhook deliveries.
func userAgent() string {
	version := "devel"
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		version = info.Main.Version
	}
	return "pipelined/" + version
}

// purge deletes expired idempotency records and old delivery attempts now
// and then every purgeInterval until ctx is cancelled.
func purge(ctx context.Context, op *pipeline.Operator, logger *slog.Logger) {
	tick := time.NewTicker(purgeInterval)
	defer tick.Stop()
	for {
		for what, fn := range map[string]func(context.Context) (int64, error){
			"idempotency records": op.PurgeIdempotency,
			"delivery attempts":   op.PurgeDeliveries,
		} {
			n, err := fn(ctx)
			switch {
			case err != nil && ctx.Err() == nil:
				logger.Error("purge "+what, "err", err)
			case n > 0:
				logger.Info("purged "+what, "count", n)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
