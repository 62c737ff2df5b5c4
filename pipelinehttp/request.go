package pipelinehttp

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/gin-gonic/gin"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// MaxBodyBytes is the largest request body read; a larger one answers 413
// payload_too_large.
const MaxBodyBytes = 1 << 20

// readBody reads the request body, at most MaxBodyBytes of it.
func readBody(c *gin.Context) ([]byte, error) {
	if c.Request.Body == nil {
		return nil, nil
	}
	// One byte more than allowed tells a body at the limit from a larger one.
	b, err := io.ReadAll(io.LimitReader(c.Request.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxBodyBytes {
		return nil, errPayloadTooLarge
	}
	return b, nil
}

// field is a body field an operation takes: its name, the JSON type it must
// have (for the message) and where its value goes.
type field struct {
	name string
	kind string // "a string", "an integer"
	into any    // pointer to the destination
	seen *bool  // set when the field was present and well-typed; may be nil
}

func stringField(name string, into any, seen *bool) field {
	return field{name: name, kind: "a string", into: into, seen: seen}
}

func integerField(name string, into *int64, seen *bool) field {
	return field{name: name, kind: "an integer", into: into, seen: seen}
}

// decodeBody decodes a JSON object body into fields and returns the
// problems found, to be reported by the Service in its input's Malformed
// field (after its not-found check). An empty body is the empty object. A
// body that is not a JSON object is reported under "body"; otherwise every
// offending field is reported under its own name: a field the operation
// does not take, or a value of the wrong JSON type (null included).
func decodeBody(raw []byte, fields ...field) pipeline.FieldErrors {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	errs := pipeline.FieldErrors{}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		errs.Add("body", "The body must be a JSON object.")
		return errs
	}
	byName := make(map[string]field, len(fields))
	for _, f := range fields {
		byName[f.name] = f
	}
	for name, value := range obj {
		f, ok := byName[name]
		if !ok {
			errs.Add(name, "The "+name+" field is not allowed.")
			continue
		}
		if bytes.Equal(bytes.TrimSpace(value), []byte("null")) || json.Unmarshal(value, f.into) != nil {
			errs.Add(name, "The "+name+" field must be "+f.kind+".")
			continue
		}
		if f.seen != nil {
			*f.seen = true
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// pathID reads an id path parameter. A value that is not a positive integer
// becomes 0, which names no record: the Service then answers not_found after
// its scope check, keeping the API's check order.
func pathID(c *gin.Context, name string) int64 {
	id, ok := pipeline.ParseID(c.Param(name))
	if !ok {
		return 0
	}
	return id
}

// query reads a list's optional query parameters. A parameter sent with a
// value that cannot be read, the empty value included, is collected in bad
// for the Service to report after its own checks (scope, then the job), so
// that the API's check order holds.
type query struct {
	c   *gin.Context
	bad pipeline.FieldErrors
}

func newQuery(c *gin.Context) *query { return &query{c: c, bad: pipeline.FieldErrors{}} }

// page is the page asked for; 1 when absent.
func (q *query) page() int {
	raw, ok := q.c.GetQuery("page")
	if !ok {
		return 1
	}
	p, err := pipeline.ParsePage(raw)
	q.bad.Merge(err)
	return p
}

// status is the job status asked for; "" (the Service's default) when absent.
func (q *query) status() pipeline.JobStatus {
	raw, ok := q.c.GetQuery("status")
	if !ok {
		return ""
	}
	s, err := pipeline.ParseJobStatus(raw)
	q.bad.Merge(err)
	return s
}

// stage is the stage filter; 0 (none) when absent.
func (q *query) stage() int64 {
	raw, ok := q.c.GetQuery("stage")
	if !ok {
		return 0
	}
	id, err := pipeline.ParseStageFilter(raw)
	q.bad.Merge(err)
	return id
}
