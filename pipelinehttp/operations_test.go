package pipelinehttp

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
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

// TestOpenAPI_OperationsAreTheTable: the document's operations below
// /api/v1 are the table's, each under the operation's name as its
// operationId: the overlay can add none of its own.
func TestOpenAPI_OperationsAreTheTable(t *testing.T) {
	ct, err := loadContract()
	require.NoError(t, err)
	want := map[string]string{}
	for _, o := range operations {
		want[o.method+" /api/v1"+o.path] = string(o.op)
		if o.servesHead() {
			want["HEAD /api/v1"+o.path] = "head_" + strings.TrimPrefix(string(o.op), "get_")
		}
	}
	got := map[string]string{}
	for path, item := range ct.doc.Paths.Map() {
		for method, op := range item.Operations() {
			if strings.HasPrefix(path, "/api/v1/") && path != "/api/v1/openapi.json" {
				got[method+" "+path] = op.OperationID
			}
		}
	}
	assert.Equal(t, want, got)
}

// securityMismatch says how op's security differs from needing scope
// ("" any token), "" when it does not.
func securityMismatch(op *openapi3.Operation, scope pipeline.Scope) string {
	want := openapi3.SecurityRequirements{{"bearerAuth": {}}}
	if scope != "" {
		want = openapi3.SecurityRequirements{{"bearerAuth": {string(scope)}}}
	}
	if op.Security == nil || !reflect.DeepEqual(*op.Security, want) {
		return fmt.Sprintf("security is %v, the operation's scope asks for %v", op.Security, want)
	}
	return ""
}

// TestOpenAPI_SecurityIsScope: every operation's security requirement
// names exactly its scope; and the check fails on an operation whose
// document names another.
func TestOpenAPI_SecurityIsScope(t *testing.T) {
	ct, err := loadContract()
	require.NoError(t, err)
	for _, o := range operations {
		op := ct.doc.Paths.Find("/api/v1" + o.path).GetOperation(o.method)
		require.NotNil(t, op, "%s %s", o.method, o.path)
		assert.Empty(t, securityMismatch(op, o.op.Scope()), "%s", o.op)
	}
	t.Run("another scope", func(t *testing.T) {
		o := jobOperations[0]
		require.Equal(t, pipeline.OpListJobs, o.op)
		op := *ct.doc.Paths.Find("/api/v1" + o.path).GetOperation(o.method)
		assert.Empty(t, securityMismatch(&op, pipeline.ScopeJobsRead))
		assert.NotEmpty(t, securityMismatch(&op, pipeline.ScopeJobsWrite))
		assert.NotEmpty(t, securityMismatch(&op, ""))
		op.Security = &openapi3.SecurityRequirements{{"bearerAuth": {"jobs:write"}}}
		assert.NotEmpty(t, securityMismatch(&op, o.op.Scope()))
	})
}
