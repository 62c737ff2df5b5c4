package pipelinehttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// operation is one operation of the API as both faces serve it: its
// route, its tool, its parameters (for the tool's schema and the
// document's test) and its handlers, made by newOperation from an opSpec.
type operation struct {
	op     pipeline.Op
	method string
	path   string // below /api/v1, path parameters as {job}
	tool   *toolInfo
	params []paramInfo
	output func() *jsonschema.Schema // the success body's schema
	// status, creates and body are the success answer, for the
	// document: its HTTP status, whether it has a Location, its Go type.
	status  int
	creates bool
	body    reflect.Type
	// reads is how the HTTP body is read.
	reads bodyKind
	http  func(a *api, c *gin.Context)
	call  func(ctx context.Context, a *api, args json.RawMessage) (body any, replayed bool, err error)
}

// paramInfo is what is declared of a parameter, its type erased.
type paramInfo struct {
	name, arg string
	place     place
	required  bool
	schema    *jsonschema.Schema
}

// opSpec declares an operation whose input fills In and whose success body
// is Out: its domain operation (which has the scope, the method and the
// path), its parameters, the Service call and how the result renders.
type opSpec[In, Out any] struct {
	op     pipeline.Op
	tool   *toolInfo // nil: not a tool
	params []param[In]
	// settle applies a rule between parameters once all are read.
	settle func(*input[In])
	// call calls the Service with the input (in.domain(), which carries
	// the key and what could not be read) and renders its result; it
	// reports whether the result replays an idempotency key's.
	call func(ctx context.Context, svc *pipeline.Service, in *input[In]) (Out, bool, error)
	// status is the HTTP status of success; 204 has no body.
	status int
	// created is the id of the record a write created, for HTTP's
	// Location; nil when it creates none.
	created func(Out) int64
	// body is how the HTTP body is read: JSON unless it says otherwise.
	body bodyKind
}

func newOperation[In, Out any](spec opSpec[In, Out]) operation {
	o := operation{op: spec.op, method: spec.op.Method(), path: spec.op.Path(), tool: spec.tool,
		output: func() *jsonschema.Schema { return schemaFor[Out](false) },
		status: spec.status, creates: spec.created != nil, body: reflect.TypeFor[Out](), reads: spec.body}
	for _, p := range spec.params {
		o.params = append(o.params, paramInfo{name: p.name, arg: p.argName(), place: p.place, required: p.required, schema: p.schema})
	}
	o.http = spec.serveHTTP
	o.call = func(ctx context.Context, a *api, args json.RawMessage) (any, bool, error) {
		return spec.run(ctx, a.svc, spec.readArguments(ctx, a, args))
	}
	return o
}

// run calls the operation with its input. What could not be read of an
// input that does not carry it to the domain itself is answered by
// pipeline.Answer.
func (spec opSpec[In, Out]) run(ctx context.Context, svc *pipeline.Service, in *input[In]) (Out, bool, error) {
	if spec.settle != nil {
		spec.settle(in)
	}
	out, replayed, err := spec.call(ctx, svc, in)
	out, err = pipeline.Answer(in.problems(), in.idUnread, out, err)
	return out, replayed, err
}

// serveHTTP serves the operation's route.
func (spec opSpec[In, Out]) serveHTTP(a *api, c *gin.Context) {
	in, err := spec.readRequest(a, c)
	if err != nil {
		fail(c, err)
		return
	}
	out, replayed, err := spec.run(c.Request.Context(), a.svc, in)
	if err != nil {
		fail(c, err)
		return
	}
	if replayed {
		c.Header(ReplayHeader, "true")
	}
	if spec.created != nil {
		// The route below wherever the API is mounted, its ids filled in.
		route := a.prefix + "/api/v1" + fillPath(spec.op.Path(), in.ref)
		c.Header("Location", a.basePath+route+"/"+strconv.FormatInt(spec.created(out), 10))
	}
	if spec.status == http.StatusNoContent {
		c.Status(http.StatusNoContent)
		c.Writer.WriteHeaderNow()
		return
	}
	if s, ok := any(out).(servedBody); ok {
		s.serve(c.Writer, c.Request)
		return
	}
	if raw, ok := any(out).(rawBody); ok {
		contentType, body := raw.media()
		c.Data(spec.status, contentType, body)
		return
	}
	respond(c, spec.status, out)
}

// rawBody is a success body that HTTP sends as it is, not as JSON: its
// media type and its bytes (an invitation's iCalendar text).
type rawBody interface {
	media() (contentType string, body []byte)
}

// servedBody is a success body that serves itself: a document's bytes,
// whose request's Range and If-None-Match it answers.
type servedBody interface {
	serve(w http.ResponseWriter, r *http.Request)
}

// readRequest reads the operation's input from an HTTP request: the path's
// ids, the query of a read, the body and Idempotency-Key header of a
// write. It fails only when the body could not be received; a body over
// the size limit is an input not read, answered in the check order (its
// key, which binds a body, is not read).
func (spec opSpec[In, Out]) readRequest(a *api, c *gin.Context) (*input[In], error) {
	in := &input[In]{unread: pipeline.FieldErrors{}, self: a.origin(c.Request) + c.Request.URL.EscapedPath()}
	var query, body []param[In]
	for _, p := range spec.params {
		switch p.place {
		case inPath:
			p.fromText(in, []string{c.Param(p.name)})
		case inQuery:
			query = append(query, p)
		case inBody:
			body = append(body, p)
		}
	}
	readQuery(in, c.Request.URL.RawQuery, query)
	// A read sent as a POST (an export, whose email stays out of URLs)
	// has a body, and no key.
	if !spec.op.Writes() && spec.op.Method() != http.MethodPost {
		return in, nil
	}
	if keys, sent := c.Request.Header[IdempotencyKeyHeader]; sent && spec.op.Writes() && spec.body == multipartBody {
		in.key = &pipeline.Idempotency{}
		if len(keys) > 0 {
			in.key.Key = keys[0]
		}
	}
	if spec.body == multipartBody {
		return in, readMultipart(a, c, in, body)
	}
	raw, err := readBody(c)
	if errors.Is(err, errPayloadTooLarge) {
		in.unreadErr = err
		return in, nil
	}
	if err != nil {
		return nil, err
	}
	if keys, sent := c.Request.Header[IdempotencyKeyHeader]; sent && spec.op.Writes() {
		// Even an empty header is a key, which the domain refuses.
		in.key = &pipeline.Idempotency{}
		if len(keys) > 0 {
			in.key.Key = keys[0]
		}
	}
	readObject(in, raw, "body", body)
	return in, nil
}

// readQuery reads the parameters from the raw query string, each value
// percent-decoded byte for byte, as sent. It parses the string itself:
// url.ParseQuery drops a parameter whose percent-encoding is broken (%zz)
// or that holds a semicolon, and the list would answer as though it had
// not been sent. Here a broken one is refused naming it, and a semicolon
// is a character like any other. Other parameters are ignored.
func readQuery[In any](in *input[In], rawQuery string, params []param[In]) {
	values := url.Values{}
	for pair := range strings.SplitSeq(rawQuery, "&") {
		k, v, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(k)
		if err != nil || !hasParam(params, name) {
			continue
		}
		value, err := url.QueryUnescape(v)
		if err != nil {
			if in.unread[name] == nil {
				in.unread.Add(name, "The "+name+" parameter is not validly percent-encoded.")
			}
			continue
		}
		values.Add(name, value)
	}
	for _, p := range params {
		if v, sent := values[p.name]; sent && in.unread[p.name] == nil {
			if msg := p.fromText(in, v); msg != "" {
				in.unread.Add(p.name, msg)
			}
		}
	}
}

func hasParam[In any](params []param[In], name string) bool {
	_, ok := paramNamed(params, name)
	return ok
}

// readArguments reads the operation's input from a tool's arguments: the
// API's parameters under their names, the path's ids as job_id and
// candidate_id, a write's key as idempotency_key.
func (spec opSpec[In, Out]) readArguments(ctx context.Context, a *api, raw json.RawMessage) *input[In] {
	in := &input[In]{unread: pipeline.FieldErrors{}}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		raw = nil
	}
	var others []string
	if spec.op.Writes() {
		others = []string{argKey}
	}
	args := readObject(in, raw, "arguments", spec.params, others...)
	if in.unread["arguments"] != nil {
		in.idUnread = true // no id was read: none names a record
	}
	for _, p := range spec.params {
		if _, sent := args[p.argName()]; p.place == inPath && !sent && in.unread["arguments"] == nil {
			in.idUnread = true
			in.unread.Add(p.argName(), "The "+p.argName()+" field is required.")
		}
	}
	if v, sent := args[argKey]; sent && spec.op.Writes() {
		if key, ok := textOf(bytes.TrimSpace(v)); ok {
			in.key = &pipeline.Idempotency{Key: key}
		} else {
			in.unread.Add(argKey, wrongType(argKey, "a string"))
		}
	}
	in.self = exchangeFrom(ctx).origin + a.prefix + "/api/v1" + fillPath(spec.op.Path(), in.ref)
	return in
}

// fillPath is path with the ids of r in place of its parameters.
func fillPath(path string, r pipeline.Ref) string {
	var pairs []string
	for _, id := range r.IDs() {
		pairs = append(pairs, "{"+id.Name+"}", strconv.FormatInt(*id.ID, 10))
	}
	return strings.NewReplacer(pairs...).Replace(path)
}

// ginPath is path as a Gin pattern: {job} as :job.
func ginPath(path string) string {
	return strings.NewReplacer("{", ":", "}", "").Replace(path)
}
