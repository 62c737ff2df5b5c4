package pipelinehttp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/gin-gonic/gin"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// IdempotencyKeyHeader names the key of a replayable write.
const IdempotencyKeyHeader = "Idempotency-Key"

// ReplayHeader marks a response replayed from an idempotency record.
const ReplayHeader = "Idempotent-Replay"

// success is how an operation renders its result: the success status and the
// value encoded as the body.
type success[T any] func(result T) (status int, body any)

// finish sets the headers an operation derives from its rendered body, so
// that a replayed response, which keeps only status and body, gets them too.
type finish func(c *gin.Context, body []byte)

// write runs a write operation and answers with its success. When the request
// carries an Idempotency-Key header (even an empty one, which the Service
// refuses), the operation runs under pipeline.WithIdempotency with a
// fingerprint of method, path and raw body and a Render made from render, so
// the stored response and the one written here come from the same function
// and are byte for byte the same. A replay (a *pipeline.Replay from the
// Service) is answered with the stored response, after fin has set its
// headers from the stored body.
func write[T any](c *gin.Context, raw []byte, render success[T], fin finish, op func(context.Context) (T, error)) {
	ctx := c.Request.Context()
	if keys, keyed := c.Request.Header[IdempotencyKeyHeader]; keyed {
		ctx = pipeline.WithIdempotency(ctx, pipeline.Idempotency{
			Key:         firstOrEmpty(keys),
			Fingerprint: fingerprint(c.Request.Method, c.Request.URL.Path, raw),
			Render: func(result any) (int, []byte, error) {
				res, ok := result.(T)
				if !ok {
					return 0, nil, fmt.Errorf("pipelinehttp: rendering %T as %T", result, res)
				}
				return renderBody(render, res)
			},
		})
	}
	res, err := op(ctx)
	var replay *pipeline.Replay
	if errors.As(err, &replay) {
		if fin != nil {
			fin(c, replay.Body)
		}
		c.Header(ReplayHeader, "true")
		c.Data(replay.Status, jsonContentType, replay.Body)
		return
	}
	if err != nil {
		fail(c, err)
		return
	}
	status, body, err := renderBody(render, res)
	if err != nil {
		fail(c, err)
		return
	}
	if fin != nil {
		fin(c, body)
	}
	c.Data(status, jsonContentType, body)
}

func renderBody[T any](render success[T], res T) (int, []byte, error) {
	status, v := render(res)
	body, err := encode(v)
	return status, body, err
}

func firstOrEmpty(values []string) string {
	if len(values) == 0 {
		return ""
	}
	return values[0]
}

// fingerprint identifies a write request: method, path and raw body.
func fingerprint(method, path string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(method + "\n" + path + "\n"))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}
