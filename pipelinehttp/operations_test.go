package pipelinehttp

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// documented is what the document declares of an operation's input: its
// parameters and body fields by the API's names, and those required.
func documented(item *openapi3.PathItem, op *openapi3.Operation) (map[string]*openapi3.Schema, []string) {
	params := map[string]*openapi3.Schema{}
	var required []string
	for _, p := range append(slices.Clone(item.Parameters), op.Parameters...) {
		if p.Value.In == "header" && p.Value.Name != IdempotencyKeyHeader {
			continue
		}
		params[p.Value.Name] = p.Value.Schema.Value
		if p.Value.Required {
			required = append(required, p.Value.Name)
		}
	}
	if op.RequestBody != nil {
		body := op.RequestBody.Value.Content.Get("application/json").Schema.Value
		for name, s := range body.Properties {
			params[name] = s.Value
		}
		required = append(required, body.Required...)
	}
	slices.Sort(required)
	return params, required
}

// declared is what the table declares of an operation's input, alike.
func declared(o operation) (map[string]*jsonschema.Schema, []string) {
	params := map[string]*jsonschema.Schema{}
	var required []string
	for _, p := range o.params {
		params[p.name] = p.schema
		if p.required {
			required = append(required, p.name)
		}
	}
	if o.op.Writes() {
		params[IdempotencyKeyHeader] = keySchema
	}
	slices.Sort(required)
	return params, required
}

// TestOperations_Document: the table and the OpenAPI document declare the
// same operations, each with the same parameters and body fields, of the
// same types and limits, the same of them required.
func TestOperations_Document(t *testing.T) {
	ct, err := loadContract()
	require.NoError(t, err)
	inTable := map[string]bool{}
	for _, o := range operations {
		where := o.method + " /api/v1" + o.path
		inTable[where] = true
		t.Run(where, func(t *testing.T) {
			item := ct.doc.Paths.Find("/api/v1" + o.path)
			require.NotNil(t, item, "the path is documented")
			op := item.GetOperation(o.method)
			require.NotNil(t, op, "the method is documented")
			want, wantRequired := documented(item, op)
			got, gotRequired := declared(o)
			assert.Equal(t, mapsKeys(want), mapsKeys(got))
			assert.Equal(t, nilIfNone(wantRequired), nilIfNone(gotRequired), "required")
			for name, s := range want {
				if p := got[name]; p != nil {
					assert.Equal(t, documentedLimits(s), declaredLimits(t, p), name)
				}
			}
		})
	}
	for path, item := range ct.doc.Paths.Map() {
		for method := range item.Operations() {
			where := method + " " + path
			if strings.HasPrefix(path, "/api/v1/") && where != http.MethodGet+" /api/v1/openapi.json" {
				assert.True(t, inTable[where], "%s is in the table", where)
			}
		}
	}
}

// documentedLimits and declaredLimits are a schema's limits and, for an
// array, its items'.
func documentedLimits(s *openapi3.Schema) []limits {
	l := []limits{openapiLimits(s)}
	if s.Items != nil {
		l = append(l, openapiLimits(s.Items.Value))
	}
	return l
}

func declaredLimits(t *testing.T, s *jsonschema.Schema) []limits {
	l := []limits{mcpLimits(t, s)}
	if s.Items != nil {
		l = append(l, mcpLimits(t, s.Items))
	}
	return l
}
