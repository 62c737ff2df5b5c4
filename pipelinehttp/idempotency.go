package pipelinehttp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// IdempotencyKeyHeader names the key of a replayable write.
const IdempotencyKeyHeader = "Idempotency-Key"

// ReplayHeader marks a response that replays a stored result.
const ReplayHeader = "Idempotent-Replay"

// bind reads a write's body into fields and its Idempotency-Key header, in
// that order of concern: a body over the limit answers 413 at once. When
// the body cannot be read into the input, it answers with the Service's
// verdict on the call (Reject), merged with validate's view of the fields
// that were read, and returns false.
func (a *api) bind(c *gin.Context, op pipeline.Op, ref pipeline.Ref, validate func() error, fields ...field) (*pipeline.Idempotency, bool) {
	raw, err := readBody(c)
	if errors.Is(err, errPayloadTooLarge) {
		// A body too large to read is the body's fault: the checks before
		// the body come first (the key, which binds a body, is not read).
		fail(c, a.svc.Reject(c.Request.Context(), op, ref, nil, err))
		return nil, false
	}
	if err != nil {
		fail(c, err)
		return nil, false
	}
	idem := a.idempotency(c, raw)
	if bad := decodeBody(raw, fields...); bad != nil {
		fail(c, a.svc.Reject(c.Request.Context(), op, ref, idem, merged(bad, validate())))
		return nil, false
	}
	return idem, true
}

// idempotency is the Idempotency of a write that sent an Idempotency-Key
// header (even an empty one, which the Service refuses), bound to the
// request: its method, its path below where the API is mounted, and its
// body as a JSON value.
func (a *api) idempotency(c *gin.Context, raw []byte) *pipeline.Idempotency {
	keys, ok := c.Request.Header[IdempotencyKeyHeader]
	if !ok {
		return nil
	}
	key := ""
	if len(keys) > 0 {
		key = keys[0]
	}
	path := strings.TrimPrefix(c.Request.URL.Path, a.prefix)
	return &pipeline.Idempotency{Key: key, Request: requestFingerprint(c.Request.Method, path, raw)}
}

// requestFingerprint identifies a write request for its idempotency key:
// the method, the path (from /api/v1) and the body compared as a JSON value,
// so that whitespace and the order of keys do not matter. A body that is
// not JSON is taken byte for byte.
func requestFingerprint(method, path string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(method + "\n" + path + "\n"))
	h.Write(canonicalJSON(body))
	return hex.EncodeToString(h.Sum(nil))
}

// canonicalJSON re-encodes a JSON value with sorted keys, no insignificant
// whitespace and numbers in one spelling (3.0 as 3). It returns body as it
// is when it is not one JSON value, or when encoding/json would not decode
// its text as sent (it would make "\ud800" and "\ufffd" one request).
func canonicalJSON(body []byte) []byte {
	if !faithfulJSON(body) {
		return body
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return body
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(canonicalNumbers(v)); err != nil {
		return body
	}
	return buf.Bytes()
}

// canonicalNumbers replaces every number in v by its shortest spelling:
// a whole int64 as an integer (3, 3.0 and 3e0 alike, as the body's reading
// takes them: see integral), others through float64.
func canonicalNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = canonicalNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = canonicalNumbers(e)
		}
	case json.Number:
		whole := integral([]byte(x))
		if _, err := strconv.ParseInt(string(whole), 10, 64); err == nil {
			return json.Number(whole)
		}
		if f, err := x.Float64(); err == nil {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	return v
}

// answer writes a write's result as render says, marked when it replays a
// stored result, or hands its error on.
func answer[T any](c *gin.Context, res pipeline.Result[T], err error, render func(T) (int, any)) {
	if err != nil {
		fail(c, err)
		return
	}
	if res.Replayed {
		c.Header(ReplayHeader, "true")
	}
	status, v := render(res.Value)
	respond(c, status, v)
}
