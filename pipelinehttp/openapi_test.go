package pipelinehttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"go.yaml.in/yaml/v3"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// loadOpenAPI parses and validates the embedded document as OpenAPI 3.1;
// the tests check responses against the model it returns.
func loadOpenAPI() (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openapiYAML)
	if err != nil {
		return nil, fmt.Errorf("pipelinehttp: loading the embedded openapi.yaml: %w", err)
	}
	if err := doc.Validate(loader.Context, openapi3.IsOpenAPI31OrLater()); err != nil {
		return nil, fmt.Errorf("pipelinehttp: the embedded openapi.yaml is not a valid OpenAPI 3.1 document: %w", err)
	}
	return doc, nil
}

// validatedResponses counts the responses checkResponse found to match the
// document; TestMain reports it.
var validatedResponses atomic.Int64

// openapiContract is the loaded document and a router over its operations,
// shared by every test of the package.
type openapiContract struct {
	doc    *openapi3.T
	router routers.Router
}

var loadContract = sync.OnceValues(func() (*openapiContract, error) {
	// A document's bytes are checked as the string they are.
	for _, media := range pipeline.DocumentTypes {
		if media, _, _ := strings.Cut(media, ";"); openapi3filter.RegisteredBodyDecoder(media) == nil {
			openapi3filter.RegisterBodyDecoder(media, openapi3filter.FileBodyDecoder)
		}
	}
	doc, err := loadOpenAPI()
	if err != nil {
		return nil, err
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("routing the document's operations: %w", err)
	}
	return &openapiContract{doc: doc, router: router}, nil
})

// checkResponse fails t unless the response (status, header, body) is one
// the document allows for req, whose body was reqBody. It also fails t when a
// 2xx answers a request the document calls invalid: the server then accepts
// more than it promises. Authentication is not checked here; any token
// passes. Every response that matches is counted.
func checkResponse(t testing.TB, req *http.Request, reqBody []byte, status int, header http.Header, body []byte) {
	t.Helper()
	if err := validateExchange(req, reqBody, status, header, body); err != nil {
		t.Errorf("openapi: %s %s answered %d, which the document does not allow:\n%v\nbody: %s",
			req.Method, req.URL.RequestURI(), status, err, truncate(body, 2000))
		return
	}
	validatedResponses.Add(1)
}

// validateExchange is checkResponse's check, returning the mismatch.
func validateExchange(req *http.Request, reqBody []byte, status int, header http.Header, body []byte) error {
	ct, err := loadContract()
	if err != nil {
		return err
	}
	ctx := context.Background()
	// A JSON body has exactly the JSON Content-Type; another (a
	// document's bytes) only a type the response documents, which
	// ValidateResponse checks.
	if media, _, _ := strings.Cut(header.Get("Content-Type"), ";"); len(body) > 0 && (media == "application/json" || media == "") &&
		header.Get("Content-Type") != jsonContentType {
		return fmt.Errorf("Content-Type is %q, want %q", header.Get("Content-Type"), jsonContentType)
	}

	r := req.Clone(ctx)
	r.Body = io.NopCloser(bytes.NewReader(reqBody))
	r.ContentLength = int64(len(reqBody))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(reqBody)), nil }
	if len(reqBody) > 0 && r.Header.Get("Content-Type") == "" {
		// The server reads every body as JSON, whatever its Content-Type.
		r.Header.Set("Content-Type", "application/json")
	}

	opts := contractOptions()
	route, params, err := ct.router.FindRoute(r)
	switch {
	case errors.Is(err, routers.ErrPathNotFound):
		route = ct.unroutedRoute(r, http.StatusNotFound)
	case errors.Is(err, routers.ErrMethodNotAllowed):
		route = ct.unroutedRoute(r, http.StatusMethodNotAllowed)
	case err != nil:
		return fmt.Errorf("finding the operation: %w", err)
	}
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: opts}
	if route.Operation.OperationID != "" && status >= 200 && status < 300 {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			return fmt.Errorf("the server answered %d to a request the document rejects: %w", status, err)
		}
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 header,
		Options:                opts,
	}
	out.SetBodyBytes(body)
	return openapi3filter.ValidateResponse(ctx, out)
}

// contractOptions are the validation options: every status must be
// documented, defaults are not written into the request, links must be
// absolute URLs and schema errors are reported by location and reason.
func contractOptions() *openapi3filter.Options {
	opts := &openapi3filter.Options{
		IncludeResponseStatus: true,
		SkipSettingDefaults:   true,
		AuthenticationFunc: func(context.Context, *openapi3filter.AuthenticationInput) error {
			return nil // authentication has its own tests
		},
		SchemaValidationOptions: []openapi3.SchemaValidationOption{
			openapi3.WithStringFormatValidator("uri", openapi3.NewCallbackValidator(absoluteURL)),
		},
	}
	opts.WithCustomSchemaErrorFunc(func(err *openapi3.SchemaError) string {
		return "at /" + strings.Join(err.JSONPointer(), "/") + ": " + err.Reason
	})
	return opts
}

// absoluteURL is the "uri" format as the API uses it: an absolute http(s) URL.
func absoluteURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http(s) URL", s)
	}
	return nil
}

// unroutedRoute stands for a request the document has no operation for: an
// unknown route (404) or a known path with another method (405). Below
// /api/ such a request is authenticated and rate-limited first, so it may
// also answer 401, 429 or 503, and every answer carries the rate-limit
// headers; elsewhere only X-Request-Id and nosniff are promised.
func (ct *openapiContract) unroutedRoute(r *http.Request, status int) *routers.Route {
	responses := ct.doc.Components.Responses
	answer := map[int]string{
		http.StatusNotFound:         "NotFound",
		http.StatusMethodNotAllowed: "MethodNotAllowed",
	}[status]
	ops := []openapi3.NewResponsesOption{
		openapi3.WithStatus(status, responses[answer]),
		openapi3.WithStatus(http.StatusInternalServerError, responses["ServerError"]),
	}
	if strings.HasPrefix(r.URL.Path, "/api/") {
		ops = append(ops,
			openapi3.WithStatus(http.StatusUnauthorized, responses["Unauthenticated"]),
			openapi3.WithStatus(http.StatusTooManyRequests, responses["RateLimited"]),
			openapi3.WithStatus(http.StatusServiceUnavailable, responses["Unavailable"]),
		)
	} else {
		ops = []openapi3.NewResponsesOption{
			openapi3.WithStatus(status, withoutRateHeaders(responses[answer])),
			openapi3.WithStatus(http.StatusInternalServerError, withoutRateHeaders(responses["ServerError"])),
		}
	}
	return &routers.Route{
		Spec:      ct.doc,
		Path:      r.URL.Path,
		PathItem:  &openapi3.PathItem{},
		Method:    r.Method,
		Operation: &openapi3.Operation{Responses: openapi3.NewResponses(ops...)},
	}
}

// withoutRateHeaders copies a response without the headers of /api/
// responses: X-RateLimit-* and Cache-Control.
func withoutRateHeaders(ref *openapi3.ResponseRef) *openapi3.ResponseRef {
	resp := *ref.Value
	resp.Headers = openapi3.Headers{}
	for name, h := range ref.Value.Headers {
		if !strings.HasPrefix(name, "X-RateLimit-") && name != "Cache-Control" {
			resp.Headers[name] = h
		}
	}
	return &openapi3.ResponseRef{Value: &resp}
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

func TestOpenAPI_DocumentLoads(t *testing.T) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openapiYAML)
	if err != nil {
		t.Fatalf("loading openapi.yaml: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi is %q, want 3.1.0", doc.OpenAPI)
	}
	err = doc.Validate(loader.Context,
		openapi3.IsOpenAPI31OrLater(),
		openapi3.EnableSchemaFormatValidation(),
		openapi3.EnableExamplesValidation(),
		openapi3.EnableMultiError(),
	)
	if err != nil {
		t.Fatalf("openapi.yaml is not a valid OpenAPI 3.1 document:\n%v", err)
	}
	if _, err := loadContract(); err != nil {
		t.Fatal(err)
	}
}

func TestOpenAPI_DocumentJSON(t *testing.T) {
	served := OpenAPIDocument()
	if !json.Valid(served) {
		t.Fatal("OpenAPIDocument is not JSON")
	}
	served[0] = 'x'
	if OpenAPIDocument()[0] == 'x' {
		t.Fatal("OpenAPIDocument shares its bytes with the caller")
	}

	// The JSON is a valid OpenAPI document...
	loader := openapi3.NewLoader()
	fromJSON, err := loader.LoadFromData(OpenAPIDocument())
	if err != nil {
		t.Fatalf("loading the JSON document: %v", err)
	}
	if err := fromJSON.Validate(loader.Context, openapi3.IsOpenAPI31OrLater()); err != nil {
		t.Fatalf("the JSON document does not validate: %v", err)
	}

	// ...and the very document written in openapi.yaml: decoded here on its
	// own, not through any model that could rewrite it (kin-openapi's
	// merged $ref siblings into shared components and dropped
	// `required: false`).
	var fromYAML any
	if err := yaml.Unmarshal(openapiYAML, &fromYAML); err != nil {
		t.Fatalf("decoding openapi.yaml: %v", err)
	}
	asJSON, err := json.Marshal(fromYAML) // so both sides hold JSON's types: float64, not int
	if err != nil {
		t.Fatalf("openapi.yaml has no JSON form: %v", err)
	}
	var want, got any
	if err := json.Unmarshal(asJSON, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(OpenAPIDocument(), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(want, got) {
		diffs := jsonDiff("", want, got)
		t.Errorf("the JSON document differs from openapi.yaml at %d places:\n%s", len(diffs), strings.Join(diffs[:min(len(diffs), 20)], "\n"))
	}
}

// jsonDiff lists where the decoded JSON values want and got differ, by
// JSON pointer.
func jsonDiff(at string, want, got any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		var diffs []string
		for _, k := range slices.Sorted(maps.Keys(w)) {
			if gv, ok := g[k]; ok {
				diffs = append(diffs, jsonDiff(at+"/"+pointerToken(k), w[k], gv)...)
			} else {
				diffs = append(diffs, at+"/"+pointerToken(k)+": missing")
			}
		}
		for _, k := range slices.Sorted(maps.Keys(g)) {
			if _, ok := w[k]; !ok {
				diffs = append(diffs, at+"/"+pointerToken(k)+": not in openapi.yaml")
			}
		}
		return diffs
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			break
		}
		var diffs []string
		for i := range w {
			diffs = append(diffs, jsonDiff(at+"/"+strconv.Itoa(i), w[i], g[i])...)
		}
		return diffs
	default:
		if reflect.DeepEqual(want, got) {
			return nil
		}
	}
	return []string{fmt.Sprintf("%s: %.80q in openapi.yaml, %.80q served", at, fmt.Sprint(want), fmt.Sprint(got))}
}

func TestOpenAPI_ServesDocument(t *testing.T) {
	e := New(pipeline.NewService(nil), Config{})
	req := httptest.NewRequest(http.MethodGet, "/api/v1/openapi.json", nil)
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /api/v1/openapi.json answered %d: %s", rec.Code, rec.Body)
	}
	if !bytes.Equal(rec.Body.Bytes(), OpenAPIDocument()) {
		t.Error("the served document is not OpenAPIDocument()")
	}
	checkResponse(t, req, nil, rec.Code, rec.Header(), rec.Body.Bytes())
}

// pointerToken escapes a key for a JSON pointer.
func pointerToken(k string) string { return strings.NewReplacer("~", "~0", "/", "~1").Replace(k) }

// operationsOf lists "METHOD path" for each operation of doc, sorted.
func operationsOf(doc *openapi3.T) []string {
	var ops []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			ops = append(ops, method+" "+path)
		}
	}
	slices.Sort(ops)
	return ops
}

// openapiPath turns a Gin route pattern into an OpenAPI path template:
// /jobs/:job becomes /jobs/{job}.
func openapiPath(ginPath string) string {
	segs := strings.Split(ginPath, "/")
	for i, s := range segs {
		if len(s) > 1 && (s[0] == ':' || s[0] == '*') {
			segs[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(segs, "/")
}

func TestOpenAPI_RoutesMatchEngine(t *testing.T) {
	ct, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	e := New(pipeline.NewService(nil), Config{}) // routing needs no store
	var served []string
	for _, r := range e.Routes() {
		if r.Path == MCPPath {
			continue // JSON-RPC, described by MCP's tools/list (see mcp_test.go)
		}
		if r.Path == "/app" || strings.HasPrefix(r.Path, "/app/") || r.Path == "/favicon.ico" {
			continue // the people's pages: HTML, not the API (pages_test.go)
		}
		served = append(served, r.Method+" "+openapiPath(r.Path))
	}
	slices.Sort(served)
	documented := operationsOf(ct.doc)

	for _, op := range served {
		if !slices.Contains(documented, op) {
			t.Errorf("the engine serves %s, which openapi.yaml does not document", op)
		}
	}
	for _, op := range documented {
		if !slices.Contains(served, op) {
			t.Errorf("openapi.yaml documents %s, which the engine does not serve", op)
		}
	}
}

// TestOpenAPI_Outages: every operation below /api/ documents 503
// unavailable, which any of them answers when the database does not, and
// every operation that reads a body or an Idempotency-Key documents 408 and
// 400, its answers to a body that arrives too late or cut short.
func TestOpenAPI_Outages(t *testing.T) {
	ct, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	for path, item := range ct.doc.Paths.Map() {
		if !strings.HasPrefix(path, "/api/") {
			continue
		}
		for method, op := range item.Operations() {
			want := []int{http.StatusServiceUnavailable}
			if method != http.MethodGet && method != http.MethodHead {
				want = append(want, http.StatusRequestTimeout, http.StatusBadRequest)
			}
			for _, status := range want {
				if op.Responses.Status(status) == nil {
					t.Errorf("%s %s does not document %d", method, path, status)
				}
			}
		}
	}
}

// TestOpenAPI_EngineResponses checks the responses the engine gives without
// any database against the document, each on an engine of its own with an
// anonymous budget of two.
func TestOpenAPI_EngineResponses(t *testing.T) {
	cases := []struct {
		method, path string
		spent        int // anonymous /api/ requests made before in the window
		want         int
	}{
		{http.MethodGet, "/healthz", 0, http.StatusOK},
		{http.MethodPost, "/healthz", 0, http.StatusMethodNotAllowed},
		{http.MethodGet, "/nowhere", 0, http.StatusNotFound},
		{http.MethodGet, "/api/v1/me", 0, http.StatusUnauthorized},
		{http.MethodDelete, "/api/v1/jobs/1", 1, http.StatusUnauthorized}, // authenticated before the method is judged
		{http.MethodGet, "/api/v1/jobs", 2, http.StatusTooManyRequests},   // the third anonymous request of the window
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			e := New(pipeline.NewService(nil, pipeline.WithLimiter(pipeline.NewMemoryLimiter(2))), Config{})
			for range tc.spent {
				rec := httptest.NewRecorder()
				e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/me", nil))
				if rec.Code != http.StatusUnauthorized {
					t.Fatalf("an anonymous request before answered %d: %s", rec.Code, rec.Body)
				}
			}
			req := httptest.NewRequest(tc.method, tc.path, nil)
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Fatalf("answered %d, want %d: %s", rec.Code, tc.want, rec.Body)
			}
			checkResponse(t, req, nil, rec.Code, rec.Header(), rec.Body.Bytes())
		})
	}
}

// Responses that keep to the document, for TestOpenAPI_RejectsDrift to
// spoil.
const (
	driftJob = `{"id":7,"title":"Backend Engineer","status":"open","description":"<p>Go</p>",` +
		`"work_mode":"onsite","employment_type":"full_time","application_deadline":"2026-02-04",` +
		`"created_at":"2026-01-05T10:00:00Z","updated_at":"2026-01-05T10:00:00Z"}`
	driftCandidates = `{"data":[{"id":1,"name":"Ada Lovelace","email":"ada@example.test","applied":"2026-01-05",` +
		`"stage":"Screening","status":"active"}],` +
		`"links":{"first":"http://example.com/api/v1/jobs/7/candidates?page=1","last":"http://example.com/api/v1/jobs/7/candidates?page=1","prev":null,"next":null},` +
		`"meta":{"current_page":1,"last_page":1,"per_page":15,"total":1}}`
	driftCandidate = `{"id":1,"name":"Ada Lovelace","email":"ada@example.test","applied":"2026-01-05",` +
		`"stage":"Screening","status":"active","notes_count":0}`
	driftUnauthenticated = `{"error":{"code":"unauthenticated","message":"Unauthenticated.","details":null}}`
	driftNotFound        = `{"error":{"code":"not_found","message":"Job not found.","details":null}}`
)

// apiHeader is the header of an /api/ response, with extra name/value pairs
// set.
func apiHeader(extra ...string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", jsonContentType)
	h.Set("X-Request-Id", "4f1c2b")
	h.Set("X-RateLimit-Limit", "60")
	h.Set("X-RateLimit-Remaining", "59")
	h.Set("X-RateLimit-Reset", "1767607260")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	for i := 0; i+1 < len(extra); i += 2 {
		h.Set(extra[i], extra[i+1])
	}
	return h
}

// withoutHeader deletes name from h.
func withoutHeader(h http.Header, name string) http.Header { h.Del(name); return h }

// driftCase is a response to a request, and the mismatch with the document
// expected of it.
type driftCase struct {
	name         string
	method, path string
	reqBody      string
	status       int
	header       http.Header
	body         string
	bad          string // a fragment of the expected mismatch; "" if none
}

// driftCases are responses that keep to the document and responses that
// stray from it.
func driftCases() []driftCase {
	return []driftCase{
		{"job", "GET", "/api/v1/jobs/7", "", 200, apiHeader(), `{"data":` + driftJob + `}`, ""},
		{"job with an extra field", "GET", "/api/v1/jobs/7", "", 200, apiHeader(),
			`{"data":` + strings.Replace(driftJob, `"id":7,`, `"id":7,"team_id":1,`, 1) + `}`, "team_id"},
		{"job with a null description", "GET", "/api/v1/jobs/7", "", 200, apiHeader(),
			`{"data":` + strings.Replace(driftJob, `"<p>Go</p>"`, `null`, 1) + `}`, "description"},
		{"job with an offset timestamp", "GET", "/api/v1/jobs/7", "", 200, apiHeader(),
			`{"data":` + strings.Replace(driftJob, `"created_at":"2026-01-05T10:00:00Z"`, `"created_at":"2026-01-05T11:00:00+01:00"`, 1) + `}`, "created_at"},
		{"job without rate-limit headers", "GET", "/api/v1/jobs/7", "", 200, withoutHeader(apiHeader(), "X-RateLimit-Remaining"),
			`{"data":` + driftJob + `}`, "X-RateLimit-Remaining"},
		{"job without charset", "GET", "/api/v1/jobs/7", "", 200, apiHeader("Content-Type", "application/json"),
			`{"data":` + driftJob + `}`, "Content-Type"},
		{"undocumented status", "GET", "/api/v1/jobs/7", "", 409, apiHeader(), `{"data":` + driftJob + `}`, "status"},
		{"created job", "POST", "/api/v1/jobs", `{"title":"Backend Engineer"}`, 201, apiHeader("Location", "/api/v1/jobs/7"),
			`{"data":` + driftJob + `}`, ""},
		{"created job without Location", "POST", "/api/v1/jobs", `{"title":"Backend Engineer"}`, 201, apiHeader(),
			`{"data":` + driftJob + `}`, "Location"},
		{"created job from a body the document refuses", "POST", "/api/v1/jobs", `{"title":"Backend Engineer","status":"open"}`, 201,
			apiHeader("Location", "/api/v1/jobs/7"), `{"data":` + driftJob + `}`, "rejects"},
		{"candidate list", "GET", "/api/v1/jobs/7/candidates?stage=2", "", 200, apiHeader(), driftCandidates, ""},
		{"candidate list with another page size", "GET", "/api/v1/jobs/7/candidates", "", 200, apiHeader(),
			strings.Replace(driftCandidates, `"per_page":15`, `"per_page":20`, 1), "per_page"},
		{"candidate list with a relative link", "GET", "/api/v1/jobs/7/candidates", "", 200, apiHeader(),
			strings.Replace(driftCandidates, `"first":"http://example.com`, `"first":"`, 1), "first"},
		{"candidate list element with notes_count", "GET", "/api/v1/jobs/7/candidates", "", 200, apiHeader(),
			strings.Replace(driftCandidates, `"status":"active"`, `"status":"active","notes_count":0`, 1), "notes_count"},
		{"candidate", "GET", "/api/v1/jobs/7/candidates/1", "", 200, apiHeader(), `{"data":` + driftCandidate + `}`, ""},
		{"candidate with an empty resume_url", "GET", "/api/v1/jobs/7/candidates/1", "", 200, apiHeader(),
			`{"data":` + strings.Replace(driftCandidate, `"notes_count"`, `"resume_url":"","notes_count"`, 1) + `}`, "resume_url"},
		{"candidate with a null resume_url", "GET", "/api/v1/jobs/7/candidates/1", "", 200, apiHeader(),
			`{"data":` + strings.Replace(driftCandidate, `"notes_count"`, `"resume_url":null,"notes_count"`, 1) + `}`, "resume_url"},
		{"401", "GET", "/api/v1/jobs", "", 401, apiHeader("WWW-Authenticate", "Bearer"), driftUnauthenticated, ""},
		{"401 without WWW-Authenticate", "GET", "/api/v1/jobs", "", 401, apiHeader(), driftUnauthenticated, "WWW-Authenticate"},
		{"401 with another message", "GET", "/api/v1/jobs", "", 401, apiHeader("WWW-Authenticate", "Bearer"),
			strings.Replace(driftUnauthenticated, "Unauthenticated.", "Token expired.", 1), "message"},
		{"403 naming the scope", "GET", "/api/v1/jobs/7", "", 403, apiHeader(),
			`{"error":{"code":"insufficient_scope","message":"m","details":{"required_scope":"jobs:read"}}}`, ""},
		{"403 naming another scope", "GET", "/api/v1/jobs/7", "", 403, apiHeader(),
			`{"error":{"code":"insufficient_scope","message":"m","details":{"required_scope":"jobs:write"}}}`, "required_scope"},
		{"403 plan limit", "POST", "/api/v1/jobs", `{"title":"x"}`, 403, apiHeader(),
			`{"error":{"code":"forbidden","message":"m","details":null}}`, ""},
		{"403 plan limit on reopening", "PATCH", "/api/v1/jobs/7", `{"status":"open"}`, 403, apiHeader(),
			`{"error":{"code":"forbidden","message":"m","details":null}}`, ""},
		{"403 on a job write naming its scope", "PATCH", "/api/v1/jobs/7", `{"status":"open"}`, 403, apiHeader(),
			`{"error":{"code":"insufficient_scope","message":"m","details":{"required_scope":"jobs:write"}}}`, ""},
		{"403 on a job write naming another scope", "POST", "/api/v1/jobs", `{"title":"x"}`, 403, apiHeader(),
			`{"error":{"code":"insufficient_scope","message":"m","details":{"required_scope":"jobs:read"}}}`, "required_scope"},
		{"403 on a job write with another code", "POST", "/api/v1/jobs", `{"title":"x"}`, 403, apiHeader(),
			`{"error":{"code":"not_found","message":"m","details":null}}`, "code"},
		{"403 forbidden with details", "PATCH", "/api/v1/jobs/7", `{"status":"open"}`, 403, apiHeader(),
			`{"error":{"code":"forbidden","message":"m","details":{"required_scope":"jobs:write"}}}`, "details"},
		{"403 forbidden where only the scope is checked", "GET", "/api/v1/jobs/7", "", 403, apiHeader(),
			`{"error":{"code":"forbidden","message":"m","details":null}}`, "code"},
		{"404 error envelope", "GET", "/api/v1/jobs/7", "", 404, apiHeader(), driftNotFound, ""},
		{"404 for a path id that is not an integer", "GET", "/api/v1/jobs/abc", "", 404, apiHeader(), driftNotFound, ""},
		{"error envelope with an extra field", "GET", "/api/v1/jobs/7", "", 404, apiHeader(),
			strings.Replace(driftNotFound, `"details":null`, `"details":null,"trace":"x"`, 1), "trace"},
		{"error envelope with another code", "GET", "/api/v1/jobs/7", "", 404, apiHeader(),
			strings.Replace(driftNotFound, "not_found", "missing", 1), "code"},
		{"422 with field messages", "GET", "/api/v1/jobs?status=OPEN", "", 422, apiHeader(),
			`{"error":{"code":"validation_failed","message":"m","details":{"status":["The selected status is invalid."]}}}`, ""},
		{"422 without details", "GET", "/api/v1/jobs?status=OPEN", "", 422, apiHeader(),
			`{"error":{"code":"validation_failed","message":"m","details":null}}`, "details"},
		{"429 without Retry-After", "GET", "/api/v1/me", "", 429, apiHeader(),
			`{"error":{"code":"rate_limited","message":"Too Many Attempts.","details":null}}`, "Retry-After"},
		{"unknown route", "GET", "/api/v1/nowhere", "", 404, apiHeader(), driftNotFound, ""},
		{"wrong method", "DELETE", "/api/v1/jobs/7", "", 405, apiHeader("Allow", "GET, PATCH"),
			`{"error":{"code":"method_not_allowed","message":"m","details":null}}`, ""},
		{"wrong method without Allow", "DELETE", "/api/v1/jobs/7", "", 405, apiHeader(),
			`{"error":{"code":"method_not_allowed","message":"m","details":null}}`, "Allow"},
		{"healthz", "GET", "/healthz", "", 200, http.Header{"Content-Type": {jsonContentType}, "X-Request-Id": {"a"}, "X-Content-Type-Options": {"nosniff"}},
			`{"status":"ok"}`, ""},
		{"healthz without X-Request-Id", "GET", "/healthz", "", 200, http.Header{"Content-Type": {jsonContentType}, "X-Content-Type-Options": {"nosniff"}},
			`{"status":"ok"}`, "X-Request-Id"},
	}
}

// availabilityDriftCases are drift cases of the headers every response
// carries and of the answers of deadlines and outages.
func availabilityDriftCases() []driftCase {
	return []driftCase{
		{"healthz without nosniff", "GET", "/healthz", "", 200, http.Header{"Content-Type": {jsonContentType}, "X-Request-Id": {"a"}},
			`{"status":"ok"}`, "X-Content-Type-Options"},
		{"job without no-store", "GET", "/api/v1/jobs/7", "", 200, withoutHeader(apiHeader(), "Cache-Control"),
			`{"data":` + driftJob + `}`, "Cache-Control"},
		{"503", "GET", "/api/v1/jobs/7", "", 503, apiHeader("Retry-After", "2"),
			`{"error":{"code":"unavailable","message":"Service temporarily unavailable.","details":null}}`, ""},
		{"503 without Retry-After", "GET", "/api/v1/jobs/7", "", 503, apiHeader(),
			`{"error":{"code":"unavailable","message":"Service temporarily unavailable.","details":null}}`, "Retry-After"},
		{"503 with another message", "GET", "/api/v1/jobs/7", "", 503, apiHeader("Retry-After", "2"),
			`{"error":{"code":"unavailable","message":"Database down.","details":null}}`, "message"},
		{"408 on a write", "POST", "/api/v1/jobs", `{"title":"x"}`, 408, apiHeader(),
			`{"error":{"code":"request_timeout","message":"m","details":null}}`, ""},
		{"408 on a read", "GET", "/api/v1/jobs/7", "", 408, apiHeader(),
			`{"error":{"code":"request_timeout","message":"m","details":null}}`, "status"},
	}
}

// TestOpenAPI_RejectsDrift shows that the check catches a response that
// strays from the document, and passes the ones that keep to it.
func TestOpenAPI_RejectsDrift(t *testing.T) {
	for _, tc := range append(driftCases(), availabilityDriftCases()...) {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.reqBody))
			err := validateExchange(req, []byte(tc.reqBody), tc.status, tc.header, []byte(tc.body))
			switch {
			case tc.bad == "" && err != nil:
				t.Fatalf("rejected a response that keeps to the document: %v", err)
			case tc.bad != "" && err == nil:
				t.Fatalf("accepted a response that strays from the document (%s)", tc.bad)
			case tc.bad != "" && !strings.Contains(err.Error(), tc.bad):
				t.Fatalf("rejected, but not for %s: %v", tc.bad, err)
			}
			if tc.bad == "" {
				checkResponse(t, req, []byte(tc.reqBody), tc.status, tc.header, []byte(tc.body))
			}
		})
	}
}

func TestOpenAPI_YAMLValue(t *testing.T) {
	const src = `
date: 2026-02-04
at: 2026-01-05T10:00:00Z
headers: &h {limit: 60, ok: true, none: null}
again: *h
200: [1.5, "x"]
`
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(src), &root); err != nil {
		t.Fatal(err)
	}
	got, err := yamlValue(&root)
	if err != nil {
		t.Fatal(err)
	}
	headers := map[string]any{"limit": 60, "ok": true, "none": nil}
	want := map[string]any{
		"date":    "2026-02-04", // as written, not a time of day added
		"at":      "2026-01-05T10:00:00Z",
		"headers": headers,
		"again":   headers,
		"200":     []any{1.5, "x"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}

	// A repeated key, a merge key, a key that is not a scalar.
	for _, bad := range []string{"a: 1\na: 2\n", "base: &b {x: 1}\nm:\n  <<: *b\n", "? [1]\n: x\n"} {
		root = yaml.Node{}
		if err := yaml.Unmarshal([]byte(bad), &root); err != nil {
			t.Fatal(err)
		}
		if _, err := yamlValue(&root); err == nil {
			t.Errorf("yamlValue accepted %q", bad)
		}
	}
}
