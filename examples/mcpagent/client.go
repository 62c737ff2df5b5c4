package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pipeline-dev/pipeline/examples/internal/demo"
)

// agent is a connected MCP session and how to wait.
type agent struct {
	session *mcp.ClientSession
	sleep   func(context.Context, time.Duration) error
}

// bearer sends the token with every request of the MCP transport.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// connect opens an MCP session on cfg.Endpoint and checks that the token
// may call every tool the agent needs.
func connect(ctx context.Context, cfg config) (*agent, error) {
	next := cfg.HTTP
	if next == nil {
		next = http.DefaultTransport
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpagent", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   cfg.Endpoint,
		HTTPClient: &http.Client{Transport: bearer{cfg.Token, next}, Timeout: 30 * time.Second},
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", cfg.Endpoint, err)
	}
	var offered []string
	for tool, err := range session.Tools(ctx, nil) {
		if err != nil {
			session.Close()
			return nil, err
		}
		offered = append(offered, tool.Name)
	}
	for _, name := range needed {
		if !slices.Contains(offered, name) {
			session.Close()
			return nil, fmt.Errorf("the token's scopes do not allow %s (tools offered: %v)", name, offered)
		}
	}
	a := &agent{session: session, sleep: cfg.Sleep}
	if a.sleep == nil {
		a.sleep = demo.Sleep
	}
	return a, nil
}

// toolError is a tool's refusal: the API's error envelope.
type toolError struct {
	Tool    string
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Details json.RawMessage `json:"details"`
}

func (e *toolError) Error() string {
	return fmt.Sprintf("%s: %s: %s %s", e.Tool, e.Code, e.Message, e.Details)
}

// call calls a tool and decodes its structured result into out (nil:
// ignore it). A call refused with rate_limited is made again, with the
// same arguments and so the same idempotency key, after the seconds its
// details name; any other refusal is a *toolError.
func (a *agent) call(ctx context.Context, tool string, args map[string]any, out any) error {
	for {
		res, err := a.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return fmt.Errorf("%s: %w", tool, err)
		}
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return err
		}
		if !res.IsError {
			if out == nil {
				return nil
			}
			return json.Unmarshal(b, out)
		}
		var env struct {
			Error toolError `json:"error"`
		}
		if err := json.Unmarshal(b, &env); err != nil {
			return fmt.Errorf("%s: %w", tool, err)
		}
		env.Error.Tool = tool
		var wait struct {
			RetryAfter int `json:"retry_after"`
		}
		if env.Error.Code != "rate_limited" || json.Unmarshal(env.Error.Details, &wait) != nil {
			return &env.Error
		}
		if err := a.sleep(ctx, time.Duration(max(wait.RetryAfter, 1))*time.Second); err != nil {
			return err
		}
	}
}
