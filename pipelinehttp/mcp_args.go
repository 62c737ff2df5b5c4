package pipelinehttp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"runtime/debug"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The arguments of the tools are the API's parameters: the path's {job}
// and {candidate} as job_id and candidate_id, the query parameters and the
// body fields under their own names, and a write's Idempotency-Key header
// as idempotency_key. Their types carry the API's limits into the schemas
// generated from them (mcpSchemas).
type (
	recordID        int64  // a positive id
	pageNumber      int    // a page, from 1
	titleText       string // a job's title
	descriptionText string // a job's description
	noteText        string // a note's content
	idempotencyKey  string // 1–255 printable ASCII characters
	feedCursor      string // a feed cursor, never empty
	feedLimit       int    // entries of a feed page, 1–100
	activityAction  string // an action of the feed
)

// Argument names that are not body fields or query parameters.
const (
	argJob       = "job_id"
	argCandidate = "candidate_id"
	argKey       = "idempotency_key"
)

// jobArgs and candidateArgs name the records of a path.
type jobArgs struct {
	JobID recordID `json:"job_id" jsonschema:"Id of a job the token can reach."`
}

type candidateArgs struct {
	JobID       recordID `json:"job_id" jsonschema:"Id of a job the token can reach."`
	CandidateID recordID `json:"candidate_id" jsonschema:"Id of a candidate of that job."`
}

// keyArgs is the idempotency key every write takes.
type keyArgs struct {
	IdempotencyKey *idempotencyKey `json:"idempotency_key,omitempty" jsonschema:"Optional key naming this action (a UUID per distinct action is advised). Repeating the write with the same key within 24 hours returns the first result instead of acting again; it is the same key as the API's Idempotency-Key header."`
}

// toolCall is one call of a tool: its operation, the records its
// arguments name and the arguments themselves.
type toolCall struct {
	a    *api
	op   pipeline.Op
	ref  pipeline.Ref
	path string // the API path of the same request, from /api/v1
	args map[string]json.RawMessage
	bad  pipeline.FieldErrors // arguments that are not an object
}

// newToolCall reads the arguments of a call. job_id and candidate_id are
// read as the API reads a path id: anything but a positive integer is 0,
// which names no record, so the Service answers not_found in its turn.
func newToolCall(a *api, op pipeline.Op, raw json.RawMessage) *toolCall {
	x := &toolCall{a: a, op: op, bad: pipeline.FieldErrors{}}
	if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		raw = []byte("{}")
	}
	if err := json.Unmarshal(raw, &x.args); err != nil || x.args == nil {
		x.args = map[string]json.RawMessage{}
		x.bad.Add("arguments", "The arguments must be a JSON object.")
	}
	x.ref = pipeline.Ref{Job: x.id(argJob), Candidate: x.id(argCandidate)}
	return x
}

func (x *toolCall) id(name string) int64 {
	var n int64
	if raw, ok := x.args[name]; ok && json.Unmarshal(integral(raw), &n) == nil && n > 0 {
		return n
	}
	return 0
}

// read decodes the query parameters of a read into args, a pointer to the
// tool's argument struct. When one cannot be read it returns the Service's
// verdict on the call (Reject), merged with validate's view of the
// arguments that were read, as the API's handlers do.
func (x *toolCall) read(ctx context.Context, args any, validate func() error) error {
	bad := x.decode(args)
	_, takes := argFields(args)
	for name, msg := range queryMessages {
		if _, ok := bad[name]; ok && takes[name] {
			bad[name] = []string{msg}
		}
	}
	if len(bad) > 0 {
		return x.a.svc.Reject(ctx, x.op, x.ref, nil, x.verdict(bad, validate))
	}
	return nil
}

// queryMessages are the API's messages for query parameters it cannot
// read, which a read's arguments share.
var queryMessages = map[string]string{"page": msgQueryPage, "stage": msgQueryStage, "status": msgQueryStatus, "limit": msgQueryLimit}

// write decodes the body fields of a write into args, as read does, and
// returns the call's idempotency: its key bound to the request the API
// would have received, method and path with the other arguments as the
// body, so that a key is one key through both faces.
func (x *toolCall) write(ctx context.Context, method string, args any, validate func() error) (*pipeline.Idempotency, error) {
	bad := x.decode(args)
	var idem *pipeline.Idempotency
	if v, ok := x.args[argKey]; ok {
		var key string
		if json.Unmarshal(v, &key) != nil {
			bad.Add(argKey, "The idempotency_key field must be a string.")
		} else {
			raw, err := json.Marshal(x.body())
			if err != nil {
				return nil, err
			}
			idem = &pipeline.Idempotency{Key: key, Request: requestFingerprint(method, "/api/v1"+x.path, raw)}
		}
	}
	if len(bad) > 0 {
		return nil, x.a.svc.Reject(ctx, x.op, x.ref, idem, x.verdict(bad, validate))
	}
	return idem, nil
}

// body is the arguments but the path ids and the key: the query of a read,
// the body of a write.
func (x *toolCall) body() map[string]json.RawMessage {
	obj := map[string]json.RawMessage{}
	for name, v := range x.args {
		if name != argJob && name != argCandidate && name != argKey {
			obj[name] = v
		}
	}
	return obj
}

// decode reads the arguments into args, as the API reads a body: an
// argument the tool does not take, or one of the wrong JSON type, is named
// in the result. The path ids and the key are read elsewhere.
func (x *toolCall) decode(args any) pipeline.FieldErrors {
	if len(x.bad) > 0 {
		return x.bad
	}
	fields, names := argFields(args)
	raw, err := json.Marshal(x.body())
	if err != nil {
		return pipeline.FieldErrors{"arguments": {"The arguments must be a JSON object."}}
	}
	bad := decodeBody(raw, fields...)
	if bad == nil {
		bad = pipeline.FieldErrors{}
	}
	for _, name := range []string{argJob, argCandidate, argKey} {
		if _, sent := x.args[name]; sent && !names[name] {
			bad.Add(name, "The "+name+" field is not allowed.")
		}
	}
	return bad
}

// verdict is the validation error of arguments that could not all be read:
// bad merged with what validate finds wrong with those that were, unless
// the arguments were no object at all.
func (x *toolCall) verdict(bad pipeline.FieldErrors, validate func() error) error {
	if len(x.bad) > 0 {
		return x.bad.Err()
	}
	return merged(bad, validate())
}

// argFields are the fields of an argument struct (a pointer to it) that
// decodeBody reads: every argument but the path ids and the key.
func argFields(args any) ([]field, map[string]bool) {
	v := reflect.ValueOf(args).Elem()
	var fields []field
	names := map[string]bool{}
	for _, sf := range reflect.VisibleFields(v.Type()) {
		if sf.Anonymous || !sf.IsExported() {
			continue
		}
		name, _, _ := bytes.Cut([]byte(sf.Tag.Get("json")), []byte(","))
		n := string(name)
		names[n] = true
		if n == argJob || n == argCandidate || n == argKey {
			continue
		}
		fields = append(fields, argField(n, v.FieldByIndex(sf.Index)))
	}
	return fields, names
}

// argField is the field of the argument v: text (a string, or a pointer
// to one) read exactly as sent, as the API reads a body's strings, so that
// the domain judges the text that came; any other value with
// encoding/json.
func argField(name string, v reflect.Value) field {
	t := v.Type()
	if t.Kind() == reflect.String || t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.String {
		return field{name: name, kind: "a string", decode: func(raw []byte) bool {
			s, ok := jsonText(raw)
			if !ok {
				return false
			}
			if t.Kind() == reflect.String {
				v.Set(reflect.ValueOf(s).Convert(t))
				return true
			}
			p := reflect.New(t.Elem())
			p.Elem().Set(reflect.ValueOf(s).Convert(t.Elem()))
			v.Set(p)
			return true
		}}
	}
	return valueField(name, jsonKind(t), v.Addr().Interface())
}

// jsonKind names the JSON type of an argument of type t, for messages.
func jsonKind(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(jsonKind(t.Elem()), "a "), "an ") + "s"
	case reflect.Bool:
		return "a boolean"
	}
	return "an integer"
}

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

// mcpSchemas are the schemas of the argument and body types whose limits
// the API documents: the types carry them into every schema generated from
// a struct that holds them.
var mcpSchemas = func() *jsonschema.ForOptions {
	enum := func(values ...string) *jsonschema.Schema {
		s := &jsonschema.Schema{Type: "string"}
		for _, v := range values {
			s.Enum = append(s.Enum, v)
		}
		return s
	}
	text := func(minLen, maxLen int, pattern string) *jsonschema.Schema {
		s := &jsonschema.Schema{Type: "string", Pattern: pattern}
		if maxLen > 0 {
			s.MaxLength = jsonschema.Ptr(maxLen)
		}
		if minLen > 0 {
			s.MinLength = jsonschema.Ptr(minLen)
		}
		return s
	}
	var scopes []string
	for _, s := range pipeline.AllScopes {
		scopes = append(scopes, string(s))
	}
	return &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[recordID]():             {Type: "integer", Minimum: jsonschema.Ptr(1.0)},
		reflect.TypeFor[pageNumber]():           {Type: "integer", Minimum: jsonschema.Ptr(1.0)},
		reflect.TypeFor[titleText]():            text(1, pipeline.MaxTitleLength, `\S`),
		reflect.TypeFor[descriptionText]():      text(0, pipeline.MaxDescriptionLength, ""),
		reflect.TypeFor[noteText]():             text(1, pipeline.MaxNoteLength, `\S`),
		reflect.TypeFor[idempotencyKey]():       text(1, 255, `^[ -~]+$`),
		reflect.TypeFor[pipeline.JobStatus]():   enum(string(pipeline.JobOpen), string(pipeline.JobDraft), string(pipeline.JobClosed)),
		reflect.TypeFor[pipeline.RatingValue](): enum(string(pipeline.GoodFit), string(pipeline.Maybe), string(pipeline.NotAFit)),
		reflect.TypeFor[pipeline.Scope]():       enum(scopes...),
		reflect.TypeFor[feedCursor]():           text(1, 0, ""),
		reflect.TypeFor[feedLimit]():            {Type: "integer", Minimum: jsonschema.Ptr(1.0), Maximum: jsonschema.Ptr(float64(pipeline.MaxFeedLimit))},
		reflect.TypeFor[activityAction]():       enum(pipeline.Actions...),
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
