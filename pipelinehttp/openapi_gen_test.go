package pipelinehttp

import (
	"bytes"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

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
	docs, err := readFieldDocs("..")
	if err != nil {
		t.Fatal(err)
	}
	got, err := generateOpenAPI(overlay, docs)
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
// omitempty) required: the records' schemas, generated from their types'
// fields and tags, say what the MCP face's output schemas say.
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
// a summary, a description and a tag, from its declaration (pipeline.Doc)
// or its tool's words, as the linters require.
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

// TestOpenAPI_UnionsDiscriminated: every oneOf of objects in the document
// names the property that tells its branches apart: each branch requires
// it as a string const, and the discriminator's mapping sends each const
// to its branch. A generator need not guess from the fields (ogen v1.24
// refuses a union of two objects that only their fields tell apart).
func TestOpenAPI_UnionsDiscriminated(t *testing.T) {
	ct, err := loadContract()
	require.NoError(t, err)
	seen := map[*openapi3.Schema]bool{}
	unions := 0
	var walk func(at string, ref *openapi3.SchemaRef)
	walk = func(at string, ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		if objects := slices.IndexFunc(s.OneOf, func(b *openapi3.SchemaRef) bool { return !b.Value.Type.Is("object") }) < 0; objects && len(s.OneOf) > 1 {
			unions++
			checkDiscriminated(t, at, s)
		}
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			walk(at+"."+name, s.Properties[name])
		}
		walk(at+"[]", s.Items)
		for i, b := range slices.Concat(s.OneOf, s.AnyOf, s.AllOf) {
			walk(at+"|"+strconv.Itoa(i), b)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(ct.doc.Components.Schemas)) {
		walk(name, ct.doc.Components.Schemas[name])
	}
	for path, item := range ct.doc.Paths.Map() {
		for method, op := range item.Operations() {
			for status, r := range op.Responses.Map() {
				for media, c := range r.Value.Content {
					walk(method+" "+path+" "+status+" "+media, c.Schema)
				}
			}
		}
	}
	assert.Greater(t, unions, 1, "the walk found the document's unions")
}

// checkDiscriminated fails t unless the oneOf s at at is discriminated as
// TestOpenAPI_UnionsDiscriminated requires.
func checkDiscriminated(t *testing.T, at string, s *openapi3.Schema) {
	t.Helper()
	d := s.Discriminator
	if !assert.NotNil(t, d, "%s: a oneOf of objects without a discriminator", at) {
		return
	}
	mapped := map[string]string{}
	for value, ref := range d.Mapping {
		mapped[ref.Ref] = value
	}
	assert.Len(t, d.Mapping, len(s.OneOf), "%s: the mapping names each branch once", at)
	for _, b := range s.OneOf {
		assert.Contains(t, b.Value.Required, d.PropertyName, "%s: %s does not require %s", at, b.Ref, d.PropertyName)
		p := b.Value.Properties[d.PropertyName]
		if !assert.NotNil(t, p, "%s: %s has no %s", at, b.Ref, d.PropertyName) {
			continue
		}
		assert.True(t, p.Value.Type.Is("string"), "%s: %s.%s is not a string", at, b.Ref, d.PropertyName)
		assert.Equal(t, mapped[b.Ref], p.Value.Const, "%s: the mapping's value for %s is not its %s const", at, b.Ref, d.PropertyName)
	}
}

// TestOpenAPI_RecordSchema: a record's schema says what its fields' Go
// types, json tags, schema tags and doc comments say.
func TestOpenAPI_RecordSchema(t *testing.T) {
	type sample struct {
		ID      int64              `json:"id" schema:"ref: Id"`
		Name    string             `json:"name,omitempty"`
		Always  string             `json:"always,omitempty" schema:"required: true, minLength: 1"`
		At      *string            `json:"at" schema:"format: date-time"`
		Events  []string           `json:"events" schema:"uniqueItems: true, items: {ref: Action}"`
		Status  pipeline.JobStatus `json:"status"`
		Author  pipeline.Named     `json:"author"`
		Skipped string             `json:"-"`
	}
	g := &docGen{shared: sharedSchemas(), schemas: mapping(),
		docs: fieldDocs{docKey(reflect.TypeFor[sample](), "Name"): "Its name."}}
	s, err := g.typeSchema(reflect.TypeFor[sample](), true)
	require.NoError(t, err)
	var got map[string]any
	out, err := yaml.Marshal(s)
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(out, &got))
	assert.Equal(t, map[string]any{
		"type": "object", "additionalProperties": false,
		"required": []any{"id", "always", "at", "events", "status", "author"},
		"properties": map[string]any{
			"id":     map[string]any{"$ref": "#/components/schemas/Id"},
			"name":   map[string]any{"description": "Its name.", "type": "string"},
			"always": map[string]any{"type": "string", "minLength": 1},
			"at":     map[string]any{"type": []any{"string", "null"}, "format": "date-time"},
			"events": map[string]any{"type": "array", "uniqueItems": true, "items": map[string]any{"$ref": "#/components/schemas/Action"}},
			"status": map[string]any{"$ref": "#/components/schemas/JobStatus"},
			"author": map[string]any{"type": "object", "additionalProperties": false, "required": []any{"id", "name"},
				"properties": map[string]any{"id": map[string]any{"$ref": "#/components/schemas/Id"}, "name": map[string]any{"type": "string"}}},
		},
	}, got)

	_, err = g.typeSchema(reflect.TypeFor[struct {
		Bad string `json:"bad" schema:"minLength: [1"`
	}](), true)
	assert.ErrorContains(t, err, "schema tag")
}

// TestOpenAPI_Wrap: prose is wrapped into lines Markdown reads as the same
// paragraphs, none of which opens a list, a quote or a heading.
func TestOpenAPI_Wrap(t *testing.T) {
	long := strings.Repeat("word ", 20) + "- 1. > # 2) end"
	for _, line := range strings.Split(wrap(long+"\n\n"+long), "\n") {
		assert.LessOrEqual(t, len(line), 80, "%q", line)
		for _, opens := range []string{"- ", "1. ", "> ", "# ", "2) "} {
			assert.False(t, strings.HasPrefix(line, opens), "%q", line)
		}
	}
	assert.Equal(t, "a b\n\nc", wrap("a\nb\n\nc"))
}
