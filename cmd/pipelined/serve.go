package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/doctext"
	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// cutGrace is how long the requests cut at the end of the drain period
// have to answer before their connections are closed.
const cutGrace = time.Second

// errStopping is why the requests still running at the end of the drain
// period are cut: they answer 503 unavailable.
var errStopping = pipeline.Unavailable(errors.New("the server is stopping"))

// runServe serves the API on the configured address until ctx is
// cancelled.
func runServe(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e)
	fs.StringVar(&e.cfg.Addr, "addr", e.cfg.Addr, "listen address (PIPELINE_ADDR)")
	withDB(&e, fs)
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		if all := commands(); groupUsage(all, fs.Arg(0)) != "" || fs.Arg(0) != "serve" && hasCommand(all, fs.Arg(0)) {
			return usageErrorf(e, fs, "flags go after the command: pipelined %s ... -db DSN", fs.Arg(0))
		}
		return usageErrorf(e, fs, "serve takes no arguments")
	}
	return serveStore(ctx, e, nil)
}

// serveStore opens the store of a serving command and serves it on the
// configured address until ctx is cancelled; ready, when not nil, runs
// first with the configuration it may still change, the store and the
// address the server listens on.
func serveStore(ctx context.Context, e env, ready func(cfg *config, db *pipelinestore.DB, addr net.Addr) error) (err error) {
	o, err := newObservability(ctx, e)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, o.close()) }()
	db, err := openServedStore(ctx, e, o)
	if err != nil {
		return err
	}
	defer db.Close()
	ln, err := net.Listen("tcp", e.cfg.Addr)
	if err != nil {
		return err
	}
	if ready != nil {
		if err := ready(&e.cfg, db, ln.Addr()); err != nil {
			ln.Close()
			return err
		}
	}
	return serve(ctx, e, o, db, ln)
}

// openServedStore opens the store of a serving command, its statements
// traced when tracing is on and none running longer than a request may,
// and logs the migrations it applied.
func openServedStore(ctx context.Context, e env, o *observability) (*pipelinestore.DB, error) {
	opts := []pipelinestore.Option{pipelinestore.WithStatementTimeout(e.cfg.RequestTimeout)}
	for _, h := range o.queryHooks() {
		opts = append(opts, pipelinestore.WithQueryHook(h))
	}
	if err := e.cfg.checkBlobs(ctx); err != nil {
		return nil, err
	}
	db, applied, err := openStore(ctx, e.cfg, writes, opts...)
	if err != nil {
		return nil, err
	}
	for _, m := range applied {
		o.log.Info("migrated", "migration", m.Name)
	}
	return db, nil
}

// serve serves the API on ln until ctx is cancelled, then, after
// PIPELINE_SHUTDOWN_DELAY with /readyz answering 503, stops (see stop) and
// returns nil. It owns ln. With PIPELINE_METRICS_ADDR set it also
// serves metrics and the profiler there.
func serve(ctx context.Context, e env, o *observability, db *pipelinestore.DB, ln net.Listener) error {
	logger := o.log
	key, kept, err := pipeline.ServerSecretKey(ctx, e.cfg.SecretKey, db)
	if err != nil {
		ln.Close()
		return err
	}
	if kept {
		logger.Warn("PIPELINE_SECRET_KEY is not set: webhook secrets are sealed under a key kept in the database; set it to keep the key apart from them")
	}
	e.cfg.SecretKey = key
	if e.cfg, err = e.cfg.withMailer(logger); err != nil {
		ln.Close()
		return err
	}
	if e.cfg.SMTPURL == logMail {
		logger.Warn("PIPELINE_SMTP_URL is log: every mail is written whole to this log, sign-in links included, and none is sent; use it for development only")
	}
	stopping := make(chan struct{})
	cfg := apiConfig(e, o, db, stopping)
	if e.cfg.MetricsAddr != "" {
		stop, err := serveMetrics(e.cfg.MetricsAddr, db, &cfg, logger)
		if err != nil {
			ln.Close()
			return err
		}
		defer stop()
	}
	// The work that follows an answer (a sign-in link's write and mail)
	// ends before the store closes.
	var background sync.WaitGroup
	defer background.Wait()
	svc := servedService(e, db, pipeline.WithBackground(background.Go))
	handler := pipelinehttp.New(svc, cfg)
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

	deliveries, err := startDeliveries(e, db, svc, logger)
	if err != nil {
		return errors.Join(err, srv.Close())
	}
	// Deliveries stop once requests have drained.
	defer stopDeliveries(deliveries, logger)

	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	close(stopping)
	if d := e.cfg.ShutdownDelay; d > 0 {
		// Load balancers see /readyz fail and stop sending requests
		// before the listener closes.
		logger.Info("stopping: /readyz answers 503", "delay", d.String())
		time.Sleep(d)
	}
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

// servedService is the Service that serve serves, counting requests in
// the database, so that replicas share one budget.
func servedService(e env, db *pipelinestore.DB, opts ...pipeline.Option) *pipeline.Service {
	return pipeline.NewService(db, slices.Concat(e.cfg.domainOptions(), []pipeline.Option{pipeline.WithLimiter(db.Limiter(e.cfg.RateLimit))}, opts)...)
}

// apiConfig is the configuration of the API that serve serves; closing
// stopping makes its /readyz answer 503.
func apiConfig(e env, o *observability, db *pipelinestore.DB, stopping <-chan struct{}) pipelinehttp.Config {
	return pipelinehttp.Config{
		BaseURL:          e.cfg.BaseURL,
		Logger:           o.log, // the access log; it never holds a token
		TrustedProxies:   e.cfg.TrustedProxies,
		TracerProvider:   o.tracer,
		RequestTimeout:   e.cfg.RequestTimeout,
		Stopping:         stopping,
		MaxDocumentBytes: e.cfg.DocumentMaxBytes,
	}
}

// startDeliveries starts the delivery of webhook messages with
// PIPELINE_WEBHOOK_WORKERS workers (none with 0), and with it the
// periodic purge of expired idempotency records and old delivery
// attempts and the hourly retention pass of svc, which run either way.
func startDeliveries(e env, db *pipelinestore.DB, svc *pipeline.Service, logger *slog.Logger) (*pipelinestore.Deliveries, error) {
	sender := pipelinehttp.NewWebhookSender(pipelinehttp.WebhookSenderConfig{
		AllowPrivate: e.cfg.WebhookAllowPrivate,
		UserAgent:    userAgent(),
	})
	dispatcher := pipeline.NewDispatcher(db, sender, e.cfg.domainOptions()...)
	postman, err := startPostman(e.cfg, db)
	if err != nil {
		return nil, err
	}
	// Behind a transaction pooler no connection stays for a LISTEN: the
	// queue polls.
	dc := pipelinestore.DeliveryConfig{Workers: e.cfg.WebhookWorkers, Logger: logger, PollOnly: e.cfg.Pooled, Sweeper: svc,
		// Documents' text is read by this binary run again as a child
		// with limits (main calls doctext.ServeChildIfAsked).
		Texts: pipeline.NewTexts(db, doctext.Process{})}
	if postman != nil {
		dc.Postman = postman
		logger.Info("sending email", "from", e.cfg.MailFrom.String())
	}
	d, err := db.StartDeliveries(context.Background(), dispatcher, dc)
	if err != nil {
		return nil, fmt.Errorf("deliveries: %w", err)
	}
	if e.cfg.WebhookWorkers > 0 {
		logger.Info("delivering webhooks", "workers", e.cfg.WebhookWorkers)
	}
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
func userAgent() string { return "pipelined/" + readVersion().Version }
