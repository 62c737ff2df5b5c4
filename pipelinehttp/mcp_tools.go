package pipelinehttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// mcpTool is an operation of the Service as an MCP tool.
type mcpTool struct {
	tool    *mcp.Tool
	handler mcp.ToolHandler
}

// mcpTools are the tools: the operations of the table that are tools, in
// its order.
func (a *api) mcpTools() []mcpTool {
	var tools []mcpTool
	for _, o := range operations {
		if o.tool != nil {
			tools = append(tools, a.newTool(o))
		}
	}
	return tools
}

// newTool makes o a tool whose arguments are o's parameters and whose
// result is the API's body.
func (a *api) newTool(o operation) mcpTool {
	info := o.tool
	hints := &mcp.ToolAnnotations{Title: info.Title, ReadOnlyHint: true, OpenWorldHint: new(false)}
	if o.op.Writes() {
		// Only an erasure deletes for good.
		hints = &mcp.ToolAnnotations{Title: info.Title, DestructiveHint: new(info.Destructive),
			IdempotentHint: info.Idempotent, OpenWorldHint: new(false)}
	}
	description := info.Description
	if len(suppliedPaths(o.body)) > 0 {
		description += " Its text marks what candidates wrote between candidate_supplied tags; its structured content is the API's body, unmarked."
	}
	if scope := o.op.Scope(); scope != "" {
		description += " Needs the scope " + string(scope) + "."
	}
	tool := &mcp.Tool{
		Name:         string(o.op),
		Title:        info.Title,
		Description:  description,
		Annotations:  hints,
		InputSchema:  o.inputSchema(),
		OutputSchema: o.output(),
	}
	handler := func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, _ error) {
		defer a.recoverTool(ctx, o.op, &res)
		ctx, cancel := exchangeFrom(ctx).bound(ctx)
		defer cancel()
		out, replayed, err := o.faces.callTool(ctx, a, req.Params.Arguments)
		var proposed *pipeline.Proposed
		if errors.As(err, &proposed) {
			return proposedTool(proposed), nil
		}
		if err != nil {
			return a.toolFailure(ctx, o.op, err), nil
		}
		res = toolResult(out, false)
		if replayed {
			// The API's Idempotent-Replay header.
			res.Meta = mcp.Meta{"idempotent_replay": true}
		}
		return res, nil
	}
	return mcpTool{tool: tool, handler: handler}
}

// keySchema is the idempotency key's, as a write's argument.
var keySchema = described(textSchema(1, 255, `^[ -~]+$`), "Optional key naming this action (a UUID per distinct action is advised). "+
	"Repeating the write with the same key within 24 hours returns the first result instead of acting again; it is the same key as the API's Idempotency-Key header.")

// inputSchema is the schema of o's arguments: its parameters under their
// argument names, and a write's idempotency key.
func (o operation) inputSchema() *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	for _, p := range o.params {
		s.Properties[p.arg] = p.schema
		if p.required {
			s.Required = append(s.Required, p.arg)
		}
	}
	if o.op.Writes() {
		s.Properties[argKey] = keySchema
	}
	return s
}

// callTool calls the operation with a tool's arguments.
func (spec opSpec[In, Out]) callTool(ctx context.Context, a *api, args json.RawMessage) (any, bool, error) {
	return spec.run(ctx, a.svc, spec.readArguments(ctx, a, args))
}

// readArguments reads the operation's input from a tool's arguments: the
// API's parameters under their names, the path's ids as job_id and
// candidate_id, a write's key as idempotency_key.
func (spec opSpec[In, Out]) readArguments(ctx context.Context, a *api, raw json.RawMessage) *input[In] {
	in := &input[In]{unread: pipeline.FieldErrors{}}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		raw = nil
	}
	var others []string
	if spec.op.Writes() {
		others = []string{argKey}
	}
	args := readObject(in, raw, "arguments", spec.params, others...)
	if in.unread["arguments"] != nil {
		in.idUnread = true // no id was read: none names a record
	}
	for _, p := range spec.params {
		if _, sent := args[p.argName()]; p.place == inPath && !sent && in.unread["arguments"] == nil {
			in.idUnread = true
			in.unread.Add(p.argName(), "The "+p.argName()+" field is required.")
		}
	}
	if v, sent := args[argKey]; sent && spec.op.Writes() {
		if key, ok := textOf(bytes.TrimSpace(v)); ok {
			in.key = &pipeline.Idempotency{Key: key}
		} else {
			in.unread.Add(argKey, wrongType(argKey, "a string"))
		}
	}
	in.self = exchangeFrom(ctx).origin + a.prefix + "/api/v1" + spec.op.FilledPath(in.ref)
	return in
}

// Tools are the operations that are MCP tools, in the order of the table
// (those the domain gives a tool's words, pipeline.Op.Tool); the others
// (the webhooks', an invitation's calendar file) are served by the REST
// API only.
func Tools() []pipeline.Op {
	var out []pipeline.Op
	for _, o := range operations {
		if o.tool != nil {
			out = append(out, o.op)
		}
	}
	return out
}
