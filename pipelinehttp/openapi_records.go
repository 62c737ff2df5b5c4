package pipelinehttp

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The records' schemas are generated from their Go types (recordSchema):
// an object of the fields encoding/json writes, in their order, an
// embedded struct's among them; each required unless it is omitempty; a
// pointer nullable; a struct that is itself a record by reference, any
// other inline; a type of a shared enum by reference. A field says the
// rest of its schema in its tag schema, written as the inside of a YAML
// flow mapping of OpenAPI keywords, with two of this generator's own:
// ref names a component (`schema:"ref: Timestamp"`), and required: true
// requires a field omitempty leaves out when empty. Its description is
// its doc comment, read from the source (readFieldDocs).

// record is a record's component: its name, which generated clients
// take for their type's, and what the document says of it.
type record struct {
	name, description string
}

// records are the records of the success bodies (in data and list
// envelopes, or whole bodies), by Go type. Any other body is named after
// its Go type and its schema generated as the MCP face's output schemas
// are (docGen.record).
var records = map[reflect.Type]record{
	reflect.TypeFor[identity]():                  {"Identity", ""},
	reflect.TypeFor[pipeline.JobSummary]():       {"JobSummary", "A job as listed."},
	reflect.TypeFor[pipeline.JobRecord]():        {"Job", "A job in full."},
	reflect.TypeFor[stageItem]():                 {"Stage", ""},
	reflect.TypeFor[pipeline.CandidateSummary](): {"CandidateSummary", "A candidate as listed."},
	reflect.TypeFor[pipeline.CandidateRecord](): {"Candidate", "A candidate in full. A field without a value (null or empty) is left " +
		"out rather than sent as `null` or `\"\"`; `notes_count` is always sent."},
	reflect.TypeFor[pipeline.NoteRecord]():   {"Note", ""},
	reflect.TypeFor[pipeline.RatingRecord](): {"Rating", "The rating the token's user gives the candidate; each user has one per candidate."},
	reflect.TypeFor[entryItem](): {"ActivityEntry", "An entry of the activity log, as the feed and webhook deliveries show it (the IP " +
		"address stays out). `changes` maps each changed field to `{\"before\", \"after\"}` (a stage as its name); a note as " +
		"`{\"note_id\"}`; a webhook's entries its `url`, `events` and `description`, and, when a receiver's `410 Gone` " +
		"deleted it, a `reason`."},
	reflect.TypeFor[proposalItem](): {"Proposal", "A write held for a person's decision: the REST request it stands for (whichever " +
		"face made it), who asked and why, and what became of it."},
	reflect.TypeFor[pipeline.WebhookRecord]():        {"Webhook", "A subscription of the team to its activity; never its secret."},
	reflect.TypeFor[pipeline.CreatedWebhookRecord](): {"CreatedWebhook", "A webhook as created, with its signing secret, shown in this response only."},
	reflect.TypeFor[deliveryItem]():                  {"WebhookDelivery", "One attempt to deliver a message."},
	reflect.TypeFor[links]():                         {"PageLinks", "Absolute URLs of pages of the same list, keeping the request's other query parameters."},
	reflect.TypeFor[meta]():                          {"PageMeta", ""},
	reflect.TypeFor[feed]():                          {"ActivityFeedResponse", ""},
	reflect.TypeFor[pipeline.InterviewRecord](): {"Interview", "An interview of a candidate. `start` and `end` are in UTC, to the " +
		"second; `timezone` is the IANA name the interview is shown to people in. `sequence` starts at 0 and grows by 1 " +
		"with every change (a reschedule or the cancellation), as invitations carry it."},
	reflect.TypeFor[data[[]userBusy]]():       {"AvailabilityResponse", ""},
	reflect.TypeFor[pipeline.MessageRecord](): {"Message", ""},
}

// recordSchema is the schema of the record t, and adds the records it
// names to the document's.
func (g *docGen) recordSchema(t reflect.Type) (*yaml.Node, error) {
	s, err := g.typeSchema(t, true)
	if err != nil {
		return nil, fmt.Errorf("the schema of %v: %w", t, err)
	}
	if d := records[t].description; d != "" {
		s.Content = append([]*yaml.Node{str("description"), str(wrap(d))}, s.Content...)
	}
	return s, nil
}

// typeSchema is the schema of a value of Go type t; top for the record
// whose schema it is, which is not referred to.
func (g *docGen) typeSchema(t reflect.Type, top bool) (*yaml.Node, error) {
	for _, sh := range g.shared {
		if sh.of == t {
			return ref("schemas", sh.name), nil
		}
	}
	if _, ok := records[t]; ok && !top {
		name, err := g.record(t)
		if err != nil {
			return nil, err
		}
		return ref("schemas", name), nil
	}
	switch t {
	case reflect.TypeFor[json.RawMessage]():
		return mapping("type", "object"), nil // a JSON object as it was written
	}
	switch t.Kind() {
	case reflect.String:
		return mapping("type", "string"), nil
	case reflect.Bool:
		return mapping("type", "boolean"), nil
	case reflect.Int, reflect.Int64:
		return mapping("type", "integer"), nil
	case reflect.Pointer:
		s, err := g.typeSchema(t.Elem(), false)
		if err != nil {
			return nil, err
		}
		ty := get(s, "type")
		if ty == nil || ty.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%v: a nullable %v, which the document cannot say by reference; declare it inline", t, t.Elem())
		}
		set(s, "type", flow(ty.Value, "null"))
		return s, nil
	case reflect.Slice:
		items, err := g.typeSchema(t.Elem(), false)
		if err != nil {
			return nil, err
		}
		return mapping("type", "array", "items", items), nil
	case reflect.Struct:
		return g.objectSchema(t)
	}
	return nil, fmt.Errorf("no schema for a %v", t)
}

// objectSchema is the schema of the struct t: its fields as encoding/json
// writes them, an embedded struct's in its place.
func (g *docGen) objectSchema(t reflect.Type) (*yaml.Node, error) {
	var required []string
	props := mapping()
	var add func(t reflect.Type) error
	add = func(t reflect.Type) error {
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case name == "-":
				continue
			case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
				if err := add(f.Type); err != nil {
					return err
				}
				continue
			case !f.IsExported():
				continue
			case name == "":
				name = f.Name
			}
			p, always, err := g.fieldSchema(t, f)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if always || !strings.Contains(opts, "omitempty") {
				required = append(required, name)
			}
			set(props, name, p)
		}
		return nil
	}
	if err := add(t); err != nil {
		return nil, err
	}
	s := mapping("type", "object", "additionalProperties", false)
	if len(required) > 0 {
		set(s, "required", flow(required...))
	}
	set(s, "properties", props)
	return s, nil
}

// fieldSchema is the schema of the field f of the struct t: its type's,
// with its doc comment and what its schema tag says; always when the tag
// requires it.
func (g *docGen) fieldSchema(t reflect.Type, f reflect.StructField) (s *yaml.Node, always bool, err error) {
	if s, err = g.typeSchema(f.Type, false); err != nil {
		return nil, false, err
	}
	if tag, ok := f.Tag.Lookup("schema"); ok {
		var said yaml.Node
		if err := yaml.Unmarshal([]byte("{"+tag+"}"), &said); err != nil {
			return nil, false, fmt.Errorf("its schema tag: %w", err)
		}
		always = say(s, said.Content[0])
	}
	if d := g.docs[docKey(t, f.Name)]; d != "" {
		s.Content = append([]*yaml.Node{str("description"), str(d)}, s.Content...)
	}
	return s, always, nil
}

// say lays what a schema tag says over the schema s: its keywords, ref
// as a reference that takes the place of the type, items over the items'
// schema. It reports whether the tag requires the field.
func say(s, said *yaml.Node) (required bool) {
	for i := 0; i+1 < len(said.Content); i += 2 {
		key, v := said.Content[i].Value, said.Content[i+1]
		switch key {
		case "required":
			required = v.Value == "true"
		case "ref":
			s.Content = remove(remove(s.Content, "type"), "items")
			set(s, "$ref", "#/components/schemas/"+v.Value)
		case "items":
			if items := get(s, "items"); items != nil && v.Kind == yaml.MappingNode {
				say(items, v)
				continue
			}
			set(s, key, v)
		default:
			v.Style &^= yaml.FlowStyle
			if v.Kind == yaml.SequenceNode {
				v.Style = yaml.FlowStyle
			}
			set(s, key, v)
		}
	}
	// The items, or an object's fields, after the keywords.
	for _, last := range []string{"items", "additionalProperties", "required", "properties"} {
		if v := get(s, last); v != nil {
			s.Content = append(remove(s.Content, last), str(last), v)
		}
	}
	return required
}

// remove is the mapping's content without key.
func remove(content []*yaml.Node, key string) []*yaml.Node {
	for i := 0; i+1 < len(content); i += 2 {
		if content[i].Value == key {
			return append(content[:i:i], content[i+2:]...)
		}
	}
	return content
}

// fieldDocs are the doc comments of the records' fields, as the document
// says them, by docKey.
type fieldDocs map[string]string

// docKey names the field of the struct t: its package, its type (without
// type arguments) and its name.
func docKey(t reflect.Type, field string) string {
	name, _, _ := strings.Cut(t.Name(), "[")
	return t.PkgPath() + "." + name + "." + field
}

// readFieldDocs reads the doc comments of the fields of the structs of
// this module's packages that declare records, from their source below
// root, the module's directory. A comment's paragraphs are wrapped anew
// (wrap).
func readFieldDocs(root string) (fieldDocs, error) {
	module := strings.TrimSuffix(reflect.TypeFor[record]().PkgPath(), "/pipelinehttp")
	pkgs := map[string]bool{}
	for t := range records {
		pkgs[t.PkgPath()] = true
	}
	docs := fieldDocs{}
	for pkg := range pkgs {
		dir := filepath.Join(root, strings.TrimPrefix(pkg, module))
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			for _, decl := range f.Decls {
				gen, ok := decl.(*ast.GenDecl)
				if !ok || gen.Tok != token.TYPE {
					continue
				}
				for _, spec := range gen.Specs {
					ts := spec.(*ast.TypeSpec)
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					for _, field := range st.Fields.List {
						if field.Doc == nil {
							continue
						}
						text := wrap(strings.TrimSpace(field.Doc.Text()))
						for _, n := range field.Names {
							docs[pkg+"."+ts.Name.Name+"."+n.Name] = text
						}
					}
				}
			}
		}
	}
	return docs, nil
}
