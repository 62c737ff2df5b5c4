package pipelinehttp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// testTimeout is the request deadline of the tests of deadlines: long
// enough for a loaded machine, short enough to wait for.
const testTimeout = 300 * time.Millisecond

func withTimeout(d time.Duration) envOption { return func(c *envConfig) { c.RequestTimeout = d } }

// TestAPI_Unavailable: while the database does not answer, a request
// answers 503 unavailable with Retry-After at its deadline, nothing is
// written, and once the database answers again the same server serves and
// the write retried with its key happens once.
func TestAPI_Unavailable(t *testing.T) {
	storetest.EachStallingDB(t, func(t *testing.T, db *pipelinestore.DB, stall *storetest.Stall) {
		// The limiter is the database's on PostgreSQL, as pipelined's is.
		e := newEnv(t, db, withTimeout(testTimeout), withLimiter(db.Limiter(1000)))
		olivia := e.token("olivia")
		notes := candidatePath(e.Job("backend"), e.Res.Candidates["ada"]) + "/notes"
		note := map[string]any{"content": "Call back on Monday."}
		key := []string{IdempotencyKeyHeader, "note-during-outage"}

		stall.Hang(t)
		start := time.Now()
		r := e.do(t, "POST", notes, olivia, note, key...)
		requireError(t, r, http.StatusServiceUnavailable, pipeline.EUnavailable)
		assert.Less(t, time.Since(start), 10*testTimeout, "answered at the request's deadline, not at a driver's timeout")
		assert.Equal(t, `{"error":{"code":"unavailable","message":"Service temporarily unavailable.","details":null}}`, string(r.Body))
		assert.Contains(t, e.logs.String(), "unavailable", "the cause is logged")
		if db.Dialect() == pipelinestore.DialectPostgres {
			// The limiter could not count the request either: the rate-limit
			// headers say to wait as long as Retry-After does.
			assert.Equal(t, "0", r.Header.Get(HeaderRateRemaining))
			reset := e.clock.Now().Add(UnavailableRetryAfter).Unix()
			assert.Equal(t, strconv.FormatInt(reset, 10), r.Header.Get(HeaderRateReset))
			// Reads wait for PostgreSQL too, and readiness says so.
			r = e.do(t, "GET", "/api/v1/jobs", olivia, nil)
			requireError(t, r, http.StatusServiceUnavailable, pipeline.EUnavailable)
			r = e.do(t, "GET", "/readyz", "", nil)
			require.Equal(t, http.StatusServiceUnavailable, r.Code)
			assert.Equal(t, `{"status":"unavailable"}`, string(r.Body))
		}

		stall.Resume(t)
		r = e.do(t, "GET", "/api/v1/jobs", olivia, nil)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		r = e.do(t, "POST", notes, olivia, note, key...)
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		assert.Empty(t, r.Header.Get(ReplayHeader), "the key was free: nothing was half-written")
		r = e.do(t, "POST", notes, olivia, note, key...)
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		assert.Equal(t, "true", r.Header.Get(ReplayHeader))
		assert.Len(t, e.Activity(t), 1)
	})
}

// TestMCP_Unavailable: a tool call that meets a database that does not
// answer gets the API's unavailable envelope as a tool error at the
// request's deadline, its cause is logged with the tool's name, and once
// the database answers the same call succeeds.
func TestMCP_Unavailable(t *testing.T) {
	storetest.EachStallingDB(t, func(t *testing.T, db *pipelinestore.DB, stall *storetest.Stall) {
		e := newEnv(t, db, withTimeout(testTimeout))
		// The session's first request read the token; the test's clock
		// stands still, so the calls below need no database to admit them.
		cs := e.mcpSession(t, "olivia")
		args := map[string]any{"job_id": e.Job("backend"), "candidate_id": e.Res.Candidates["ada"], "content": "Call back."}

		stall.Hang(t)
		body, code := toolError(t, callTool(t, cs, "add_note", args))
		assert.Equal(t, pipeline.EUnavailable, code)
		assert.Equal(t, map[string]any{"error": map[string]any{
			"code": "unavailable", "message": "Service temporarily unavailable.", "details": nil}}, body)
		assert.Regexp(t, `level=WARN msg=unavailable request_id=\S+ method=POST path=/mcp tool=add_note error=`, e.logs.String())
		assert.NotContains(t, e.logs.String(), "server error")
		assert.Equal(t, strings.Count(e.logs.String(), "level=INFO msg=request "), strings.Count(e.logs.String(), "level=INFO"),
			"one line per request: the SDK's own sessions stay out of the log")

		stall.Resume(t)
		content(t, callTool(t, cs, "add_note", args))
		assert.Len(t, e.Activity(t), 1, "the note that met the outage was not written")
	})
}

// TestMCP_WithoutDeadline: the context the SDK gets outlives the request's
// deadline, so a tool's answer at the deadline is written, but ends when
// the request is cancelled (its client gone), and keeps its values.
func TestMCP_WithoutDeadline(t *testing.T) {
	type key struct{}
	parent, cancelParent := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	defer cancelParent()
	timed, cancelTimed := context.WithTimeout(parent, time.Millisecond)
	defer cancelTimed()
	ctx, cancel := withoutDeadline(timed)
	defer cancel()
	<-timed.Done()
	_, has := ctx.Deadline()
	assert.False(t, has)
	assert.NoError(t, ctx.Err(), "the deadline does not end it")
	assert.Equal(t, "v", ctx.Value(key{}))

	gone, cancelGone := context.WithCancel(parent)
	ctx, cancel = withoutDeadline(gone)
	defer cancel()
	cancelGone()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled request's context did not end")
	}
}

// TestAPI_Unavailable_Down: while PostgreSQL is down (its connections
// closed, new ones refused) every request answers 503 unavailable at once,
// and the same server serves again when it is back.
func TestAPI_Unavailable_Down(t *testing.T) {
	storetest.EachStallingDB(t, func(t *testing.T, db *pipelinestore.DB, stall *storetest.Stall) {
		e := newEnv(t, db, withTimeout(time.Minute), withLimiter(db.Limiter(1000)))
		olivia := e.token("olivia")
		stall.Down(t)
		for range 3 {
			r := e.do(t, "GET", "/api/v1/jobs", olivia, nil)
			requireError(t, r, http.StatusServiceUnavailable, pipeline.EUnavailable)
			r = e.do(t, "POST", "/api/v1/jobs", olivia, map[string]any{"title": "While down"})
			requireError(t, r, http.StatusServiceUnavailable, pipeline.EUnavailable)
		}
		r := e.do(t, "GET", "/readyz", "", nil)
		assert.Equal(t, http.StatusServiceUnavailable, r.Code)
		assert.NotContains(t, e.logs.String(), "server error")

		stall.Resume(t)
		r = e.do(t, "GET", "/api/v1/jobs", olivia, nil)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		r = e.do(t, "POST", "/api/v1/jobs", olivia, map[string]any{"title": "Back up"})
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		assert.Len(t, e.Activity(t), 1)
	})
}

// TestAPI_Unavailable_SQLiteReads: while another process holds SQLite's
// write lock, writes wait for it but reads go on, the first of a token's
// included, whose recording of the token's last use gives up in a second.
func TestAPI_Unavailable_SQLiteReads(t *testing.T) {
	storetest.EachStallingDB(t, func(t *testing.T, db *pipelinestore.DB, stall *storetest.Stall) {
		if db.Dialect() != pipelinestore.DialectSQLite {
			t.Skip("every statement waits for a stalled PostgreSQL (TestAPI_Unavailable)")
		}
		e := newEnv(t, db, withTimeout(5*time.Second))
		stall.Hang(t)
		r := e.do(t, "GET", "/api/v1/jobs", e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.Len(t, r.Items(t), 2)
	})
}

// TestAPI_Stopping: once the server is stopping, /readyz answers 503 while
// the API still serves the requests that reach it.
func TestAPI_Stopping(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		stopping := make(chan struct{})
		h := New(e.Svc, Config{Stopping: stopping})
		r := do(t, h, "GET", "/readyz", "", nil)
		require.Equal(t, http.StatusOK, r.Code)
		close(stopping)
		r = do(t, h, "GET", "/readyz", "", nil)
		require.Equal(t, http.StatusServiceUnavailable, r.Code)
		assert.Equal(t, `{"status":"stopping"}`, string(r.Body))
		r = do(t, h, "HEAD", "/readyz", "", nil)
		assert.Equal(t, http.StatusServiceUnavailable, r.Code)
		assert.Empty(t, r.Body, "HEAD answers without a body")
		r = do(t, h, "GET", "/api/v1/me", e.token("olivia"), nil)
		assert.Equal(t, http.StatusOK, r.Code)
	})
}

// server serves e's engine on a real connection for the rest of the test.
func (e *env) server(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(e.h)
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// rawResponse sends a request of which the client writes only head and
// body, on a connection of its own, and returns what the server answered
// before the client sent anything more; hold is called after the writes,
// e.g. to half-close the connection.
func rawRequest(t *testing.T, addr, head, body string, hold func(net.Conn)) (*Response, time.Duration) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	start := time.Now()
	_, err = io.WriteString(conn, head+"\r\n"+body)
	require.NoError(t, err)
	if hold != nil {
		hold(conn)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "the server answers without the rest of the body")
	elapsed := time.Since(start)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	return &Response{Code: resp.StatusCode, Header: resp.Header, Body: b}, elapsed
}

// checked checks a raw response against the document, as do checks its
// responses, for the request method path.
func checked(t *testing.T, r *Response, method, path string) *Response {
	t.Helper()
	checkResponse(t, httptest.NewRequest(method, path, nil), nil, r.Code, r.Header, r.Body)
	require.NoError(t, jsonUnmarshal(r))
	checkErrorEnvelope(t, r)
	return r
}

// TestAPI_Body_Deadlines: over a real connection, a body declared over the
// limit is refused before the client sends it; a body that stops arriving
// is cut at the request's deadline (408); a body that ends before its
// declared length is 400. None writes anything.
func TestAPI_Body_Deadlines(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		addr := e.server(t)
		olivia := e.token("olivia")
		head := func(length int) string {
			return "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + olivia +
				"\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(length) + "\r\n"
		}
		t.Run("declared over the limit", func(t *testing.T) {
			r, _ := rawRequest(t, addr, head(MaxBodyBytes+1), "", nil)
			checked(t, r, "POST", "/api/v1/jobs")
			requireError(t, r, http.StatusRequestEntityTooLarge, CodePayloadTooLarge)
		})
		t.Run("stalled", func(t *testing.T) {
			r, elapsed := rawRequest(t, addr, head(100), `{"title":"Slo`, nil)
			checked(t, r, "POST", "/api/v1/jobs")
			requireError(t, r, http.StatusRequestTimeout, CodeRequestTimeout)
			assert.Less(t, elapsed, 10*testTimeout, "cut at the request's deadline")
		})
		t.Run("ended early", func(t *testing.T) {
			r, _ := rawRequest(t, addr, head(100), `{"title":"Short"}`, func(c net.Conn) {
				require.NoError(t, c.(*net.TCPConn).CloseWrite())
			})
			checked(t, r, "POST", "/api/v1/jobs")
			requireError(t, r, http.StatusBadRequest, CodeBadRequest)
		})
		t.Run("nothing written", func(t *testing.T) {
			assert.Empty(t, e.Activity(t))
			assert.NotContains(t, e.logs.String(), "server error")
		})
	}, withTimeout(testTimeout))
	each(t, "over the limit without a declared length", func(t *testing.T, e *env) {
		body := `{"title":"Big","description":"` + strings.Repeat("x", MaxBodyBytes) + `"}`
		req := httptest.NewRequest("POST", "/api/v1/jobs", io.MultiReader(strings.NewReader(body)))
		req.Header.Set("Authorization", "Bearer "+e.token("olivia"))
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		r := checked(t, &Response{Code: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}, "POST", "/api/v1/jobs")
		requireError(t, r, http.StatusRequestEntityTooLarge, CodePayloadTooLarge)
	})
}

// jsonUnmarshal decodes r's body into r.JSON.
func jsonUnmarshal(r *Response) error { return json.Unmarshal(r.Body, &r.JSON) }
