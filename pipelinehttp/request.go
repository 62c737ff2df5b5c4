package pipelinehttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// MaxBodyBytes is the largest request body read; a larger one answers 413
// payload_too_large.
const MaxBodyBytes = 1 << 20

// readBody reads the request body, at most MaxBodyBytes of it. A body whose
// declared Content-Length is larger is refused before any of it is read. The
// body must arrive before the request's deadline: when that passes, or the
// request is cut short, the read ends at once (where the ResponseWriter
// lets the read deadline be set, as net/http's does).
func readBody(c *gin.Context) ([]byte, error) {
	r := c.Request
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if r.ContentLength > MaxBodyBytes {
		return nil, errPayloadTooLarge
	}
	ctx := r.Context()
	if ctx.Err() != nil {
		// The deadline was spent before the body was read: on the
		// database, not by the client.
		return nil, pipeline.Unavailable(context.Cause(ctx))
	}
	rc := http.NewResponseController(c.Writer)
	stop := context.AfterFunc(ctx, func() { _ = rc.SetReadDeadline(time.Now()) })
	defer stop()
	b, err := io.ReadAll(http.MaxBytesReader(unwrapWriter(c.Writer), r.Body, MaxBodyBytes))
	if err == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = ctx.Err() // the whole body came, but after the deadline
	}
	if err != nil {
		return nil, bodyError(ctx, err)
	}
	return b, nil
}

// bodyError is the answer to a body that could not be read: too large
// (413); cut short by the server, which cancels the request as unavailable
// or closes its connection when it stops (503); not received before the
// read deadline of the server or the request's deadline (408); or ended
// before it was whole (400).
func bodyError(ctx context.Context, err error) error {
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return errPayloadTooLarge
	case errors.Is(context.Cause(ctx), pipeline.ErrUnavailable):
		return context.Cause(ctx)
	case errors.Is(err, net.ErrClosed):
		return pipeline.Unavailable(err)
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return errRequestTimeout
	default:
		return errBodyIncomplete
	}
}

// unwrapWriter is the ResponseWriter below Gin's, so that
// http.MaxBytesReader can tell net/http to close the connection after a
// body over the limit rather than read the rest of it.
func unwrapWriter(w http.ResponseWriter) http.ResponseWriter {
	for {
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return w
		}
		w = u.Unwrap()
	}
}

// field is a body field an operation takes: its name, the JSON type it must
// have (for the message) and how its raw JSON value is read into the
// operation's input (false: it has another type).
type field struct {
	name   string
	kind   string // "a string", "an integer"
	decode func(raw []byte) bool
}

// stringField reads a JSON string into *into, exactly as sent (see
// jsonText).
func stringField[S ~string](name string, into *S) field {
	return field{name: name, kind: "a string", decode: func(raw []byte) bool {
		s, ok := jsonText(raw)
		*into = S(s)
		return ok
	}}
}

// patchField is stringField for a field that may be left out: *into is
// set only when the field is sent.
func patchField[S ~string](name string, into **S) field {
	return field{name: name, kind: "a string", decode: func(raw []byte) bool {
		s, ok := jsonText(raw)
		v := S(s)
		*into = &v
		return ok
	}}
}

func integerField(name string, into *int64) field { return valueField(name, "an integer", into) }

// valueField reads a JSON value of any other type into *into, with
// encoding/json: for values whose text the domain checks against a list
// (an array of actions), which repaired text cannot pass.
func valueField(name, kind string, into any) field {
	return field{name: name, kind: kind, decode: func(raw []byte) bool {
		return json.Unmarshal(integral(raw), into) == nil
	}}
}

// integral is raw, or, when raw is a JSON number written with a fraction
// or an exponent whose value is a whole int64 (2.0, 2e0), that number as
// an integer literal: JSON Schema's integer, which the API's document and
// the tools' schemas declare, takes any such number.
func integral(raw []byte) []byte {
	// Longer literals are left alone: no whole int64 needs one, and
	// big.Rat would spend its time on them.
	if len(raw) == 0 || len(raw) > 64 || raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') ||
		!bytes.ContainsAny(raw, ".eE") || !json.Valid(raw) {
		return raw
	}
	if i := bytes.IndexAny(raw, "eE"); i >= 0 {
		// No whole int64 needs an exponent past its digits and int64's
		// 19; a larger one would have big.Rat build the power first.
		exp, err := strconv.Atoi(strings.TrimPrefix(string(raw[i+1:]), "+"))
		if err != nil || max(exp, -exp) > 20+i {
			return raw
		}
	}
	r, ok := new(big.Rat).SetString(string(raw))
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return raw
	}
	return strconv.AppendInt(nil, r.Num().Int64(), 10)
}

// decodeBody decodes a JSON object body into fields and returns what could
// not be read: a body that is not a JSON object under "body"; otherwise each
// field the operation does not take, and each value of the wrong JSON type
// (null included), under its own name. An empty body is the empty object.
func decodeBody(raw []byte, fields ...field) pipeline.FieldErrors {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	bad := pipeline.FieldErrors{}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		bad.Add("body", "The body must be a JSON object.")
		return bad
	}
	byName := make(map[string]field, len(fields))
	for _, f := range fields {
		byName[f.name] = f
	}
	for name, value := range obj {
		f, ok := byName[name]
		if !ok {
			bad.Add(name, "The "+name+" field is not allowed.")
			continue
		}
		if bytes.Equal(bytes.TrimSpace(value), []byte("null")) || !f.decode(bytes.TrimSpace(value)) {
			bad.Add(name, "The "+name+" field must be "+f.kind+".")
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return bad
}

// merged is the validation error of an input a transport could not wholly
// read: what it could not read, plus what the domain finds wrong with each
// field it did read. The domain's view of the input as a whole ("body") is
// left out: it judged an input with fields missing.
func merged(bad pipeline.FieldErrors, valid error) error {
	if _, whole := bad["body"]; !whole {
		for name, msgs := range pipeline.Fields(valid) {
			if _, unread := bad[name]; !unread && name != "body" {
				bad[name] = msgs
			}
		}
	}
	return bad.Err()
}

// parseID reads a positive decimal integer id, without sign.
func parseID(raw string) (int64, bool) {
	if raw == "" || raw[0] == '+' {
		return 0, false
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	return n, err == nil && n > 0
}

// pathID reads an id path parameter. A value that is not a positive integer
// becomes 0, which names no record: the Service then answers not_found after
// its scope check, keeping the API's check order.
func pathID(c *gin.Context, name string) int64 {
	id, _ := parseID(c.Param(name))
	return id
}

// jobRef and candidateRef are the records a route's path names.
func jobRef(c *gin.Context) pipeline.Ref { return pipeline.Ref{Job: pathID(c, "job")} }

func candidateRef(c *gin.Context) pipeline.Ref {
	return pipeline.Ref{Job: pathID(c, "job"), Candidate: pathID(c, "candidate")}
}

// Messages of query parameters that cannot be read.
const (
	msgQueryPage   = "The page must be an integer greater than or equal to 1."
	msgQueryStage  = "The stage must be the id of a stage of this job."
	msgQueryStatus = "The selected status is invalid."
)

// query reads a list's optional query parameters. A parameter sent with a
// value that cannot be read, the empty value included, is collected in bad,
// for the Service to report after its own checks; whether text is valid is
// the Service's to say.
type query struct {
	values url.Values
	bad    pipeline.FieldErrors
}

// newQuery reads the parameters named from the raw query string, each
// value percent-decoded byte for byte, as sent. It parses the string
// itself: url.ParseQuery drops a parameter whose percent-encoding is broken
// (%zz) or that holds a semicolon, and the list would answer as though it
// had not been sent. Here a broken one is an error naming it, and a
// semicolon is a character like any other. Other parameters are ignored.
func newQuery(c *gin.Context, names ...string) *query {
	q := &query{values: url.Values{}, bad: pipeline.FieldErrors{}}
	for pair := range strings.SplitSeq(c.Request.URL.RawQuery, "&") {
		k, v, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(k)
		if err != nil || !slices.Contains(names, name) {
			continue
		}
		value, err := url.QueryUnescape(v)
		if err != nil {
			if q.bad[name] == nil {
				q.bad.Add(name, "The "+name+" parameter is not validly percent-encoded.")
			}
			continue
		}
		q.values.Add(name, value)
	}
	return q
}

// get returns the value of a parameter and whether it was sent. One sent
// more than once is an error naming it: which value counts would be a
// guess, and a bad one must not pass unseen behind a good one.
func (q *query) get(name string) (string, bool) {
	v := q.values[name]
	switch {
	case len(v) == 0:
		return "", false
	case len(v) > 1:
		if q.bad[name] == nil {
			q.bad.Add(name, "The "+name+" parameter may be given only once.")
		}
		return "", false
	}
	return v[0], true
}

// text is a text parameter; "" when absent.
func (q *query) text(name string) string {
	v, _ := q.get(name)
	return v
}

// filters are the values of the named parameters that are sent and not
// empty, for the links of a list's pages.
func (q *query) filters(names ...string) url.Values {
	out := url.Values{}
	for _, name := range names {
		if v := q.text(name); v != "" {
			out.Set(name, v)
		}
	}
	return out
}

// page is the page asked for; 0 (the first) when absent.
func (q *query) page() int {
	raw, ok := q.get("page")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		q.bad.Add("page", msgQueryPage)
		return 0
	}
	return n
}

// status is the job status asked for; "" (the Service's default) when
// absent. Its value is the Service's to check.
func (q *query) status() pipeline.JobStatus {
	raw, ok := q.get("status")
	if ok && raw == "" {
		q.bad.Add("status", msgQueryStatus)
	}
	return pipeline.JobStatus(raw)
}

// stage is the stage filter; 0 (any stage) when absent.
func (q *query) stage() int64 {
	raw, ok := q.get("stage")
	if !ok {
		return 0
	}
	id, valid := parseID(raw)
	if !valid {
		q.bad.Add("stage", msgQueryStage)
	}
	return id
}
