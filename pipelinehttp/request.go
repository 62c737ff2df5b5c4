package pipelinehttp

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"

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
}

func stringField(name string, into any) field {
	return field{name: name, kind: "a string", into: into}
}

func integerField(name string, into *int64) field {
	return field{name: name, kind: "an integer", into: into}
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
		if bytes.Equal(bytes.TrimSpace(value), []byte("null")) || json.Unmarshal(value, f.into) != nil {
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
// for the Service to report after its own checks.
type query struct {
	c   *gin.Context
	bad pipeline.FieldErrors
}

func newQuery(c *gin.Context) *query { return &query{c: c, bad: pipeline.FieldErrors{}} }

// page is the page asked for; 0 (the first) when absent.
func (q *query) page() int {
	raw, ok := q.c.GetQuery("page")
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
	raw, ok := q.c.GetQuery("status")
	if ok && raw == "" {
		q.bad.Add("status", msgQueryStatus)
	}
	return pipeline.JobStatus(raw)
}

// stage is the stage filter; 0 (any stage) when absent.
func (q *query) stage() int64 {
	raw, ok := q.c.GetQuery("stage")
	if !ok {
		return 0
	}
	id, valid := parseID(raw)
	if !valid {
		q.bad.Add("stage", msgQueryStage)
	}
	return id
}
