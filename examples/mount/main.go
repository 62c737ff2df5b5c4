// Command mount serves the pipeline API inside an existing Gin application:
// the application keeps its own routes and middleware, and the API lives
// under its own route group, /hiring/api/v1/…, with a middleware of the
// application's in front of it.
//
//	PIPELINE_DB=pipeline.db go run ./examples/mount
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"

	"github.com/gin-gonic/gin"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	dsn := os.Getenv("PIPELINE_DB")
	if dsn == "" {
		dsn = "pipeline.db"
	}
	db, err := pipelinestore.Open(ctx, dsn)
	if err != nil {
		fail(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		fail(err)
	}
	srv := &http.Server{Addr: "127.0.0.1:8081", Handler: app(pipeline.NewService(db, pipeline.WithLimiter(db.Limiter(pipeline.DefaultRateLimit))))}
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
	}()
	slog.Info("listening", "addr", srv.Addr, "api", "/hiring/api/v1")
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mount:", err)
	os.Exit(1)
}

// app is the host application: its own routes, plus the pipeline API
// mounted under /hiring behind a middleware of its own.
func app(svc *pipeline.Service) *gin.Engine {
	r := gin.New()
	r.GET("/", func(c *gin.Context) { c.String(http.StatusOK, "host application") })

	hiring := r.Group("/hiring", func(c *gin.Context) {
		c.Header("X-Served-By", "host-app")
		c.Next()
	})
	pipelinehttp.Mount(hiring, svc, pipelinehttp.Config{})
	return r
}
