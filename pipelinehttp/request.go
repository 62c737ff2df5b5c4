package pipelinehttp

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
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
