package pipelinehttp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// toolResult is a tool's answer: body, the API's body for the same
// request, as the structured content and, for clients that read only
// text, as the same JSON text, what candidates wrote marked as theirs.
func toolResult(body any, isError bool) *mcp.CallToolResult {
	b, err := encode(body)
	if err != nil {
		b = []byte(`{"error":{"code":"server_error","message":"Server error.","details":null}}`)
		isError = true
	}
	text, marked := markedText(reflect.TypeOf(body), b)
	if !marked || isError {
		text = string(b)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: json.RawMessage(b),
		IsError:           isError,
	}
}

// toolFailure is the tool error of err: the API's error envelope, with the
// same code and details, the key's field named as the argument it is
// here. The cause of an internal error goes to the log only.
func (a *api) toolFailure(ctx context.Context, op pipeline.Op, err error) *mcp.CallToolResult {
	_, env, internal := envelopeOf(err)
	if level, msg, ok := failureLog(env.Error.Code, internal); ok {
		a.logRequestCause(ctx, level, msg, exchangeFrom(ctx).requestID, http.MethodPost, a.mcpPath, err,
			slog.String("tool", string(op)))
	}
	return toolResult(env, true)
}

// recoverTool turns a panic of a tool into a server_error tool error; the
// SDK runs tools outside Gin's recovery, and the process keeps serving.
func (a *api) recoverTool(ctx context.Context, op pipeline.Op, res **mcp.CallToolResult) {
	if r := recover(); r != nil {
		*res = a.toolFailure(ctx, op, fmt.Errorf("panic: %v\n%s", r, debug.Stack()))
	}
}
