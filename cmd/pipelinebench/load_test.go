package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestDrive_SlowerThanWindow: a server whose answers outlast the whole
// measured window, as on a busy machine, still gets every connection
// measured, once, and requests per second count over the window stretched
// to the last answer.
func TestDrive_SlowerThanWindow(t *testing.T) {
	const answer = 600 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(answer)
	}))
	defer srv.Close()
	e := newEndpoint("slow", strings.TrimPrefix(srv.URL, "http://"), 2, clientTimeout)
	s := &scenario{name: "me", status: http.StatusOK, next: func(uint64) request { return request{method: "GET", path: "/"} }}

	// Each connection's first request, sent during the warm-up, is answered
	// after the window closed.
	r := drive(context.Background(), e, s, 2, 500*time.Millisecond, 50*time.Millisecond)
	assert.Equal(t, 2, r.Requests, "one measured request per connection")
	assert.Zero(t, r.Errors)
	assert.Zero(t, r.Timeouts)
	assert.GreaterOrEqual(t, r.P50, answer)
	assert.Less(t, r.RPS, 2/answer.Seconds(), "over the stretched window, not the 50ms one")
}
