package pipelinehttp

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The OpenAPI document, openapi.yaml, is generated: generateOpenAPI builds
// every operation of the table (operations) and what only the table knows,
// and lays over it the hand-written openapi/overlay.yaml, which holds the
// prose. TestOpenAPI_Generated fails when the committed file differs from
// what it makes; `go test ./pipelinehttp -run TestOpenAPI_Generated -update`
// writes it.
//
// Generated from the table, for each operation: its path and method,
// operationId (the operation's name), its tag, summary and description
// and the words of its answers and parameters (its declaration's Doc, or
// its tool's words; a 404's from the record its path names last,
// notFoundWhen), its path, query and header parameters with their schemas
// and limits, the request body's schema (a component named in
// requestNames), the success status, headers (Location when it creates a
// record, Idempotent-Replay on a write) and body (a component named after
// the Go type, see bodyName), `security` from the operation's scope, and
// the error responses its traits imply: 401, 429, 500 and 503 always; 403
// when it needs a scope (insufficient_scope, or a oneOf with forbidden
// when the operation Forbids); 404 when its path names a record; 422 when
// it reads input; 400, 408, 409 and 413 for writes (409 with the clash's
// details when it Conflicts). The components these name are generated
// too: those that derive from the scopes (InsufficientScope*, the 403
// oneOfs), the path ids' parameters, the shared enums (sharedSchemas), the
// list and data envelopes, and the records, from their Go types and the
// doc comments of their fields (openapi_records.go).
//
// The overlay is an OpenAPI document without those: info, tags, the
// operations' examples, and the components whose content is prose or
// shared (the error envelopes, the headers, the scalars the records refer
// to: Id, Timestamp, Date, Title…). Where it meets a generated object it
// may add or replace only prose (proseKeys); anything else is an error, so
// that no fact is written twice.

// requestNames are the component names of the request bodies that had
// one before the document was generated: they are the generated clients'
// type names, so they stay as they were. Any other operation's body is
// named after the operation (ErasePersonRequest).
var requestNames = map[pipeline.Op]string{
	pipeline.OpCreateJob:           "JobCreateRequest",
	pipeline.OpUpdateJob:           "JobUpdateRequest",
	pipeline.OpAddCandidate:        "CandidateCreateRequest",
	pipeline.OpUpdateCandidate:     "CandidateUpdateRequest",
	pipeline.OpMoveCandidate:       "StageMoveRequest",
	pipeline.OpAddNote:             "NoteCreateRequest",
	pipeline.OpRateCandidate:       "RatingRequest",
	pipeline.OpCreateWebhook:       "WebhookCreateRequest",
	pipeline.OpSendMessage:         "MessageCreateRequest",
	pipeline.OpScheduleInterview:   "InterviewCreateRequest",
	pipeline.OpRescheduleInterview: "InterviewUpdateRequest",
}

// forbiddenNames are the stems of the 403 components of the scopes whose
// operations Forbid (JobWriteForbidden…), as clients know them; a scope
// not listed gets its own name's.
var forbiddenNames = map[pipeline.Scope]string{
	pipeline.ScopeJobsWrite:       "JobWrite",
	pipeline.ScopeCandidatesWrite: "CandidateIntake",
	pipeline.ScopeSchedulingWrite: "InterviewWrite",
	pipeline.ScopeMessagesSend:    "MessageSend",
	pipeline.ScopeWebhooksWrite:   "Webhook",
}

// clashResponse is the 409 of the operations that Conflict: the clash's
// busy times, or a key in flight (hand-written in the overlay).
const clashResponse = "InterviewConflict"

// sharedSchemas are the enums parameters share with the records, generated
// as components from the values the API takes and referred to wherever a
// parameter's schema has the same values, and wherever a record's field
// has their Go type (of; nil for a string of those values).
func sharedSchemas() []namedSchema {
	var scopes []string
	for _, s := range pipeline.AllScopes {
		scopes = append(scopes, string(s))
	}
	return []namedSchema{
		{"Scope", enumSchema(scopes...), reflect.TypeFor[pipeline.Scope]()},
		{"Action", enumSchema(pipeline.Actions...), nil},
		{"JobStatus", statusSchema, reflect.TypeFor[pipeline.JobStatus]()},
		{"CandidateStatus", candidateStatus, nil},
		{"RatingValue", ratingSchema, reflect.TypeFor[pipeline.RatingValue]()},
		{"MessageStatus", enumSchema(pipeline.MessageStatuses...), nil},
	}
}

type namedSchema struct {
	name   string
	schema *jsonschema.Schema
	of     reflect.Type
}

// proseKeys are the keys the overlay may set on a generated object.
var proseKeys = map[string]bool{"description": true, "summary": true, "tags": true, "example": true, "examples": true, "title": true}

// apiHeaders are the headers of every answer below /api/.
var apiHeaders = []string{"X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Content-Type-Options", "Cache-Control"}

// generateOpenAPI is the document: the table's operations with overlay, an
// OpenAPI document of the rest, laid over them.
func generateOpenAPI(overlay []byte, docs fieldDocs) ([]byte, error) {
	var ov yaml.Node
	if err := yaml.Unmarshal(overlay, &ov); err != nil {
		return nil, fmt.Errorf("openapi overlay: %w", err)
	}
	if ov.Kind != yaml.DocumentNode || len(ov.Content) != 1 {
		return nil, fmt.Errorf("openapi overlay: want one document")
	}
	g := &docGen{open: map[*yaml.Node]bool{}, docs: docs}
	root, err := g.build()
	if err != nil {
		return nil, err
	}
	if err := g.merge(root, expandAliases(ov.Content[0]), ""); err != nil {
		return nil, fmt.Errorf("openapi overlay: %w", err)
	}
	if err := fillTables(root); err != nil {
		return nil, fmt.Errorf("openapi overlay: %w", err)
	}
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root},
		HeadComment: "Code generated from the table of operations (pipeline's opTable,\n" +
			"pipelinehttp/operations.go) and pipelinehttp/openapi/overlay.yaml.\n" +
			"DO NOT EDIT: change those and run\n" +
			"go test ./pipelinehttp -run TestOpenAPI_Generated -update"}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// docGen builds the generated part. open are the maps to which the
// overlay may add entries of any kind (the document's sections).
type docGen struct {
	open                                    map[*yaml.Node]bool
	docs                                    fieldDocs // of the records' fields
	root, paths, params, responses, schemas *yaml.Node
	shared                                  []namedSchema
}

func (g *docGen) section(parent *yaml.Node, key string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	parent.Content = append(parent.Content, str(key), n)
	g.open[n] = true
	return n
}

func (g *docGen) build() (*yaml.Node, error) {
	g.root = &yaml.Node{Kind: yaml.MappingNode}
	g.open[g.root] = true
	g.root.Content = append(g.root.Content, str("openapi"), str("3.1.0"))
	components := &yaml.Node{Kind: yaml.MappingNode}
	g.open[components] = true
	g.section(components, "securitySchemes")
	g.params = g.section(components, "parameters")
	g.section(components, "headers")
	g.responses = g.section(components, "responses")
	g.schemas = g.section(components, "schemas")
	g.shared = sharedSchemas()
	for _, s := range g.shared {
		set(g.schemas, s.name, g.schema(s.schema, false))
	}
	// info, servers and tags come from the overlay, before components.
	g.root.Content = append(g.root.Content, str("info"), g.openMap(), str("servers"), &yaml.Node{Kind: yaml.SequenceNode},
		str("tags"), &yaml.Node{Kind: yaml.SequenceNode}, str("components"), components)
	g.paths = g.section(g.root, "paths")
	for _, o := range operations {
		if err := g.operation(o); err != nil {
			return nil, fmt.Errorf("operation %s: %w", o.op, err)
		}
	}
	return g.root, nil
}

func (g *docGen) openMap() *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	g.open[n] = true
	return n
}

// operation adds o's path item and operation, and the components they name.
func (g *docGen) operation(o operation) error {
	path := "/api/v1" + o.path
	item := get(g.paths, path)
	if item == nil {
		item = mapping()
		ps := seq(ref("parameters", "RequestId"))
		for _, p := range o.params {
			if p.place == inPath {
				name := pathParamName(p.name)
				ps.Content = append(ps.Content, ref("parameters", name))
				if get(g.params, name) == nil {
					set(g.params, name, mapping("name", p.name, "in", "path", "required", true,
						"description", p.schema.Description, "schema", ref("schemas", "Id")))
				}
			}
		}
		set(item, "parameters", ps)
		set(g.paths, path, item)
	}
	method := strings.ToLower(o.method)
	if get(item, method) != nil {
		return fmt.Errorf("%s %s twice", o.method, path)
	}
	doc := wrapDoc(o.op.Doc())
	op := mapping()
	if doc.Tag != "" {
		set(op, "tags", flow(doc.Tag))
	}
	// A tool's title and description are its operation's prose, unless
	// its declaration says more.
	summary, description := doc.Summary, doc.Description
	if o.tool != nil {
		summary, description = cmp.Or(summary, o.tool.Title), cmp.Or(description, wrap(o.tool.Description))
	}
	if summary != "" {
		set(op, "summary", summary)
	}
	if description != "" {
		set(op, "description", description)
	}
	set(op, "operationId", string(o.op))
	scopes := seq()
	scopes.Style = yaml.FlowStyle
	if s := o.op.Scope(); s != "" {
		scopes.Content = append(scopes.Content, str(string(s)))
	}
	set(op, "security", seq(mapping("bearerAuth", scopes)))

	var params []*yaml.Node
	var body []paramInfo
	var takesPath, takesInput bool
	for _, p := range o.params {
		switch p.place {
		case inPath:
			takesPath = true
		case inQuery:
			takesInput = true
			m := mapping("name", p.name, "in", "query", "required", p.required)
			s := *p.schema
			if d := cmp.Or(doc.Params[p.name], s.Description); d != "" {
				set(m, "description", d)
				s.Description = ""
			}
			set(m, "schema", g.schema(&s, true))
			params = append(params, m)
		case inBody:
			takesInput = true
			body = append(body, p)
		}
	}
	for name := range doc.Params {
		if !slices.ContainsFunc(o.params, func(p paramInfo) bool { return p.name == name && p.place == inQuery }) {
			return fmt.Errorf("its document describes %s, which is not a query parameter of it", name)
		}
	}
	if o.op.Writes() {
		takesInput = true
		params = append([]*yaml.Node{ref("parameters", "IdempotencyKey")}, params...)
	}
	if len(params) > 0 {
		set(op, "parameters", seq(params...))
	}
	if len(body) > 0 {
		name, ok := requestNames[o.op]
		if !ok {
			name = camel(string(o.op)) + "Request"
		}
		set(g.schemas, name, g.requestSchema(o, body))
		media := "application/json"
		if o.reads == multipartBody {
			media = "multipart/form-data"
		}
		// A body none of whose fields is required (a reason and a note)
		// may be left out; a change (PATCH) says what it changes.
		required := o.method == http.MethodPatch || slices.ContainsFunc(body, func(p paramInfo) bool { return p.required })
		set(op, "requestBody", mapping("required", required,
			"content", mapping(media, mapping("schema", ref("schemas", name)))))
	}

	success, err := g.success(o, doc.Success)
	if err != nil {
		return err
	}
	responses := mapping(strconv.Itoa(o.status), success)
	if o.op.Proposable() && o.status != http.StatusAccepted {
		set(responses, "202", ref("responses", "Proposed"))
	}
	// Every POST, PATCH and DELETE reads a body (a read sent as a POST too);
	// only a write takes a key that may be in flight.
	bodied := o.method != http.MethodGet
	if bodied {
		set(responses, "400", ref("responses", "BadRequest"))
	}
	set(responses, "401", ref("responses", "Unauthenticated"))
	if s := o.op.Scope(); s != "" {
		set(responses, "403", describedRef("responses", g.forbidden(s, o.op.Forbids(), o.op.Decides()), doc.Forbidden))
	}
	if takesPath {
		records := o.op.Records()
		set(responses, "404", describedRef("responses", "NotFound", notFoundWhen[records[len(records)-1]]))
	}
	if bodied {
		set(responses, "408", ref("responses", "RequestTimeout"))
	}
	if o.op.Writes() {
		conflict := "Conflict"
		if o.op.Conflicts() {
			conflict = clashResponse
		}
		set(responses, "409", ref("responses", conflict))
	}
	if o.op == pipeline.OpGetDocumentText {
		// A text still being read: conflict, with Retry-After.
		set(responses, "409", ref("responses", "Conflict"))
	}
	if bodied {
		set(responses, "413", ref("responses", "PayloadTooLarge"))
	}
	if o.reads == multipartBody {
		set(responses, "415", ref("responses", "UnsupportedMediaType"))
	}
	if o.servesHead() {
		set(responses, "416", ref("responses", "RangeNotSatisfiable"))
	}
	if takesInput {
		set(responses, "422", describedRef("responses", "ValidationFailed", doc.Invalid))
	}
	set(responses, "429", ref("responses", "RateLimited"))
	set(responses, "500", ref("responses", "ServerError"))
	set(responses, "503", ref("responses", "Unavailable"))
	set(op, "responses", responses)
	set(item, method, op)
	if o.servesHead() {
		if doc.Head == nil {
			return fmt.Errorf("it answers HEAD too, and its document does not say what HEAD does (Doc.Head)")
		}
		set(item, "head", headOperation(o, op, *doc.Head))
	}
	return nil
}

// headOperation is the HEAD of the GET operation o, whose document is
// get: its tags, parameters, security and answers, the success without its
// body, said as doc says. Its operationId is head_ and the GET's without
// get_.
func headOperation(o operation, get *yaml.Node, doc pipeline.Doc) *yaml.Node {
	head := mapping()
	for i := 0; i+1 < len(get.Content); i += 2 {
		switch key, v := get.Content[i].Value, get.Content[i+1]; key {
		case "summary", "description":
		case "operationId":
			set(head, "summary", doc.Summary)
			set(head, "description", doc.Description)
			set(head, key, "head_"+strings.TrimPrefix(string(o.op), "get_"))
		case "responses":
			responses := mapping()
			for j := 0; j+1 < len(v.Content); j += 2 {
				status, r := v.Content[j].Value, v.Content[j+1]
				if status == strconv.Itoa(o.status) {
					headers := *r
					headers.Content = nil
					for k := 0; k+1 < len(r.Content); k += 2 {
						switch r.Content[k].Value {
						case "content":
						case "description":
							set(&headers, "description", cmp.Or(doc.Success, r.Content[k+1].Value))
						default:
							headers.Content = append(headers.Content, r.Content[k], r.Content[k+1])
						}
					}
					r = &headers
				}
				set(responses, status, r)
			}
			set(head, key, responses)
		default:
			set(head, key, v)
		}
	}
	return head
}

// wrapDoc is d with its prose wrapped (wrap), for the document's readers:
// the file's, and the generated clients' comments.
func wrapDoc(d pipeline.Doc) pipeline.Doc {
	for _, s := range []*string{&d.Description, &d.Success, &d.Forbidden, &d.Invalid} {
		*s = wrap(*s)
	}
	if d.Params != nil {
		d.Params = maps.Clone(d.Params)
		for name, s := range d.Params {
			d.Params[name] = wrap(s)
		}
	}
	if d.Head != nil {
		h := wrapDoc(*d.Head)
		d.Head = &h
	}
	return d
}

// wrap breaks Markdown prose into lines of at most 72 characters where it
// can, which Markdown reads as the same paragraphs. A line never starts
// with what would open a list, a quote or a heading.
func wrap(s string) string {
	const width = 72
	var out []string
	for para := range strings.SplitSeq(s, "\n\n") {
		var b strings.Builder
		line := 0
		for i, w := range strings.Fields(para) {
			switch n := utf8.RuneCountInString(w); {
			case i == 0:
			case line+1+n > width && !opensBlock(w):
				b.WriteByte('\n')
				line = 0
			default:
				b.WriteByte(' ')
				line++
			}
			b.WriteString(w)
			line += utf8.RuneCountInString(w)
		}
		out = append(out, b.String())
	}
	return strings.Join(out, "\n\n")
}

// opensBlock reports whether a line that starts with the word w would
// start a Markdown block: a list's item, a quote, a heading.
func opensBlock(w string) bool {
	if w == "-" || w == "+" || w == "*" || strings.HasPrefix(w, ">") || strings.HasPrefix(w, "#") {
		return true
	}
	n := len(w) - len(strings.TrimLeft(w, "0123456789")) // an ordered list's "1." or "1)"
	return n > 0 && (w[n:] == "." || w[n:] == ")")
}

// pathParamName is the component name of a path id: job is JobId.
func pathParamName(name string) string {
	return strings.ToUpper(name[:1]) + name[1:] + "Id"
}

// requestSchema is the schema of a body of the fields body.
func (g *docGen) requestSchema(o operation, body []paramInfo) *yaml.Node {
	s := mapping("type", "object", "additionalProperties", false)
	var required []*yaml.Node
	props := mapping()
	for _, p := range body {
		if p.required {
			required = append(required, str(p.name))
		}
		set(props, p.name, g.schema(p.schema, true))
	}
	if o.method == http.MethodPatch {
		// A PATCH changes what it is sent, and must be sent something.
		set(s, "minProperties", 1)
	}
	if len(required) > 0 {
		r := seq(required...)
		r.Style = yaml.FlowStyle
		set(s, "required", r)
	}
	set(s, "properties", props)
	return s
}

// success is o's success response, described as description says, or by
// its status.
func (g *docGen) success(o operation, description string) (*yaml.Node, error) {
	headers := mapping()
	if o.creates {
		set(headers, "Location", ref("headers", locationHeader(o.path)))
	}
	if o.op.Writes() {
		set(headers, "Idempotent-Replay", ref("headers", "Idempotent-Replay"))
	}
	for _, h := range apiHeaders {
		set(headers, h, ref("headers", h))
	}
	// A write that answers 202 itself answers a held request's proposal
	// with the same status.
	held := o.op.Proposable() && o.status == http.StatusAccepted
	if held && o.creates {
		set(headers, "Location", ref("headers", "AcceptedLocation"))
	}
	r := mapping("description", cmp.Or(description, http.StatusText(o.status)+"."), "headers", headers)
	switch {
	case o.status == http.StatusNoContent:
	case o.body.Implements(reflect.TypeFor[servedBody]()):
		// Bytes of any of the types it may have, as stored.
		content := mapping()
		for _, media := range reflect.Zero(o.body).Interface().(servedBody).mediaTypes() {
			media, _, _ = strings.Cut(media, ";")
			set(content, media, mapping("schema", mapping("type", "string", "format", "binary")))
		}
		set(r, "content", content)
	case o.body.Implements(reflect.TypeFor[rawBody]()):
		media, _ := reflect.Zero(o.body).Interface().(rawBody).media()
		media, _, _ = strings.Cut(media, ";")
		set(r, "content", mapping(media, mapping("schema", mapping("type", "string"))))
	default:
		name, err := g.bodyName(o.body)
		if err != nil {
			return nil, err
		}
		if held {
			// {data: the record or the proposal}: a union of the data, not
			// of two envelopes, discriminated by the object field both
			// carry, so that a generator need not tell them apart by their
			// fields (ogen cannot).
			record, err := g.record(o.body.Field(0).Type)
			if err != nil {
				return nil, err
			}
			proposal, err := g.record(reflect.TypeFor[proposalItem]())
			if err != nil {
				return nil, err
			}
			data := mapping("oneOf", seq(ref("schemas", record), ref("schemas", proposal)))
			objects := mapping()
			for _, branch := range []string{record, proposal} {
				object := get(get(get(get(g.schemas, branch), "properties"), "object"), "const")
				if object == nil {
					return nil, fmt.Errorf("%s: the schema %s has no object const to tell it from the other answer of a held write", o.op, branch)
				}
				set(objects, object.Value, "#/components/schemas/"+branch)
			}
			set(data, "discriminator", mapping("propertyName", "object", "mapping", objects))
			name = record + "OrProposalResponse"
			set(g.schemas, name, mapping("type", "object", "additionalProperties", false, "required", flow("data"),
				"properties", mapping("data", data)))
		}
		set(r, "content", mapping("application/json", mapping("schema", ref("schemas", name))))
	}
	return r, nil
}

// record is the component name of a record's Go type t, whose schema it
// adds to the document's: its name in records, its schema generated from
// t's fields and tags (recordSchema); else its Go name without Item or
// Record and capitalized (ErasureRecord is Erasure), its schema generated
// from t as the MCP face's output schemas are.
func (g *docGen) record(t reflect.Type) (string, error) {
	if r, ok := records[t]; ok {
		if get(g.schemas, r.name) == nil {
			s, err := g.recordSchema(t)
			if err != nil {
				return "", err
			}
			set(g.schemas, r.name, s)
		}
		return r.name, nil
	}
	name := camel(strings.TrimSuffix(strings.TrimSuffix(t.Name(), "Item"), "Record"))
	if get(g.schemas, name) != nil {
		return name, nil
	}
	s, err := jsonschema.ForType(t, bodySchemas)
	if err != nil {
		return "", fmt.Errorf("the schema of %v: %w", t, err)
	}
	dropNull(s, false)
	set(g.schemas, name, g.schema(s, false))
	return name, nil
}

// camel is a snake_case or lowerCamel name in UpperCamelCase.
func camel(name string) string {
	var b strings.Builder
	for part := range strings.SplitSeq(name, "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// locationHeader is the component name of the Location of a record made
// at path: the job's is plain Location, as clients know it.
func locationHeader(path string) string {
	last := path[strings.LastIndex(path, "/")+1:]
	if last == "jobs" {
		return "Location"
	}
	return strings.ToUpper(last[:1]) + strings.TrimSuffix(last[1:], "s") + "Location"
}

// bodyName is the component name of a success body of Go type t: a named
// type's, or an envelope's, generated here around its record's name:
// data[T] is TResponse, list[T] and data[[]T] TListResponse (T without
// Summary).
func (g *docGen) bodyName(t reflect.Type) (string, error) {
	if _, ok := records[t]; ok {
		return g.record(t)
	}
	generic, _, _ := strings.Cut(t.Name(), "[")
	if t.PkgPath() != reflect.TypeFor[operation]().PkgPath() {
		return "", fmt.Errorf("its body %v is not this package's", t)
	}
	if generic != "data" && generic != "list" {
		return g.record(t)
	}
	elem := t.Field(0).Type // Data
	var list bool
	if elem.Kind() == reflect.Slice {
		elem, list = elem.Elem(), true
	}
	record, err := g.record(elem)
	if err != nil {
		return "", err
	}
	name := record + "Response"
	s := mapping("type", "object", "additionalProperties", false)
	switch {
	case generic == "list":
		// A list holds summaries: JobSummary's list is JobListResponse.
		name = strings.TrimSuffix(record, "Summary") + "ListResponse"
		links, err := g.record(reflect.TypeFor[links]())
		if err != nil {
			return "", err
		}
		meta, err := g.record(reflect.TypeFor[meta]())
		if err != nil {
			return "", err
		}
		set(s, "required", flow("data", "links", "meta"))
		set(s, "properties", mapping(
			"data", mapping("type", "array", "maxItems", pipeline.PageSize, "items", ref("schemas", record)),
			"links", ref("schemas", links), "meta", ref("schemas", meta)))
	case list:
		name = record + "ListResponse"
		set(s, "required", flow("data"))
		set(s, "properties", mapping("data", mapping("type", "array", "items", ref("schemas", record))))
	default:
		set(s, "required", flow("data"))
		set(s, "properties", mapping("data", ref("schemas", record)))
	}
	set(g.schemas, name, s)
	return name, nil
}

// forbidden is the name of the 403 response of an operation that needs
// scope, and adds it and its schemas: insufficient_scope alone, or with
// forbidden as a oneOf discriminated by code.
func (g *docGen) forbidden(scope pipeline.Scope, forbids, decides bool) string {
	camel := ""
	for part := range strings.FieldsFuncSeq(string(scope), func(r rune) bool { return r == ':' || r == '_' }) {
		camel += strings.ToUpper(part[:1]) + part[1:]
	}
	object := "InsufficientScope" + camel + "ErrorObject"
	named, lacks := mapping("type", "string", "const", string(scope)), "`"+string(scope)+"`"
	if decides {
		// A decision needs the proposed write's scope too.
		camel += "Decision"
		object = "InsufficientScope" + camel + "ErrorObject"
		scopes := make([]string, len(pipeline.AllScopes))
		for i, s := range pipeline.AllScopes {
			scopes[i] = string(s)
		}
		named, lacks = mapping("type", "string", "enum", flow(scopes...)), "`"+string(scope)+"` or the proposed write's own scope"
	}
	set(g.schemas, object, mapping(
		"description", "`insufficient_scope` naming "+lacks+".",
		"type", "object", "additionalProperties", false, "required", flow("code", "message", "details"),
		"properties", mapping(
			"code", mapping("type", "string", "const", "insufficient_scope"),
			"message", ref("schemas", "ErrorMessage"),
			"details", mapping("type", "object", "additionalProperties", false, "required", flow("required_scope"),
				"properties", mapping("required_scope", named)))))
	name, description := "InsufficientScope"+camel, "`insufficient_scope`: the token lacks "+lacks+"."
	if forbids {
		stem, ok := forbiddenNames[scope]
		if !ok {
			stem = camel
		}
		name = stem + "Forbidden"
		description = "Two codes, told apart by `error.code`: `insufficient_scope` when the token lacks " + lacks +
			"; `forbidden` when a business rule refuses the request."
		oneOf := name + "ErrorObject"
		set(g.schemas, oneOf, mapping(
			"description", "The error object of a 403: `insufficient_scope` or `forbidden`.",
			"oneOf", seq(ref("schemas", object), ref("schemas", "ForbiddenErrorObject")),
			"discriminator", mapping("propertyName", "code", "mapping", mapping(
				"insufficient_scope", "#/components/schemas/"+object,
				"forbidden", "#/components/schemas/ForbiddenErrorObject"))))
		object = oneOf
	}
	envelope := name + "Error"
	set(g.schemas, envelope, mapping("type", "object", "additionalProperties", false, "required", flow("error"),
		"properties", mapping("error", ref("schemas", object))))
	headers := mapping()
	for _, h := range apiHeaders {
		set(headers, h, ref("headers", h))
	}
	set(g.responses, name, mapping("description", description, "headers", headers,
		"content", mapping("application/json", mapping("schema", ref("schemas", envelope)))))
	return name
}

// schema is s as the document writes it: a shared enum by reference, an
// integer as int64 (the API reads every integer so). Outside the shared
// components themselves (top false), description rides beside a reference.
func (g *docGen) schema(s *jsonschema.Schema, top bool) *yaml.Node {
	m := mapping()
	if s.Description != "" {
		set(m, "description", s.Description)
	}
	if top {
		for _, sh := range g.shared {
			if s.Type == "string" && len(s.Enum) > 0 && reflect.DeepEqual(s.Enum, sh.schema.Enum) {
				set(m, "$ref", "#/components/schemas/"+sh.name)
				return m
			}
		}
	}
	switch {
	case len(s.Types) > 0:
		t := seq()
		t.Style = yaml.FlowStyle
		// null last, whatever order the schema holds them in.
		types := slices.Clone(s.Types)
		slices.SortStableFunc(types, func(a, b string) int { return boolCmp(a == "null", b == "null") })
		for _, ty := range types {
			t.Content = append(t.Content, str(ty))
		}
		set(m, "type", t)
	case s.Type != "":
		set(m, "type", s.Type)
	}
	switch {
	case s.Format != "":
		set(m, "format", s.Format)
	case s.Type == "integer" || slices.Contains(s.Types, "integer"):
		set(m, "format", "int64")
	}
	if len(s.Enum) > 0 {
		e := seq()
		e.Style = yaml.FlowStyle
		for _, v := range s.Enum {
			e.Content = append(e.Content, str(fmt.Sprint(v)))
		}
		set(m, "enum", e)
	}
	if s.MinLength != nil {
		set(m, "minLength", *s.MinLength)
	}
	if s.MaxLength != nil {
		set(m, "maxLength", *s.MaxLength)
	}
	if s.Pattern != "" {
		set(m, "pattern", s.Pattern)
	}
	if s.Minimum != nil {
		set(m, "minimum", *s.Minimum)
	}
	if s.Maximum != nil {
		set(m, "maximum", *s.Maximum)
	}
	if s.MinItems != nil {
		set(m, "minItems", *s.MinItems)
	}
	if s.MaxItems != nil {
		set(m, "maxItems", *s.MaxItems)
	}
	if s.Items != nil {
		set(m, "items", g.schema(s.Items, true))
	}
	if len(s.Properties) > 0 {
		// An object of a record generated from its Go type: no other
		// property, the ones it always sends required.
		if s.AdditionalProperties != nil && s.AdditionalProperties.Not != nil {
			set(m, "additionalProperties", false)
		}
		if len(s.Required) > 0 {
			set(m, "required", flow(s.Required...))
		}
		names := slices.Clone(s.PropertyOrder)
		if len(names) == 0 {
			names = slices.Sorted(maps.Keys(s.Properties))
		}
		props := mapping()
		for _, n := range names {
			set(props, n, g.schema(s.Properties[n], true))
		}
		set(m, "properties", props)
	}
	return m
}

// merge lays the overlay node ov over the generated node gen, at path.
func (g *docGen) merge(gen, ov *yaml.Node, path string) error {
	for i := 0; i+1 < len(ov.Content); i += 2 {
		key, val := ov.Content[i].Value, ov.Content[i+1]
		at := path + "/" + key
		cur := get(gen, key)
		// Below properties the keys are names, not prose.
		prose := proseKeys[key] && !strings.HasSuffix(path, "/properties")
		switch {
		case cur == nil && (g.open[gen] || prose):
			if prose && !g.open[gen] {
				insertProse(gen, ov.Content[i], val)
			} else {
				gen.Content = append(gen.Content, ov.Content[i], val)
			}
		case cur == nil:
			return fmt.Errorf("%s: the overlay adds %q to what the table generates; declare it in the table", at, key)
		case prose:
			set(gen, key, val)
		case key == "parameters" && cur.Kind == yaml.SequenceNode && val.Kind == yaml.SequenceNode:
			if err := g.mergeParameters(cur, val, at); err != nil {
				return err
			}
		case cur.Kind == yaml.SequenceNode && len(cur.Content) == 0 && g.open[gen]:
			set(gen, key, val) // servers, tags
		case cur.Kind != yaml.MappingNode || val.Kind != yaml.MappingNode:
			return fmt.Errorf("%s: the overlay sets what the table generates; change it in the table", at)
		default:
			if err := g.merge(cur, val, at); err != nil {
				return err
			}
		}
	}
	return nil
}

// mergeParameters lays overlay parameters, named, over generated ones: only
// their prose.
func (g *docGen) mergeParameters(gen, ov *yaml.Node, path string) error {
	for _, p := range ov.Content {
		name := get(p, "name")
		var target *yaml.Node
		for _, q := range gen.Content {
			if n := get(q, "name"); n != nil && name != nil && n.Value == name.Value {
				target = q
			}
		}
		if target == nil {
			return fmt.Errorf("%s: the overlay adds a parameter the table does not declare", path)
		}
		prose := &yaml.Node{Kind: yaml.MappingNode}
		for i := 0; i+1 < len(p.Content); i += 2 {
			if p.Content[i].Value != "name" {
				prose.Content = append(prose.Content, p.Content[i], p.Content[i+1])
			}
		}
		if err := g.merge(target, prose, path+"/"+name.Value); err != nil {
			return err
		}
	}
	return nil
}

// insertProse puts a prose key before the generated keys of m, after any
// prose already there, so that an operation reads tags, summary,
// description, then what the table says.
func insertProse(m, k, v *yaml.Node) {
	i := 0
	for i+1 < len(m.Content) && proseKeys[m.Content[i].Value] && m.Content[i].Value != "example" && m.Content[i].Value != "examples" {
		i += 2
	}
	if k.Value == "example" || k.Value == "examples" {
		i = len(m.Content)
	}
	m.Content = slices.Insert(m.Content, i, k, v)
}

// expandAliases is n with every alias replaced by a copy of its anchor's
// node, and no anchors: the merged document orders nodes anew.
func expandAliases(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		return expandAliases(n.Alias)
	}
	c := *n
	c.Anchor = ""
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = expandAliases(x)
	}
	return &c
}

// YAML node helpers.

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func node(v any) *yaml.Node {
	switch v := v.(type) {
	case *yaml.Node:
		return v
	case string:
		return str(v)
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v)}
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(v)}
	case float64:
		tag := "!!float"
		if v == float64(int64(v)) {
			tag = "!!int"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: strconv.FormatFloat(v, 'f', -1, 64)}
	}
	panic(fmt.Sprintf("openapi: no YAML for %T", v))
}

// mapping is a YAML mapping of the key, value pairs kv.
func mapping(kv ...any) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(kv); i += 2 {
		m.Content = append(m.Content, str(kv[i].(string)), node(kv[i+1]))
	}
	return m
}

func seq(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Content: items}
}

// flow is a sequence of strings written on one line.
func flow(items ...string) *yaml.Node {
	s := seq()
	s.Style = yaml.FlowStyle
	for _, it := range items {
		s.Content = append(s.Content, str(it))
	}
	return s
}

func ref(section, name string) *yaml.Node {
	return mapping("$ref", "#/components/"+section+"/"+name)
}

// describedRef is a reference described as description says beside it;
// a plain reference when description is "".
func describedRef(section, name, description string) *yaml.Node {
	if description == "" {
		return ref(section, name)
	}
	return mapping("description", description, "$ref", "#/components/"+section+"/"+name)
}

// get is the value of key in the mapping m, nil when absent.
func get(m *yaml.Node, key string) *yaml.Node {
	if m == nil {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// set sets key in the mapping m to v, in its place or at the end.
func set(m *yaml.Node, key string, v any) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = node(v)
			return
		}
	}
	m.Content = append(m.Content, str(key), node(v))
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
