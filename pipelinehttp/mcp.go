package pipelinehttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// MCPPath is where New and Mount serve the API's second face, below where
// the API is mounted: its operations as Model Context Protocol tools over
// the Streamable HTTP transport, for agents. Each tool is named after its
// operation (pipeline.Op) and answers with the API's body for the same
// request.
//
// It takes the API's bearer token, and a request without a valid one is 401
// before any JSON-RPC is read. Each HTTP request to it is counted against
// the rate limit exactly as one API request is, so a tools/call is counted
// once; over the budget a call answers a tool error rate_limited whose
// details carry retry_after, the seconds to wait, and any other request a
// JSON-RPC error of code CodeMCPRateLimited. The server is stateless (no
// session is kept between requests), so every replica serves any request;
// GET and DELETE, which the transport uses only for sessions, answer 405.
const MCPPath = "/mcp"

// CodeMCPRateLimited is the JSON-RPC error code of an MCP request other
// than a tool call made over the rate limit; its data is the API's error
// envelope with details.retry_after.
const CodeMCPRateLimited = -32029

// mcpInstructions is what the server tells an agent about itself.
const mcpInstructions = `Tools over a recruitment pipeline: jobs, their stages and the candidates on each job, ` +
	`notes and ratings, candidates added and moved, emails to candidates, interviews and availability, and the activity feed. ` +
	`Each tool is one operation of the REST API under /api/v1 and answers with that API's response body. ` +
	`Only the tools your token's scopes allow are listed. ` +
	`Writes take an optional idempotency_key: repeating a write with the same key within 24 hours returns the first result instead of acting again. ` +
	`Writes also take an optional reason, why you make the write, kept on its activity entry for the people who review what was done. ` +
	`Errors are {"error": {"code", "message", "details"}}; on rate_limited, wait details.retry_after seconds.`

// exchange is what the tools of one MCP request need from its HTTP
// request. The SDK runs them on a context derived from the request's, so
// it travels there, beside the caller.
type exchange struct {
	origin     string // what the API's links start with (see api.origin)
	requestID  string
	retryAfter int       // seconds until the user's budget refills; 0 when within it
	deadline   time.Time // the request's deadline (Config.RequestTimeout); zero: none
}

type exchangeKey struct{}

func exchangeFrom(ctx context.Context) *exchange {
	x, _ := ctx.Value(exchangeKey{}).(*exchange)
	if x == nil {
		return &exchange{}
	}
	return x
}

// mountMCP serves the MCP face at POST a.mcpPath of e.
func (a *api) mountMCP(e *gin.Engine) {
	e.POST(a.mcpPath, append(a.baseChain(), a.serveMCP(a.newMCP()))...)
}

// newMCP returns the MCP face's handler: the official SDK's Streamable
// HTTP transport, stateless, answering in JSON, on one server that holds a
// tool per operation.
func (a *api) newMCP() http.Handler {
	sdkLog := slog.New(warningsOnly{a.log.Handler()})
	s := mcp.NewServer(&mcp.Implementation{Name: "pipeline", Title: "Recruitment pipeline", Version: "1"}, &mcp.ServerOptions{
		Instructions: mcpInstructions,
		Logger:       sdkLog,
		// The tools never change, so there is nothing to notify.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		// tools/list depends on the token: no shared cache may keep it.
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.CacheScope = "private" },
	})
	for _, t := range a.mcpTools() {
		s.AddTool(t.tool, t.handler)
	}
	s.AddReceivingMiddleware(mcpRateLimited, mcpVisibleTools)
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		Logger:       sdkLog,
		// The SDK refuses a loopback connection whose Host is not loopback,
		// against DNS rebinding; every request here needs a bearer token,
		// which a rebinding page does not have, and a reverse proxy on the
		// same host sends the public Host.
		DisableLocalhostProtection:   true,
		MaxRequestBodyBytes:          MaxBodyBytes,
		PropagateRequestCancellation: true,
	})
}

// warningsOnly passes on only warnings and errors. The SDK logs the
// session of every stateless request at Info, which tells nothing that
// the access log does not.
type warningsOnly struct{ slog.Handler }

func (w warningsOnly) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.Handler.Enabled(ctx, l)
}

func (w warningsOnly) WithAttrs(as []slog.Attr) slog.Handler {
	return warningsOnly{w.Handler.WithAttrs(as)}
}

func (w warningsOnly) WithGroup(name string) slog.Handler {
	return warningsOnly{w.Handler.WithGroup(name)}
}

// serveMCP serves POST /mcp: it authenticates and counts the request as the
// API's guard does, reads the body as the API reads one (413 over
// MaxBodyBytes), answers a body that is not one JSON-RPC message with a
// JSON-RPC error, and hands the rest to h.
func (a *api) serveMCP(h http.Handler) gin.HandlerFunc {
	return func(c *gin.Context) {
		x := &exchange{origin: a.origin(c.Request), requestID: requestIDOf(c)}
		adm, err := a.admit(c)
		if err != nil {
			// A valid token's user over the budget is answered in JSON-RPC;
			// anything else as the API answers it.
			if _, ok := pipeline.CallerFrom(c.Request.Context()); !ok || pipeline.ErrorCode(err) != pipeline.ERateLimited {
				fail(c, err)
				return
			}
			x.retryAfter = int(adm.RetryAfter / time.Second)
		}
		raw, err := readBody(c)
		if err != nil {
			fail(c, err)
			return
		}
		if rpcErr := oneMessage(raw); rpcErr != nil {
			writeRPCError(c, rpcErr)
			return
		}
		c.Request.Body = io.NopCloser(bytes.NewReader(raw))
		ctx, cancel := withoutDeadline(c.Request.Context())
		defer cancel()
		x.deadline, _ = c.Request.Context().Deadline()
		c.Request = c.Request.WithContext(context.WithValue(ctx, exchangeKey{}, x))
		h.ServeHTTP(c.Writer, c.Request)
	}
}

// withoutDeadline is ctx with its values, ended when ctx is cancelled but
// not when its deadline passes. The SDK writes no response once the
// request's context has ended, and a tool that met the deadline answers
// just as it passes: the SDK gets the request without it, and each tool
// call keeps it (see exchange.bound).
func withoutDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	detached, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			cancel()
		}
	})
	return detached, func() { stop(); cancel() }
}

// bound is ctx ended at the request's deadline.
func (x *exchange) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if x.deadline.IsZero() {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, x.deadline)
}

// oneMessage returns the JSON-RPC error of a body that is not JSON (a
// parse error) or not one JSON object (an invalid request: batches, which
// the protocol no longer has, would count several calls as one request).
func oneMessage(raw []byte) *jsonrpc.Error {
	if !json.Valid(raw) {
		return &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "Parse error: the body is not JSON."}
	}
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid request: send one JSON-RPC message, an object, per request."}
	}
	return nil
}

// writeRPCError answers a request that could not be read as JSON-RPC, with
// no id, as JSON-RPC does.
func writeRPCError(c *gin.Context, e *jsonrpc.Error) {
	body, err := json.Marshal(struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      any            `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", nil, e})
	if err != nil {
		fail(c, err)
		return
	}
	c.Data(http.StatusBadRequest, "application/json", body)
	c.Abort()
}

// mcpRateLimited answers every request of an exchange over the user's
// budget without running it: a tool call with a rate_limited tool error,
// anything else with a JSON-RPC error.
func mcpRateLimited(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		wait := exchangeFrom(ctx).retryAfter
		if wait == 0 {
			return next(ctx, method, req)
		}
		_, env, _ := envelopeOf(pipeline.ErrRateLimited)
		env.Error.Details = map[string]int{"retry_after": wait}
		if method == "tools/call" {
			return toolResult(env, true), nil
		}
		b, err := json.Marshal(env)
		if err != nil {
			return nil, err
		}
		return nil, &jsonrpc.Error{Code: CodeMCPRateLimited, Message: env.Error.Message, Data: b}
	}
}

// mcpVisibleTools leaves out of tools/list the tools whose scope the
// caller's token does not carry (calling one anyway answers
// insufficient_scope, as the API does), and says of each tool the token
// may only propose that its calls wait for a person.
func mcpVisibleTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		l, ok := res.(*mcp.ListToolsResult)
		if err != nil || method != "tools/list" || !ok {
			return res, err
		}
		caller, _ := pipeline.CallerFrom(ctx)
		l.Tools = heldTools(caller, slices.DeleteFunc(slices.Clone(l.Tools), func(t *mcp.Tool) bool {
			scope := pipeline.Op(t.Name).Scope()
			return scope != "" && !caller.Has(scope)
		}))
		return l, nil
	}
}
