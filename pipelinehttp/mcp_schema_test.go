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

// mcpOperations are the API operations of the tools, as the OpenAPI
// document names them.
var mcpOperations = map[pipeline.Op][2]string{
	pipeline.OpGetMe:           {"GET", "/api/v1/me"},
	pipeline.OpListJobs:        {"GET", "/api/v1/jobs"},
	pipeline.OpGetJob:          {"GET", "/api/v1/jobs/{job}"},
	pipeline.OpCreateJob:       {"POST", "/api/v1/jobs"},
	pipeline.OpUpdateJob:       {"PATCH", "/api/v1/jobs/{job}"},
	pipeline.OpListStages:      {"GET", "/api/v1/jobs/{job}/stages"},
	pipeline.OpListCandidates:  {"GET", "/api/v1/jobs/{job}/candidates"},
	pipeline.OpGetCandidate:    {"GET", "/api/v1/jobs/{job}/candidates/{candidate}"},
	pipeline.OpAddCandidate:    {"POST", "/api/v1/jobs/{job}/candidates"},
	pipeline.OpUpdateCandidate: {"PATCH", "/api/v1/jobs/{job}/candidates/{candidate}"},
	pipeline.OpMoveCandidate:   {"POST", "/api/v1/jobs/{job}/candidates/{candidate}/stage"},
	pipeline.OpAddNote:         {"POST", "/api/v1/jobs/{job}/candidates/{candidate}/notes"},
	pipeline.OpListNotes:       {"GET", "/api/v1/jobs/{job}/candidates/{candidate}/notes"},
	pipeline.OpRateCandidate:   {"POST", "/api/v1/jobs/{job}/candidates/{candidate}/rating"},
	pipeline.OpListActivity:    {"GET", "/api/v1/activity"},

	pipeline.OpSendMessage:         {"POST", "/api/v1/jobs/{job}/candidates/{candidate}/messages"},
	pipeline.OpListMessages:        {"GET", "/api/v1/jobs/{job}/candidates/{candidate}/messages"},
	pipeline.OpGetMessage:          {"GET", "/api/v1/jobs/{job}/candidates/{candidate}/messages/{message}"},
	pipeline.OpCancelMessage:       {"POST", "/api/v1/jobs/{job}/candidates/{candidate}/messages/{message}/cancel"},
	pipeline.OpScheduleInterview:   {"POST", "/api/v1/jobs/{job}/candidates/{candidate}/interviews"},
	pipeline.OpListInterviews:      {"GET", "/api/v1/jobs/{job}/candidates/{candidate}/interviews"},
	pipeline.OpGetInterview:        {"GET", "/api/v1/jobs/{job}/candidates/{candidate}/interviews/{interview}"},
	pipeline.OpRescheduleInterview: {"PATCH", "/api/v1/jobs/{job}/candidates/{candidate}/interviews/{interview}"},
	pipeline.OpCancelInterview:     {"POST", "/api/v1/jobs/{job}/candidates/{candidate}/interviews/{interview}/cancel"},
	pipeline.OpGetAvailability:     {"GET", "/api/v1/availability"},
	pipeline.OpExportPerson:        {"POST", "/api/v1/privacy/exports"},
	pipeline.OpErasePerson:         {"POST", "/api/v1/privacy/erasures"},
}

// argumentNames are the MCP names of the API's path and header parameters.
var argumentNames = map[string]string{"job": "job_id", "candidate": "candidate_id", "message": "message_id", "interview": "interview_id", IdempotencyKeyHeader: argKey}

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

// TestMCP_OutputSchemas: a tool's output schema has the shape of its API
// operation's success body: the same properties at every level, of the
// same types.
func TestMCP_OutputSchemas(t *testing.T) {
	ct, err := loadContract()
	require.NoError(t, err)
	for _, tool := range (&api{}).mcpTools() {
		t.Run(tool.tool.Name, func(t *testing.T) {
			where := mcpOperations[pipeline.Op(tool.tool.Name)]
			op := ct.doc.Paths.Find(where[1]).GetOperation(where[0])
			var body *openapi3.Schema
			for _, status := range []int{200, 201, 202} {
				if r := op.Responses.Status(status); r != nil {
					body = r.Value.Content.Get("application/json").Schema.Value
				}
			}
			require.NotNil(t, body)
			out := tool.tool.OutputSchema.(*jsonschema.Schema)
			assert.Equal(t, openapiShape(body), mcpShape(out))
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
