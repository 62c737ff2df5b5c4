package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// maxAttempts bounds the retries of one request.
const maxAttempts = 6

// client talks to the API with a bearer token, retrying what is safe to
// retry.
type client struct {
	base  string
	token string
	http  *http.Client
	sleep func(context.Context, time.Duration) error
	out   io.Writer
}

func newClient(cfg config) *client {
	c := &client{base: strings.TrimRight(cfg.BaseURL, "/"), token: cfg.Token, http: cfg.HTTP, sleep: cfg.Sleep, out: cfg.Out}
	if c.http == nil {
		c.http = &http.Client{Timeout: 30 * time.Second}
	}
	if c.sleep == nil {
		c.sleep = sleepCtx
	}
	return c
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// apiError is an error envelope returned by the API.
type apiError struct {
	Status  int
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

func (c *client) get(ctx context.Context, path string, out any) error {
	return c.do(ctx, http.MethodGet, path, nil, "", out)
}

// write sends a write with a fresh Idempotency-Key, kept across its retries.
func (c *client) write(ctx context.Context, method, path string, body, out any) error {
	return c.do(ctx, method, path, body, uuid.NewString(), out)
}

// do sends one request, retrying on network errors, on 429 after
// Retry-After, and on 409 while a request with the same key is in flight.
func (c *client) do(ctx context.Context, method, path string, body any, key string, out any) error {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return err
		}
	}
	url := path
	if !strings.HasPrefix(path, "http://") && !strings.HasPrefix(path, "https://") {
		url = c.base + path
	}
	var last error
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		wait, err := c.once(ctx, method, url, payload, key, out)
		if err == nil {
			return nil
		}
		last = err
		if wait < 0 || ctx.Err() != nil {
			return err
		}
		fmt.Fprintf(c.out, "  %s %s: %v; retrying in %s", method, path, err, wait)
		if key != "" {
			fmt.Fprint(c.out, " with the same Idempotency-Key")
		}
		fmt.Fprintln(c.out)
		if err := c.sleep(ctx, wait); err != nil {
			return err
		}
	}
	return fmt.Errorf("giving up after %d attempts: %w", maxAttempts, last)
}

// once sends a request and returns how long to wait before retrying it, or
// a negative wait when it must not be retried.
func (c *client) once(ctx context.Context, method, url string, payload []byte, key string, out any) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(payload))
	if err != nil {
		return -1, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		// The request may or may not have been applied; the same key makes
		// the retry safe either way.
		return 500 * time.Millisecond, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return 500 * time.Millisecond, err
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if out == nil {
			return 0, nil
		}
		return -1, json.Unmarshal(data, out)
	}
	var env struct{ Error apiError }
	if json.Unmarshal(data, &env) != nil || env.Error.Code == "" {
		env.Error = apiError{Code: "unknown", Message: strings.TrimSpace(string(data))}
	}
	env.Error.Status = resp.StatusCode
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		secs, err := strconv.Atoi(resp.Header.Get("Retry-After"))
		if err != nil || secs < 1 {
			secs = 1
		}
		return time.Duration(secs) * time.Second, &env.Error
	case http.StatusConflict:
		return 250 * time.Millisecond, &env.Error
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return time.Second, &env.Error
	}
	return -1, &env.Error
}
