package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stopEnv is the configuration of the stop tests: a drain period short
// enough to wait for, and request and read deadlines long enough that
// only the drain period can end the upload.
var stopEnv = map[string]string{
	"PIPELINE_SHUTDOWN_TIMEOUT": "1s",
	"PIPELINE_REQUEST_TIMEOUT":  "1m",
	"PIPELINE_READ_TIMEOUT":     "1m",
}

// slowUpload starts creating a job with tok over a connection of its own,
// sending its body a byte at a time, slower than it can finish, until the
// connection fails. It returns the connection, to read the answer from.
func slowUpload(t *testing.T, addr, tok string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	body := `{"title":"Uploaded slowly","description":"` + strings.Repeat("x", 1000) + `"}`
	_, err = fmt.Fprintf(conn, "POST /api/v1/jobs HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, tok, len(body), body[:10])
	require.NoError(t, err)
	go func() {
		for i := 10; i < len(body); i++ {
			time.Sleep(100 * time.Millisecond)
			if _, err := io.WriteString(conn, body[i:i+1]); err != nil {
				return
			}
		}
	}()
	time.Sleep(300 * time.Millisecond) // the server is reading the body
	return conn
}

// answerOrClose reads the server's answer on conn: its status and body, or
// 0 and "" when the server closed the connection without one.
func answerOrClose(t *testing.T, conn net.Conn) (int, string) {
	t.Helper()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(30*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		require.False(t, errors.Is(err, os.ErrDeadlineExceeded), "the connection is neither answered nor closed")
		return 0, ""
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// unavailableBody is the envelope of an upload cut by a stop.
const unavailableBody = `{"error":{"code":"unavailable","message":"Service temporarily unavailable.","details":null}}`

// TestServe_Stop: a stop with an upload that will not finish within the
// drain period cuts it at the end of the period, answering it 503, and
// returns without an error (pipelined exits 0); nothing of the upload is
// written and nothing is logged as a server error. (TestServe shows a
// request that finishes within the period answered in full.)
func TestServe_Stop(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		m.Seed("testdata/seed.json")
		tok := m.CreateToken("olivia@acme.test", "ci", "jobs:write")
		for k, v := range stopEnv {
			m.env[k] = v
		}
		srv := m.Serve()
		conn := slowUpload(t, srv.Addr, tok.Token)

		start := time.Now()
		srv.cancel() // as SIGTERM would
		require.NoError(t, srv.Wait(), "a stop that cut a request is still a clean stop")
		assert.Less(t, time.Since(start), 10*time.Second, "within the drain period and the grace after it")
		status, body := answerOrClose(t, conn)
		assert.Equal(t, http.StatusServiceUnavailable, status, "the cut upload is answered")
		assert.Equal(t, unavailableBody, body)

		assert.Empty(t, writeEntries(t, m), "the cut upload wrote nothing")
		logs := srv.stderr.String()
		assert.NotContains(t, logs, "server error")
		var cut bool
		for _, l := range jsonLines(t, logs) {
			assert.NotEqual(t, float64(500), l["status"], "%v", l)
			if l["msg"] == "request" && l["path"] == "/api/v1/jobs" {
				cut = l["status"] == float64(http.StatusServiceUnavailable)
			}
		}
		assert.True(t, cut, "the cut upload's access log line says 503:\n%s", logs)
	})
}

// TestServe_ShutdownDelay: with PIPELINE_SHUTDOWN_DELAY a stop first
// keeps serving, /readyz answering 503 to new connections so that a load
// balancer takes the replica out, then stops as without it.
func TestServe_ShutdownDelay(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		m.Seed("testdata/seed.json")
		tok := m.CreateToken("olivia@acme.test", "ci", "jobs:read")
		m.env["PIPELINE_SHUTDOWN_DELAY"] = "2s"
		srv := m.Serve()
		fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		get := func(path string) int {
			req, err := http.NewRequest("GET", srv.URL+path, nil)
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+tok.Token)
			resp, err := fresh.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			return resp.StatusCode
		}
		require.Equal(t, http.StatusOK, get("/readyz"))

		start := time.Now()
		srv.cancel() // as SIGTERM would
		require.Eventually(t, func() bool { return get("/readyz") == http.StatusServiceUnavailable }, time.Second, 10*time.Millisecond)
		assert.Equal(t, http.StatusOK, get("/api/v1/me"), "requests are still served")
		require.NoError(t, srv.Wait())
		assert.GreaterOrEqual(t, time.Since(start), 2*time.Second, "it kept serving for the delay")
		_, err := fresh.Get(srv.URL + "/readyz")
		assert.Error(t, err, "then it stopped accepting")
	})
}

// TestMain_SIGTERM: pipelined as a process of its own, sent SIGTERM while a
// client uploads slowly, exits with status 0 within the drain period (and
// the grace after it).
func TestMain_SIGTERM(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		m.Seed("testdata/seed.json")
		tok := m.CreateToken("olivia@acme.test", "ci", "jobs:write")
		cmd := exec.Command(binary(t), "serve")
		cmd.Env = os.Environ()
		for k, v := range m.env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		for k, v := range stopEnv {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		stderr, err := cmd.StderrPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Kill() })
		addr := listeningAddr(t, stderr)

		conn := slowUpload(t, addr, tok.Token)
		start := time.Now()
		require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
		require.NoError(t, cmd.Wait(), "exit status 0")
		assert.Less(t, time.Since(start), 10*time.Second)
		status, body := answerOrClose(t, conn)
		assert.Equal(t, http.StatusServiceUnavailable, status)
		assert.Equal(t, unavailableBody, body)
	})
}

// listeningAddr reads pipelined's log until it says where it listens, and
// drains the rest in the background.
func listeningAddr(t *testing.T, stderr io.Reader) string {
	t.Helper()
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		var rec struct{ Msg, Addr string }
		if json.Unmarshal(lines.Bytes(), &rec) == nil && rec.Msg == "listening" {
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			return rec.Addr
		}
	}
	t.Fatalf("pipelined exited before listening: %v", lines.Err())
	return ""
}

// TestServe_ReadTimeout: PIPELINE_READ_TIMEOUT bounds receiving a request:
// a body that stops arriving is answered 408 and logged as such, and a
// client that never finishes its headers is disconnected.
func TestServe_ReadTimeout(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		m.Seed("testdata/seed.json")
		tok := m.CreateToken("olivia@acme.test", "ci", "jobs:write")
		m.env["PIPELINE_READ_TIMEOUT"] = "500ms"
		m.env["PIPELINE_REQUEST_TIMEOUT"] = "500ms"
		srv := m.Serve()

		conn, err := net.Dial("tcp", srv.Addr)
		require.NoError(t, err)
		defer conn.Close()
		_, err = fmt.Fprintf(conn, "POST /api/v1/jobs HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
			"Content-Length: 100\r\n\r\n{\"title\":", srv.Addr, tok.Token)
		require.NoError(t, err)
		status, body := answerOrClose(t, conn)
		assert.Equal(t, http.StatusRequestTimeout, status)
		assert.Equal(t, `{"error":{"code":"request_timeout","message":"The request body did not arrive in time.","details":null}}`, body)

		headers, err := net.Dial("tcp", srv.Addr)
		require.NoError(t, err)
		defer headers.Close()
		_, err = io.WriteString(headers, "GET /api/v1/me HTTP/1.1\r\nHost: x\r\n")
		require.NoError(t, err)
		status, _ = answerOrClose(t, headers)
		assert.Equal(t, 0, status, "closed without an answer")

		require.NoError(t, srv.Stop())
		assert.Empty(t, writeEntries(t, m))
		logs := srv.stderr.String()
		assert.NotContains(t, logs, "server error")
		assert.Contains(t, logs, `"status":408`)
	})
}
