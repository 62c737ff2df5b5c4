package pipelinehttp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// rawResponse is a response read without test assertions, for goroutines.
type rawResponse struct {
	code   int
	header http.Header
	body   []byte
}

// send serves one request on h; safe to call from any goroutine.
func send(h http.Handler, method, path, token, body string, hdr ...string) *rawResponse {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return &rawResponse{code: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// dieAfterHandling serves the first request to completion and then drops
// the connection without answering, as a process that dies after its
// commit would; later requests are served normally.
type dieAfterHandling struct {
	h    http.Handler
	died atomic.Bool
}

func (d *dieAfterHandling) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if d.died.CompareAndSwap(false, true) {
		d.h.ServeHTTP(httptest.NewRecorder(), r)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = conn.Close()
		}
		return
	}
	d.h.ServeHTTP(w, r)
}

// TestFault_DiesBeforeAnswering: the write commits but the client never
// hears back. Its retry with the same key replays the stored response and
// does not act again.
func TestFault_DiesBeforeAnswering(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		srv := httptest.NewServer(&dieAfterHandling{h: e.h})
		defer srv.Close()
		ada := e.Res.Candidates["ada"]
		path := candidatePath(e.Res.Jobs["backend"], ada) + "/notes"
		post := func() (*http.Response, error) {
			req, err := http.NewRequest("POST", srv.URL+path, strings.NewReader(`{"content":"Call back Monday."}`))
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+e.token("olivia"))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(IdempotencyKeyHeader, "note-ada-1")
			return srv.Client().Do(req)
		}

		_, err := post()
		require.Error(t, err, "the connection drops before the answer")
		require.Len(t, e.Activity(t), 1, "the note was committed")

		resp, err := post()
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Equal(t, http.StatusCreated, resp.StatusCode, "body %s", body)
		assert.Equal(t, "true", resp.Header.Get(ReplayHeader))
		assert.Len(t, e.Activity(t), 1, "the retry did not add a second note")

		r := e.do(t, "GET", candidatePath(e.Res.Jobs["backend"], ada), e.token("olivia"), nil)
		assert.EqualValues(t, 1, r.Data(t)["notes_count"])
	})
}

// hookedStore is the real store with a hook run inside every write
// transaction just before its idempotency record is saved, after the action
// and its activity entry were written: the place to inject a fault or hold
// a transaction open.
type hookedStore struct {
	pipeline.Store
	beforeSave atomic.Pointer[func() error]
	writes     atomic.Int32 // write transactions asked for
}

func (s *hookedStore) hook(fn func() error) { s.beforeSave.Store(&fn) }

func (s *hookedStore) Write(ctx context.Context, fn func(pipeline.Tx) error) error {
	s.writes.Add(1)
	return s.Store.Write(ctx, func(tx pipeline.Tx) error {
		return fn(&hookedTx{Tx: tx, s: s})
	})
}

type hookedTx struct {
	pipeline.Tx
	s *hookedStore
}

func (t *hookedTx) Idempotency() pipeline.IdempotencyTx {
	return hookedIdempotency{IdempotencyTx: t.Tx.Idempotency(), s: t.s}
}

// hookedIdempotency is the idempotency of a hookedTx, which runs the hook
// before it saves a record.
type hookedIdempotency struct {
	pipeline.IdempotencyTx
	s *hookedStore
}

func (t hookedIdempotency) Save(ctx context.Context, r pipeline.IdempotencyRecord) error {
	if fn := t.s.beforeSave.Swap(nil); fn != nil {
		if err := (*fn)(); err != nil {
			return err
		}
	}
	return t.IdempotencyTx.Save(ctx, r)
}

// TestFault_DiesBeforeCommit: a transaction that fails after writing the
// change leaves neither the change, nor its activity entry, nor a stored
// response; the retry with the same key then acts exactly once.
func TestFault_DiesBeforeCommit(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		store := &hookedStore{Store: db}
		svc := pipeline.NewService(store, pipeline.WithLimiter(pipeline.NewMemoryLimiter(1000)))
		seed := storetest.Seed(t, pipeline.NewOperator(db))
		logs := &syncBuffer{}
		h := New(svc, Config{Logger: slog.New(slog.NewTextHandler(logs, nil))})
		olivia := seed.Tokens["olivia"]
		key := []string{IdempotencyKeyHeader, "create-7"}

		store.hook(func() error { return errors.New("injected fault: connection lost before commit") })
		r := do(t, h, "POST", "/api/v1/jobs", olivia, map[string]any{"title": "Exactly once"}, key...)
		requireError(t, r, http.StatusInternalServerError, pipeline.EInternal)
		assert.NotContains(t, string(r.Body), "injected", "no internal detail leaks")
		assert.Contains(t, logs.String(), "injected fault", "the cause is logged")
		log, err := pipeline.NewOperator(db).ActivityLog(context.Background(), nil)
		require.NoError(t, err)
		assert.Empty(t, log, "the activity entry rolled back with the change")

		r = do(t, h, "POST", "/api/v1/jobs", olivia, map[string]any{"title": "Exactly once"}, key...)
		require.Equal(t, http.StatusCreated, r.Code, "body %s", r.Body)
		assert.Empty(t, r.Header.Get(ReplayHeader), "nothing was stored, so the retry acts")
		r = do(t, h, "POST", "/api/v1/jobs", olivia, map[string]any{"title": "Exactly once"}, key...)
		require.Equal(t, http.StatusCreated, r.Code)
		assert.Equal(t, "true", r.Header.Get(ReplayHeader))

		r = do(t, h, "GET", "/api/v1/jobs?search="+urlQuery("Exactly once"), olivia, nil)
		assert.Len(t, r.Items(t), 1, "one job")
		log, err = pipeline.NewOperator(db).ActivityLog(context.Background(), nil)
		require.NoError(t, err)
		assert.Len(t, log, 1, "one activity entry")
	})
}

// TestFault_KeyInFlight: while a request holds its key, a second request
// with the same key answers 409 on PostgreSQL; on SQLite, whose writes are
// serialized, it waits and then gets the replay. Either way it never acts.
func TestFault_KeyInFlight(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		store := &hookedStore{Store: db}
		svc := pipeline.NewService(store, pipeline.WithLimiter(pipeline.NewMemoryLimiter(1000)))
		seed := storetest.Seed(t, pipeline.NewOperator(db))
		h := New(svc, Config{})
		olivia := seed.Tokens["olivia"]
		body := `{"title":"Held"}`

		reached, release := make(chan struct{}), make(chan struct{})
		store.hook(func() error {
			close(reached)
			<-release
			return nil
		})
		first := make(chan *rawResponse)
		go func() { first <- send(h, "POST", "/api/v1/jobs", olivia, body, IdempotencyKeyHeader, "held-1") }()
		<-reached

		second := make(chan *rawResponse)
		go func() { second <- send(h, "POST", "/api/v1/jobs", olivia, body, IdempotencyKeyHeader, "held-1") }()
		var r *rawResponse
		if db.Dialect() == pipelinestore.DialectPostgres {
			// The Service knows the key is held: answered at once.
			r = <-second
			close(release)
		} else {
			// The one writer makes the second request wait for the first;
			// it arrived while the first ran, and answers so once it may.
			for store.writes.Load() < 2 {
				time.Sleep(time.Millisecond)
			}
			close(release)
			r = <-second
		}
		assert.Equal(t, http.StatusConflict, r.code, "body %s", r.body)
		assert.Contains(t, string(r.body), `"code":"conflict"`)
		assert.Equal(t, http.StatusCreated, (<-first).code)
		third := send(h, "POST", "/api/v1/jobs", olivia, body, IdempotencyKeyHeader, "held-1")
		assert.Equal(t, http.StatusCreated, third.code)
		assert.Equal(t, "true", third.header.Get(ReplayHeader), "once the first is done, the key replays")
		log, err := pipeline.NewOperator(db).ActivityLog(context.Background(), nil)
		require.NoError(t, err)
		assert.Len(t, log, 1, "the job was created once")

		if db.Dialect() == pipelinestore.DialectPostgres {
			// Another replica, its own Service on the same database, learns
			// that the key is held from the key's lock.
			replica := New(pipeline.NewService(store, pipeline.WithLimiter(pipeline.NewMemoryLimiter(1000))), Config{})
			reached, release := make(chan struct{}), make(chan struct{})
			store.hook(func() error {
				close(reached)
				<-release
				return nil
			})
			go func() { first <- send(h, "POST", "/api/v1/jobs", olivia, body, IdempotencyKeyHeader, "held-2") }()
			<-reached
			r := send(replica, "POST", "/api/v1/jobs", olivia, body, IdempotencyKeyHeader, "held-2")
			assert.Equal(t, http.StatusConflict, r.code, "body %s", r.body)
			close(release)
			assert.Equal(t, http.StatusCreated, (<-first).code)
			log, err := pipeline.NewOperator(db).ActivityLog(context.Background(), nil)
			require.NoError(t, err)
			assert.Len(t, log, 2, "the second job was created once")
		}
	})
}
