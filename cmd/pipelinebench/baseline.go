package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5/pgxpool"
)

// baselinePoolSize is the baseline's number of database connections, all
// opened at start and kept.
const baselinePoolSize = 32

// baseline is the hand-written server the benchmark compares ours with (see
// the package documentation for what it does per request).
type baseline struct {
	pool   *pgxpool.Pool
	limit  int
	log    *slog.Logger
	schema string // the current schema, which scopes the key's advisory lock

	touched  sync.Map // token id → time.Time of the last recorded use
	takes    atomic.Uint64
	sweeping atomic.Bool
	bg       sync.WaitGroup

	// callers, when set, are the callers by token hash of the data-only
	// mode (see dataGuard), which neither looks tokens up nor counts
	// requests.
	callers map[string]*caller
}

// runBaseline is the hidden subcommand `pipelinebench baseline -db DSN
// -addr ADDR`: it serves the baseline until ctx is cancelled (SIGTERM),
// then drains. The access log goes to stderr, like ours.
func runBaseline(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("pipelinebench baseline", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dsn := fs.String("db", "", "PostgreSQL DSN, search_path included")
	addr := fs.String("addr", "127.0.0.1:8081", "listen address")
	limit := fs.Int("rate-limit", 60, "requests per minute per user")
	dataOnly := fs.Bool("data-only", false, "read the tokens once at start and count nothing: only the data statements reach the database")
	sqlitePath := fs.String("sqlite", "", "serve /me and the upload on this SQLite file instead of PostgreSQL")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *sqlitePath != "" {
		return runSQLiteBaseline(ctx, *sqlitePath, *addr, *limit, stderr)
	}
	cfg, err := pgxpool.ParseConfig(*dsn)
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	cfg.MinConns, cfg.MaxConns = baselinePoolSize, baselinePoolSize
	// pgx's statement cache prepares every query; like ours, they run their
	// generic plans rather than being planned again on some connections.
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_generic_plan"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	defer pool.Close()
	var schema string
	if err := pool.QueryRow(ctx, "SELECT COALESCE(current_schema(), '')").Scan(&schema); err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	b := &baseline{pool: pool, limit: *limit, log: slog.New(slog.NewJSONHandler(stderr, nil)), schema: schema}
	if *dataOnly {
		if b.callers, err = loadCallers(ctx, pool); err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
	}
	defer b.bg.Wait()
	return serve(ctx, *addr, b.routes())
}

// serve serves h on addr until ctx is cancelled (SIGTERM), then drains.
func serve(ctx context.Context, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// routes is the baseline's router: exactly the routes the scenarios use.
func (b *baseline) routes() http.Handler {
	e := engine(b.log, b.pool.Ping)
	guard := b.guard
	if b.callers != nil {
		guard = b.dataGuard
	}
	v1 := e.Group("/api/v1", guard)
	v1.GET("/me", me)
	v1.GET("/jobs/:job", b.job)
	v1.GET("/jobs/:job/candidates", b.candidates)
	v1.POST("/jobs/:job/candidates", b.intake)
	v1.POST("/jobs/:job/candidates/:candidate/stage", b.move)
	v1.POST("/jobs/:job/candidates/:candidate/notes", b.note)
	v1.POST("/jobs/:job/candidates/:candidate/messages", b.message)
	v1.POST("/jobs/:job/candidates/:candidate/interviews", b.schedule)
	v1.PATCH("/jobs/:job/candidates/:candidate/interviews/:interview", b.reschedule)
	v1.POST("/jobs/:job/candidates/:candidate/documents", b.upload)
	return e
}

// engine is a baseline's Gin engine before its API routes: the client
// address is the socket peer, as ours; every response has an X-Request-Id
// and a JSON access-log line on log; a panic is a 500; /readyz answers as
// ping does; /debug/allocs; any other path is 404.
func engine(log *slog.Logger, ping func(context.Context) error) *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	_ = e.SetTrustedProxies(nil)
	e.Use(requestLog(log), gin.CustomRecovery(func(c *gin.Context, _ any) {
		fail(c, http.StatusInternalServerError, "server_error", "Server error.", nil)
	}))
	e.GET("/readyz", func(c *gin.Context) {
		ctx, cancel := context.WithTimeout(c.Request.Context(), 2*time.Second)
		defer cancel()
		if err := ping(ctx); err != nil {
			c.Data(http.StatusServiceUnavailable, jsonType, []byte(`{"status":"unavailable"}`))
			return
		}
		c.Data(http.StatusOK, jsonType, []byte(`{"status":"ok"}`))
	})
	e.GET("/debug/allocs", serveAllocs)
	e.NoRoute(func(c *gin.Context) { fail(c, http.StatusNotFound, "not_found", "Not found.", nil) })
	return e
}

// requestLog gives every response an X-Request-Id (the client's when it is
// sane) and writes one JSON access-log line per request on log, as ours
// does.
func requestLog(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		id := c.GetHeader("X-Request-Id")
		if !saneRequestID(id) {
			id = randomHex(16)
		}
		c.Header("X-Request-Id", id)
		c.Next()
		attrs := []slog.Attr{
			slog.String("method", c.Request.Method),
			slog.String("path", c.Request.URL.Path),
			slog.Int("status", c.Writer.Status()),
			slog.Duration("duration", time.Since(start)),
			slog.String("request_id", id),
		}
		if cl, ok := c.Get(callerKey); ok {
			attrs = append(attrs, slog.Int64("user_id", cl.(*caller).userID))
		}
		log.LogAttrs(c.Request.Context(), slog.LevelInfo, "request", attrs...)
	}
}

func saneRequestID(id string) bool {
	if len(id) < 1 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		ch := id[i]
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '.' || ch == '_' || ch == '-') {
			return false
		}
	}
	return true
}

// pathID reads an id path parameter: 0, which names no record, unless it
// is a positive integer.
func pathID(c *gin.Context, name string) int64 { return parseID(c.Param(name)) }

// parseID reads a positive integer id; anything else is 0.
func parseID(raw string) int64 {
	if raw == "" || raw[0] == '+' {
		return 0
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// randomHex is n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand does not fail on supported platforms
	return hex.EncodeToString(b)
}
