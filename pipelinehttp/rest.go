package pipelinehttp

import (
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The REST face: each operation of the table as a Gin route below /api/v1.

// routes registers the operations' routes below v1, behind the request's
// admission.
func (a *api) routes(v1 *gin.RouterGroup) {
	v1.Use(a.baseChain()...)
	// The OpenAPI document needs no token: it is counted against the
	// client's address like any anonymous request.
	v1.GET("/openapi.json", a.guardAnonymous, serveOpenAPI)
	g := v1.Group("", a.guard)
	for _, o := range operations {
		g.Handle(o.method, ginPath(o.path), func(c *gin.Context) { o.faces.serveREST(a, c) })
		if o.servesHead() {
			g.Handle(http.MethodHead, ginPath(o.path), func(c *gin.Context) { o.faces.serveREST(a, c) })
		}
	}
}

// serveREST serves the operation's route.
func (spec opSpec[In, Out]) serveREST(a *api, c *gin.Context) {
	in, err := spec.readRequest(a, c)
	if err != nil {
		fail(c, err)
		return
	}
	out, replayed, err := spec.run(c.Request.Context(), a.svc, in)
	var proposed *pipeline.Proposed
	if errors.As(err, &proposed) {
		// A held write: nothing changed; a person decides.
		if proposed.Replayed {
			c.Header(ReplayHeader, "true")
		}
		c.Header("Location", a.basePath+a.prefix+"/api/v1/proposals/"+strconv.FormatInt(proposed.Proposal.ID, 10))
		respond(c, http.StatusAccepted, proposedBody(proposed))
		return
	}
	if err != nil {
		fail(c, err)
		return
	}
	if replayed {
		c.Header(ReplayHeader, "true")
	}
	if spec.created != nil {
		// The route below wherever the API is mounted, its ids filled in.
		route := a.prefix + "/api/v1" + spec.op.FilledPath(in.ref)
		c.Header("Location", a.basePath+route+"/"+strconv.FormatInt(spec.created(out), 10))
	}
	if spec.op.Status() == http.StatusNoContent {
		c.Status(http.StatusNoContent)
		c.Writer.WriteHeaderNow()
		return
	}
	if s, ok := any(out).(servedBody); ok {
		if err := s.serve(c.Writer, c.Request); err != nil {
			fail(c, err)
		}
		return
	}
	if raw, ok := any(out).(rawBody); ok {
		contentType, body := raw.media()
		c.Data(spec.op.Status(), contentType, body)
		return
	}
	respond(c, spec.op.Status(), out)
}

// rawBody is a success body that HTTP sends as it is, not as JSON: its
// media type and its bytes (an invitation's iCalendar text).
type rawBody interface {
	media() (contentType string, body []byte)
}

// servedBody is a success body that serves itself: a document's bytes,
// whose request's Range and If-None-Match it answers, and HEAD. It
// returns the error to answer instead (a Range it cannot satisfy), having
// written nothing.
type servedBody interface {
	serve(w http.ResponseWriter, r *http.Request) error
	mediaTypes() []string // the Content-Types it may answer, for the document
}

// servesHead says whether o also answers HEAD: a GET whose body serves
// itself, with the headers of the GET and no body.
func (o operation) servesHead() bool {
	return o.method == http.MethodGet && o.body.Implements(reflect.TypeFor[servedBody]())
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

// ginPath is path as a Gin pattern: {job} as :job.
func ginPath(path string) string {
	return strings.NewReplacer("{", ":", "}", "").Replace(path)
}
