package pipelinehttp

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"

	"github.com/gin-gonic/gin"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// operation is one operation of the API as the faces read it: its domain
// operation with its route, its prose (and whether it is a tool), its
// parameters, its success answer, and what serves it, made by newOperation
// from an opSpec. The table knows no face: the REST routes (rest.go), the
// MCP tools (mcp_tools.go) and the document (openapi_gen.go) each read it.
type operation struct {
	op     pipeline.Op
	method string
	path   string          // below /api/v1, path parameters as {job}
	tool   *pipeline.Words // nil: not a tool
	params []paramInfo
	output func() *jsonschema.Schema // the tool result's schema: the success body's, or a proposal
	record func() *jsonschema.Schema // the success body's schema
	input  reflect.Type              // the domain input's type
	// status, creates and body are the success answer, for the
	// document: its HTTP status, whether it has a Location, its Go type.
	status  int
	creates bool
	body    reflect.Type
	// reads is how the HTTP body is read.
	reads bodyKind
	// describe says a proposal of the operation in words (see opSpec).
	describe describeFunc
	// faces serves the operation: each face implements its method in a
	// file of its own (rest.go, mcp_tools.go).
	faces faces
}

// faces are what each face does with an operation's declaration, its
// types kept: REST serves its route, MCP calls it as a tool.
type faces interface {
	serveREST(a *api, c *gin.Context)
	callTool(ctx context.Context, a *api, args json.RawMessage) (body any, replayed bool, err error)
}

// paramInfo is what is declared of a parameter, its type erased.
type paramInfo struct {
	name, arg string
	place     place
	required  bool
	schema    *jsonschema.Schema
}

// opSpec declares an operation whose input fills In and whose success body
// is Out: its domain operation (which has the scope, the method and the
// path), its parameters, the Service call and how the result renders.
type opSpec[In, Out any] struct {
	op     pipeline.Op
	params []param[In]
	// afterRead adjusts the input once every parameter is read, where one
	// parameter voids another (a feed's since after a cursor).
	afterRead func(*input[In])
	// call calls the Service with the input (in.domain(), which carries
	// the key and what could not be read) and renders its result; it
	// reports whether the result replays an idempotency key's.
	call func(ctx context.Context, svc *pipeline.Service, in *input[In]) (Out, bool, error)
	// created is the id of the record a write created, for HTTP's
	// Location; nil when it creates none.
	created func(Out) int64
	// body is how the HTTP body is read: JSON unless it says otherwise.
	body bodyKind
	// describe says a proposal of the operation in words on the
	// approvals page (approval_text.go), declared here for an operation
	// no describer of that file knows; nil: the page shows its request.
	describe describeFunc
}

// describeFunc says the proposal p in words, into out, as the describer's
// reader.
type describeFunc func(d *describer, p pipeline.Proposal, out *description) error

func newOperation[In, Out any](spec opSpec[In, Out]) operation {
	if spec.op.Writes() {
		// Every write takes a reason, its body's as much as its own fields.
		if f, ok := reflect.TypeFor[In]().FieldByName("Reason"); !ok || f.Type != reflect.TypeFor[*string]() {
			panic("pipelinehttp: the input of " + string(spec.op) + " has no Reason")
		}
		if !hasParam(spec.params, pipeline.ReasonField) {
			spec.params = append(slices.Clip(spec.params), reasonParam[In]())
		}
	}
	o := operation{op: spec.op, method: spec.op.Method(), path: spec.op.Path(),
		output: func() *jsonschema.Schema { return outputSchema[Out](spec.op) },
		record: func() *jsonschema.Schema { return schemaFor[Out](false) },
		input:  reflect.TypeFor[In](),
		status: spec.op.Status(), creates: spec.created != nil, body: reflect.TypeFor[Out](), reads: spec.body,
		describe: spec.describe}
	for _, p := range spec.params {
		o.params = append(o.params, paramInfo{name: p.name, arg: p.argName(), place: p.place, required: p.required, schema: p.schema})
	}
	if w, ok := spec.op.Tool(); ok {
		o.tool = &w
	}
	o.faces = spec
	return o
}

// run calls the operation with its input. What could not be read of an
// input that does not carry it to the domain itself is answered by
// pipeline.ResolveUnread.
func (spec opSpec[In, Out]) run(ctx context.Context, svc *pipeline.Service, in *input[In]) (Out, bool, error) {
	if spec.afterRead != nil {
		spec.afterRead(in)
	}
	out, replayed, err := spec.call(ctx, svc, in)
	out, err = pipeline.ResolveUnread(in.problems(), in.idUnread, out, err)
	return out, replayed, err
}
