package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/pipeline-dev/pipeline/examples/agent/pipelineapi"
	"github.com/pipeline-dev/pipeline/examples/internal/demo"
)

// maxAttempts bounds the sending of one request.
const maxAttempts = 6

// newClient returns the generated API client, sending the token with every
// request through a retrying HTTP client.
func newClient(cfg config) (*pipelineapi.ClientWithResponses, error) {
	var next pipelineapi.HttpRequestDoer = &http.Client{Timeout: 30 * time.Second}
	if cfg.HTTP != nil {
		next = cfg.HTTP
	}
	r := &retrying{next: next, sleep: cfg.Sleep, out: cfg.Out}
	if r.sleep == nil {
		r.sleep = demo.Sleep
	}
	auth := func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+cfg.Token)
		req.Header.Set("Accept", "application/json")
		return nil
	}
	return pipelineapi.NewClientWithResponses(strings.TrimRight(cfg.BaseURL, "/"),
		pipelineapi.WithHTTPClient(r), pipelineapi.WithRequestEditorFn(auth))
}

// newKey is a fresh Idempotency-Key, one per action: the retries of that
// action send the same request and so the same key.
func newKey() *pipelineapi.IdempotencyKey {
	k := uuid.NewString()
	return &k
}

// retrying sends a request again, unchanged, when its answer says it may:
// after a network error, after Retry-After on 429, while a request with the
// same Idempotency-Key is in flight (409), and on a proxy's 502-504. The
// generated client sees only the last answer.
type retrying struct {
	next  pipelineapi.HttpRequestDoer
	sleep func(context.Context, time.Duration) error
	out   io.Writer
}

func (r *retrying) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	for attempt := 1; ; attempt++ {
		try, err := rewind(req)
		if err != nil {
			return nil, err
		}
		resp, err := r.next.Do(try)
		wait := backoff(resp, err)
		if wait < 0 || ctx.Err() != nil {
			return resp, err
		}
		if attempt == maxAttempts {
			if err != nil {
				return nil, fmt.Errorf("giving up after %d attempts: %w", maxAttempts, err)
			}
			return resp, nil
		}
		why := fmt.Sprint(err)
		if resp != nil {
			why = resp.Status
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		fmt.Fprintf(r.out, "  %s %s: %s; retrying in %s", req.Method, req.URL.Path, why, wait)
		if req.Header.Get("Idempotency-Key") != "" {
			fmt.Fprint(r.out, " with the same Idempotency-Key")
		}
		fmt.Fprintln(r.out)
		if err := r.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// rewind is a copy of req whose body starts again from the beginning.
func rewind(req *http.Request) (*http.Request, error) {
	try := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		try.Body = body
	}
	return try, nil
}

// backoff is how long to wait before sending a request again, or a negative
// wait when its answer is final.
func backoff(resp *http.Response, err error) time.Duration {
	if err != nil {
		// The request may or may not have been applied; the same key makes
		// the retry safe either way.
		return 500 * time.Millisecond
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		secs, err := strconv.Atoi(resp.Header.Get("Retry-After"))
		if err != nil || secs < 1 {
			secs = 1
		}
		return time.Duration(secs) * time.Second
	case http.StatusConflict:
		return 250 * time.Millisecond
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return time.Second
	}
	return -1
}

// apiError is an error answer of the API.
type apiError struct {
	Status  int
	Code    string
	Message string
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// failed is the error of a response that is not the operation's success.
// bodies are the response's typed error bodies (its JSON4xx and JSON5xx
// fields): the generated client has set the one for the status received.
func failed(resp *http.Response, bodies ...any) error {
	for _, b := range bodies {
		if e := errorOf(resp.StatusCode, b); e != nil {
			return e
		}
	}
	return &apiError{Status: resp.StatusCode, Code: "unexpected", Message: resp.Status}
}

// errorOf reads one generated error body; nil when it was not set.
func errorOf(status int, body any) *apiError {
	e := func(code, message string) *apiError { return &apiError{Status: status, Code: code, Message: message} }
	switch b := body.(type) {
	case *pipelineapi.UnauthenticatedError:
		if b != nil {
			return e(string(b.Error.Code), string(b.Error.Message))
		}
	case *pipelineapi.InsufficientScopeJobsReadError:
		if b != nil {
			return e(string(b.Error.Code), b.Error.Message)
		}
	case *pipelineapi.InsufficientScopeCandidatesReadError:
		if b != nil {
			return e(string(b.Error.Code), b.Error.Message)
		}
	case *pipelineapi.InsufficientScopeCandidatesWriteError:
		if b != nil {
			return e(string(b.Error.Code), b.Error.Message)
		}
	case *pipelineapi.NotFoundError:
		if b != nil {
			return e(string(b.Error.Code), b.Error.Message)
		}
	case *pipelineapi.ValidationFailedError:
		if b != nil {
			return e(string(b.Error.Code), fmt.Sprintf("%s %v", b.Error.Message, b.Error.Details))
		}
	case *pipelineapi.ConflictError:
		if b != nil {
			return e(string(b.Error.Code), b.Error.Message)
		}
	case *pipelineapi.PayloadTooLargeError:
		if b != nil {
			return e(string(b.Error.Code), b.Error.Message)
		}
	case *pipelineapi.RateLimitedError:
		if b != nil {
			return e(string(b.Error.Code), string(b.Error.Message))
		}
	case *pipelineapi.ServerError:
		if b != nil {
			return e(string(b.Error.Code), b.Error.Message)
		}
	}
	return nil
}
