package pipelinehttp

import (
	"bytes"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

var updateOpenAPI = flag.Bool("update", false, "write openapi.yaml from the table of operations and openapi/overlay.yaml")

// overlayPath is the hand-written part of the document.
var overlayPath = filepath.Join("openapi", "overlay.yaml")

// TestOpenAPI_Generated: the committed openapi.yaml is what the table of
// operations and the overlay make; -update writes it.
func TestOpenAPI_Generated(t *testing.T) {
	overlay, err := os.ReadFile(overlayPath)
	if err != nil {
		t.Fatal(err)
	}
	got, err := generateOpenAPI(overlay)
	if err != nil {
		t.Fatal(err)
	}
	if *updateOpenAPI {
		if err := os.WriteFile("openapi.yaml", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(got, openapiYAML) {
		t.Fatalf("openapi.yaml differs from what the table of operations and %s make (%s); run:\n"+
			"\tgo test ./pipelinehttp -run TestOpenAPI_Generated -update\nand commit it", overlayPath, firstDiff(openapiYAML, got))
	}
}

// firstDiff names the first line where the committed and generated
// documents differ.
func firstDiff(committed, generated []byte) string {
	a, b := bytes.Split(committed, []byte("\n")), bytes.Split(generated, []byte("\n"))
	for i := range min(len(a), len(b)) {
		if !bytes.Equal(a[i], b[i]) {
			return "line " + strconv.Itoa(i+1) + ": committed " + string(a[i]) + ", generated " + string(b[i])
		}
	}
	return "one is longer"
}

// TestOpenAPI_BodiesMatchGoTypes: the success body of every operation has
// in the document the shape of its Go type: the same properties at every
// level, of the same types, and every field the type always sends (no
// omitempty) required. The records' schemas are hand-written in the
// overlay; this keeps them to the code.
func TestOpenAPI_BodiesMatchGoTypes(t *testing.T) {
	ct, err := loadContract()
	require.NoError(t, err)
	for _, o := range operations {
		t.Run(string(o.op), func(t *testing.T) {
			r := ct.doc.Paths.Find("/api/v1" + o.path).GetOperation(o.method).Responses.Status(o.status)
			require.NotNil(t, r)
			media := r.Value.Content.Get("application/json")
			if media == nil {
				return // no body, or not JSON (an invitation's iCalendar text)
			}
			doc := media.Schema.Value
			if data := doc.Properties["data"]; data != nil && len(data.Value.OneOf) == 2 {
				// The record, or the proposal of a held write.
				held := *doc
				held.Properties = maps.Clone(doc.Properties)
				held.Properties["data"] = data.Value.OneOf[0]
				doc = &held
			}
			assert.Equal(t, openapiShape(doc), mcpShape(o.record()))
			assert.Empty(t, unrequired(doc, o.record(), "body"))
		})
	}
	body := ct.doc.Paths.Find("/api/v1/jobs/{job}").GetOperation("GET").Responses.Status(200).Value.Content.Get("application/json").Schema.Value
	t.Run("a field the document lacks", func(t *testing.T) {
		out := schemaFor[data[struct {
			pipeline.JobRecord
			TeamID int64 `json:"team_id"`
		}]](false)
		assert.NotEqual(t, openapiShape(body), mcpShape(out))
	})
	t.Run("a field the document does not require", func(t *testing.T) {
		out := schemaFor[data[pipeline.JobRecord]](false)
		out.Properties["data"].Required = append(out.Properties["data"].Required, "title", "team_id")
		assert.Equal(t, []string{"body.data.team_id"}, unrequired(body, out, "body"))
	})
}

// unrequired lists the properties that the Go type's schema requires and
// the document's does not, at any level.
func unrequired(doc *openapi3.Schema, declared *jsonschema.Schema, at string) []string {
	var out []string
	for _, name := range declared.Required {
		if !slices.Contains(doc.Required, name) {
			out = append(out, at+"."+name)
		}
	}
	for name, p := range declared.Properties {
		if d := doc.Properties[name]; d != nil {
			out = append(out, unrequired(d.Value, p, at+"."+name)...)
		}
	}
	if declared.Items != nil && doc.Items != nil {
		out = append(out, unrequired(doc.Items.Value, declared.Items, at+"[]")...)
	}
	return out
}

// TestOpenAPI_EveryOperationDescribed: every operation of the document has
// a summary, a description and a tag, from its tool's prose or the
// overlay, as the linters require.
func TestOpenAPI_EveryOperationDescribed(t *testing.T) {
	ct, err := loadContract()
	require.NoError(t, err)
	for _, o := range operations {
		op := ct.doc.Paths.Find("/api/v1" + o.path).GetOperation(o.method)
		require.NotNil(t, op, "%s %s", o.method, o.path)
		assert.NotEmpty(t, op.Summary, "%s: summary", o.op)
		assert.NotEmpty(t, op.Description, "%s: description", o.op)
		assert.NotEmpty(t, op.Tags, "%s: tags", o.op)
	}
}
