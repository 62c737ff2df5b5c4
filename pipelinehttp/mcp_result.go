package pipelinehttp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"runtime/debug"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// toolResult is a tool's answer: body, the API's body for the same
// request, as the structured content and, for clients that read only
// text, as the same JSON text.
func toolResult(body any, isError bool) *mcp.CallToolResult {
	b, err := encode(body)
	if err != nil {
		b = []byte(`{"error":{"code":"server_error","message":"Server error.","details":null}}`)
		isError = true
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
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

// mcpSchemas are the schemas of the body types whose values the API
// documents: the types carry them into every schema generated from a
// struct that holds them.
var mcpSchemas = func() *jsonschema.ForOptions {
	var scopes []string
	for _, s := range pipeline.AllScopes {
		scopes = append(scopes, string(s))
	}
	return &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[pipeline.JobStatus]():   statusSchema,
		reflect.TypeFor[pipeline.RatingValue](): ratingSchema,
		reflect.TypeFor[pipeline.Scope]():       enumSchema(scopes...),
		reflect.TypeFor[json.RawMessage]():      {Type: "object"}, // an entry's changes
	}}
}()

// schemaFor is the JSON schema of T: an argument struct, whose optional
// arguments are absent rather than null (the API refuses null), or an API
// body, whose arrays are never null.
func schemaFor[T any](input bool) *jsonschema.Schema {
	s, err := jsonschema.For[T](mcpSchemas)
	if err != nil {
		panic(err) // the types are this package's; its tests build every schema
	}
	dropNull(s, input)
	return s
}

// dropNull removes null from the types the schema allows where the API
// never sends or takes it: everywhere in arguments, for arrays in bodies.
func dropNull(s *jsonschema.Schema, all bool) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" && (all || s.Types[1] == "array") {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		dropNull(p, all)
	}
	dropNull(s.Items, all)
}
