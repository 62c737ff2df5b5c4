package pipelinehttp

import (
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// mcpOperations are the operations that are tools, each with its API
// request as the document names it.
var mcpOperations = func() map[pipeline.Op][2]string {
	m := map[pipeline.Op][2]string{}
	for _, o := range operations {
		if o.tool != nil {
			m[o.op] = [2]string{o.method, "/api/v1" + o.path}
		}
	}
	return m
}()

// argumentNames are the MCP names of the API's path and header parameters:
// a record's id {name} is name_id.
var argumentNames = func() map[string]string {
	names := map[string]string{IdempotencyKeyHeader: argKey}
	for _, id := range (&pipeline.Ref{}).IDs() {
		names[id.Name] = id.Name + "_id"
	}
	return names
}()

// limits are the keywords of a schema that say what a value may be.
type limits struct {
	Type      []string `json:"type,omitempty"`
	Enum      []any    `json:"enum,omitempty"`
	MinLength *uint64  `json:"minLength,omitempty"`
	MaxLength *uint64  `json:"maxLength,omitempty"`
	Pattern   string   `json:"pattern,omitempty"`
	Minimum   *float64 `json:"minimum,omitempty"`
	Maximum   *float64 `json:"maximum,omitempty"`
}

func openapiLimits(s *openapi3.Schema) limits {
	l := limits{Enum: s.Enum, MaxLength: s.MaxLength, Pattern: s.Pattern, Minimum: s.Min, Maximum: s.Max}
	if s.Type != nil {
		l.Type = slices.Sorted(slices.Values(*s.Type))
	}
	if s.MinLength > 0 {
		l.MinLength = &s.MinLength
	}
	return l
}

func mcpLimits(t *testing.T, s *jsonschema.Schema) limits {
	t.Helper()
	l := limits{Enum: s.Enum, Pattern: s.Pattern, Minimum: s.Minimum, Maximum: s.Maximum}
	l.Type = s.Types
	if s.Type != "" {
		l.Type = []string{s.Type}
	}
	slices.Sort(l.Type)
	conv := func(p *int) *uint64 {
		if p == nil {
			return nil
		}
		v := uint64(*p)
		return &v
	}
	l.MinLength, l.MaxLength = conv(s.MinLength), conv(s.MaxLength)
	return l
}

// apiArguments are the parameters and body fields of an API operation, as
// MCP names them, and those that are required.
func apiArguments(item *openapi3.PathItem, op *openapi3.Operation) (map[string]*openapi3.Schema, []string) {
	params, required := documented(item, op)
	args := map[string]*openapi3.Schema{}
	for name, s := range params {
		if n, ok := argumentNames[name]; ok {
			name = n
		}
		args[name] = s
	}
	for i, name := range required {
		if n, ok := argumentNames[name]; ok {
			required[i] = n
		}
	}
	slices.Sort(required)
	return args, required
}

// TestMCP_InputSchemas: a tool's arguments are its API operation's path,
// query and header parameters and body fields, under the API's names (the
// path's as job_id and candidate_id, Idempotency-Key as idempotency_key),
// with the API's types, enums and limits.
func TestMCP_InputSchemas(t *testing.T) {
	ct, err := loadContract()
	require.NoError(t, err)
	tools := (&api{}).mcpTools()
	require.Len(t, tools, len(mcpOperations))
	for _, tool := range tools {
		t.Run(tool.tool.Name, func(t *testing.T) {
			where := mcpOperations[pipeline.Op(tool.tool.Name)]
			item := ct.doc.Paths.Find(where[1])
			op := item.GetOperation(where[0])
			require.NotNil(t, op, "%s %s", where[0], where[1])
			want, required := apiArguments(item, op)
			in := tool.tool.InputSchema.(*jsonschema.Schema)
			assert.Equal(t, "object", in.Type)
			assert.Equal(t, mapsKeys(want), mapsKeys(in.Properties))
			got := slices.Clone(in.Required)
			slices.Sort(got)
			assert.Equal(t, required, nilIfNone(got), "required")
			for name, s := range want {
				if p := in.Properties[name]; p != nil {
					wantLimits := openapiLimits(s)
					if name == "search" {
						wantLimits.Type = []string{"string"}
					}
					assert.Equal(t, wantLimits, mcpLimits(t, p), name)
					assert.NotEmpty(t, p.Description, "%s is described", name)
				}
			}
		})
	}
}

// shape is a schema's types and, for objects and arrays, the shapes of
// what they hold.
func openapiShape(s *openapi3.Schema) any {
	types := []string{}
	if s.Type != nil {
		types = slices.Sorted(slices.Values(*s.Type))
	}
	m := map[string]any{"type": strings.Join(types, ",")}
	for name, p := range s.Properties {
		m[name] = openapiShape(p.Value)
	}
	if s.Items != nil {
		m["items"] = openapiShape(s.Items.Value)
	}
	return m
}

func mcpShape(s *jsonschema.Schema) any {
	types := slices.Clone(s.Types)
	if s.Type != "" {
		types = []string{s.Type}
	}
	slices.Sort(types)
	m := map[string]any{"type": strings.Join(types, ",")}
	for name, p := range s.Properties {
		m[name] = mcpShape(p)
	}
	if s.Items != nil {
		m["items"] = mcpShape(s.Items)
	}
	return m
}

func mapsKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func nilIfNone(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}
