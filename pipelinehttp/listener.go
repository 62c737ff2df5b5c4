package pipelinehttp

import (
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// Listener returns ln with the answers that Go's HTTP server gives by
// itself, in plain text, rewritten into the API's JSON error envelope. The
// server answers these requests before any handler sees them, writing a
// fixed response straight to the connection: a malformed request line or
// header, a control character in a header included (400 bad_request),
// header fields over the server's MaxHeaderBytes (431
// request_header_fields_too_large), an Expect header other than
// 100-continue (417 expectation_failed), a transfer encoding it does not
// implement (501 not_implemented), an HTTP version it does not speak (505
// http_version_not_supported). The rewritten answer carries a fresh
// X-Request-Id and X-Content-Type-Options: nosniff, closes the connection as
// the original did, and is logged to logger (nil: not logged); it has no
// rate-limit headers, since the request was never counted.
//
// Only plain HTTP/1 is rewritten: under TLS the listener sees encrypted
// bytes. What Go answers by closing the connection without a word (a
// request whose headers do not arrive within ReadHeaderTimeout) stays so.
func Listener(ln net.Listener, logger *slog.Logger) net.Listener {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &envelopeListener{Listener: ln, log: logger}
}

type envelopeListener struct {
	net.Listener
	log *slog.Logger
}

func (l *envelopeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &envelopeConn{Conn: c, log: l.log}, nil
}

// envelopeConn rewrites Go's own plain-text error responses.
type envelopeConn struct {
	net.Conn
	log *slog.Logger
}

// goErrorHeaders follow the status line of each of net/http's own error
// responses, which it writes to the connection in one piece. No response
// of the API has them: its Content-Type is JSON, and net/http writes a
// handler's headers sorted, Connection before Content-Type. The one other
// answer of its own, 417, has no body and is the only 417 there is: the
// API never answers it.
const goErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

func (c *envelopeConn) Write(p []byte) (int, error) {
	rest, ok := bytes.CutPrefix(p, []byte("HTTP/1.1 "))
	if !ok || len(rest) < 3 || !bytes.Contains(rest, []byte(goErrorHeaders)) && !bytes.HasPrefix(rest, []byte("417 ")) {
		return c.Conn.Write(p)
	}
	status, err := strconv.Atoi(string(rest[:3]))
	if err != nil || http.StatusText(status) == "" {
		return c.Conn.Write(p)
	}
	id := newRequestID()
	c.log.Warn("malformed request", slog.Int("status", status), slog.String("request_id", id),
		slog.String("remote_addr", c.RemoteAddr().String()))
	if _, err := c.Conn.Write(envelopeResponse(status, id)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// malformedMessages are the messages of the statuses Go answers itself.
var malformedMessages = map[int]string{
	http.StatusBadRequest:                  "The request is not well-formed HTTP.",
	http.StatusRequestHeaderFieldsTooLarge: "The request's header fields are too large.",
	http.StatusExpectationFailed:           "The request's Expect header asks for what the server does not do.",
	http.StatusNotImplemented:              "The request's transfer encoding is not supported.",
	http.StatusHTTPVersionNotSupported:     "The request's HTTP version is not supported.",
}

// envelopeResponse is a whole HTTP response for status, its code the
// status text in snake case (400 bad_request).
func envelopeResponse(status int, requestID string) []byte {
	text := http.StatusText(status)
	msg, ok := malformedMessages[status]
	if !ok {
		msg = text + "."
	}
	code := strings.ToLower(strings.ReplaceAll(text, " ", "_"))
	body, _ := encode(pipeline.ErrorEnvelope{Error: pipeline.ErrorObject{Code: code, Message: msg}}) // strings only: it cannot fail
	return fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nConnection: close\r\nContent-Length: %d\r\nContent-Type: %s\r\n"+
		"X-Content-Type-Options: nosniff\r\n%s: %s\r\n\r\n%s", status, text, len(body), jsonContentType, RequestIDHeader, requestID, body)
}
