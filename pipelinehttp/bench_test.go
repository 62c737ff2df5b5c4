package pipelinehttp

import (
	"context"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// BenchmarkRead measures the API's reads against a baseline measured in the
// same run: a bare Gin handler that sends the one query a read needs on the
// same database and encodes its rows, with no authentication, rate limit or
// visibility rule. Compare the pairs as ratios:
//
//	go test ./pipelinehttp -run '^$' -bench Read -benchmem
func BenchmarkRead(b *testing.B) {
	testGinMode.Do(func() { gin.SetMode(gin.TestMode) })
	b.Run("sqlite", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "bench.db")
		raw := func() (*sql.DB, error) { return sql.Open("sqlite", path+"?_pragma=query_only(1)") }
		benchRead(b, path, raw, "?")
	})
	b.Run("postgres", func(b *testing.B) {
		dsn := storetest.PostgresSchemaDSN(b)
		raw := func() (*sql.DB, error) { return sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn))), nil }
		benchRead(b, dsn, raw, "$1")
	})
}

func benchRead(b *testing.B, dsn string, raw func() (*sql.DB, error), placeholder string) {
	ctx := context.Background()
	db, err := pipelinestore.Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	if err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	svc := pipeline.NewService(db, pipeline.WithLimiter(db.Limiter(1<<30)))
	seed := storetest.Seed(b, pipeline.NewOperator(db))
	api := New(svc, Config{})

	bare, err := raw()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = bare.Close() })
	baseline := bareServer(bare, placeholder)

	token := seed.Tokens["olivia"]
	job := strconv.FormatInt(seed.Jobs["backend"], 10)
	for _, tc := range []struct{ name, api, bare string }{
		{"job", "/api/v1/jobs/" + job, "/jobs/" + job},
		{"jobs", "/api/v1/jobs", "/jobs"},
	} {
		b.Run(tc.name+"/baseline", func(b *testing.B) { serveLoop(b, baseline, tc.bare, "") })
		b.Run(tc.name+"/api", func(b *testing.B) { serveLoop(b, api, tc.api, token) })
	}
}

func serveLoop(b *testing.B, h http.Handler, path, token string) {
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("GET", path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
		}
	}
}

// bareJob is the job list element the baseline encodes.
type bareJob struct {
	ID          int64     `json:"id"`
	Title       string    `json:"title"`
	Status      string    `json:"status"`
	Description string    `json:"description"`
	CreatedAt   time.Time `json:"created_at"`
}

// bareServer answers the baseline's reads with one query each.
func bareServer(db *sql.DB, ph string) http.Handler {
	const cols = `SELECT id, title, status, description, created_at FROM jobs`
	scan := func(rows interface{ Scan(...any) error }) (bareJob, error) {
		var j bareJob
		err := rows.Scan(&j.ID, &j.Title, &j.Status, &j.Description, &j.CreatedAt)
		return j, err
	}
	e := gin.New()
	e.GET("/jobs/:job", func(c *gin.Context) {
		j, err := scan(db.QueryRowContext(c, cols+` WHERE id = `+ph, c.Param("job")))
		if err != nil {
			c.Status(http.StatusInternalServerError)
			return
		}
		c.JSON(http.StatusOK, gin.H{"data": j})
	})
	e.GET("/jobs", func(c *gin.Context) {
		rows, err := db.QueryContext(c, cols+` WHERE status = 'open' ORDER BY created_at DESC, id DESC LIMIT 15`)
		if err != nil {
			c.Status(http.StatusInternalServerError)
			return
		}
		defer rows.Close()
		list := []bareJob{}
		for rows.Next() {
			j, err := scan(rows)
			if err != nil {
				c.Status(http.StatusInternalServerError)
				return
			}
			list = append(list, j)
		}
		c.JSON(http.StatusOK, gin.H{"data": list})
	})
	return e
}
