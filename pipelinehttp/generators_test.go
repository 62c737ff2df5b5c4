package pipelinehttp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// toolsModFile is the go.mod of the module that pins the client generators
// (tool directive), kept apart so that they stay out of this module's
// go.mod; `go tool -modfile` runs them from it.
var toolsModFile = filepath.Join("..", ".ci", "tools", "go.mod")

// generators are the Go client generators pinned in toolsModFile, each
// with the arguments that write a package named client into the directory
// out from the document doc.
var generators = []struct {
	name string
	args func(doc, out string) []string
}{
	{"oapi-codegen", func(doc, out string) []string {
		return []string{"oapi-codegen", "-generate", "types,client", "-package", "client", "-o", filepath.Join(out, "client.gen.go"), doc}
	}},
	{"ogen", func(doc, out string) []string {
		return []string{"ogen", "--target", out, "--package", "client", "--clean", doc}
	}},
}

// TestOpenAPI_Generators generates a client from the served document with
// each generator, and builds and vets it unedited in a throwaway module
// together with a program (testdata/clientcheck) that declares the typed
// code, message and details of the error bodies and decodes real error
// answers of the server through the client.
func TestOpenAPI_Generators(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two generators and their output")
	}
	dir := t.TempDir()
	doc := filepath.Join(dir, "openapi.json")
	require.NoError(t, os.WriteFile(doc, servedDocument(t), 0o644))
	answers := filepath.Join(dir, "answers.json")
	require.NoError(t, os.WriteFile(answers, recordJobWriteErrors(t), 0o644))
	module := throwawayModule(t, filepath.Join(dir, "module"))

	for _, g := range generators {
		t.Run(g.name, func(t *testing.T) {
			pkg := filepath.Join(module, g.name)
			tool := []string{"tool", "-modfile=" + toolsModFile}
			goCommand(t, ".", nil, append(tool, g.args(doc, filepath.Join(pkg, "client"))...)...)
			check, err := os.ReadFile(filepath.Join("testdata", "clientcheck", g.name, "main.go"))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(pkg, "main.go"), check, 0o644))

			// -mod=mod lets the throwaway module add the checksums of the
			// generated code's run-time modules that the project's go.sum
			// files do not hold.
			env := []string{"GOFLAGS=" + strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"), "GOWORK=off"}
			goCommand(t, module, env, "vet", "./"+g.name+"/...")
			out := goCommand(t, module, env, "run", "./"+g.name, answers)
			t.Log(strings.TrimSpace(out))
		})
	}
}

// servedDocument is the body of GET /api/v1/openapi.json.
func servedDocument(t *testing.T) []byte {
	t.Helper()
	rec := httptest.NewRecorder()
	New(pipeline.NewService(nil), Config{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/openapi.json", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	return rec.Body.Bytes()
}

// recordedAnswer is a response as the check programs replay it.
type recordedAnswer struct {
	Status int
	Header http.Header
	Body   string
}

// recordJobWriteErrors records, as JSON keyed by error code, the error
// answers of PATCH /api/v1/jobs/{job} from the real engine, each checked
// against the document on the way.
func recordJobWriteErrors(t *testing.T) []byte {
	t.Helper()
	e := newEnv(t, storetest.OpenSQLite(t))
	olivia := e.token("olivia")
	fillJobLimit(t, e, olivia)
	backend, archive := jobPath(e.Job("backend")), jobPath(e.Job("archive"))
	answers := map[string]recordedAnswer{}
	for code, r := range map[string]*Response{
		pipeline.EForbidden:         e.do(t, "PATCH", archive, olivia, map[string]any{"status": "open"}),
		pipeline.EInsufficientScope: e.do(t, "PATCH", backend, e.token("olivia_jobs_read"), map[string]any{"status": "open"}),
		pipeline.ENotFound:          e.do(t, "PATCH", jobPath(999999), olivia, map[string]any{"status": "open"}),
		pipeline.EValidation:        e.do(t, "PATCH", backend, olivia, map[string]any{}),
		pipeline.EUnauthenticated:   e.do(t, "PATCH", backend, "", map[string]any{"status": "open"}),
	} {
		require.Equal(t, code, r.ErrorCode(), "%s", r.Body)
		answers[code] = recordedAnswer{Status: r.Code, Header: r.Header, Body: string(r.Body)}
	}
	b, err := json.Marshal(answers)
	require.NoError(t, err)
	return b
}

// throwawayModule makes a module named gencheck in dir with the
// requirements and checksums of this module and of the generators' module,
// so that generated code builds against the versions the project pins: the
// oapi-codegen client's run-time module is pinned here, ogen's in the
// generators' module.
func throwawayModule(t *testing.T, dir string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	mod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	require.NoError(t, err)
	mod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(mod, []byte("module gencheck"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), mod, 0o644))
	var sums []byte
	for _, f := range []string{filepath.Join("..", "go.sum"), strings.TrimSuffix(toolsModFile, ".mod") + ".sum"} {
		sum, err := os.ReadFile(f)
		require.NoError(t, err)
		sums = append(sums, sum...)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sums, 0o644))

	pinned := map[string]bool{}
	for _, r := range requirements(t, filepath.Join("..", "go.mod")) {
		pinned[r.Path] = true
	}
	edit := []string{"mod", "edit"}
	for _, r := range requirements(t, toolsModFile) {
		if !pinned[r.Path] {
			edit = append(edit, "-require="+r.Path+"@"+r.Version)
		}
	}
	goCommand(t, dir, []string{"GOWORK=off"}, edit...)
	return dir
}

// requirement is a module a go.mod file requires.
type requirement struct{ Path, Version string }

// requirements lists what the go.mod file at path requires.
func requirements(t *testing.T, path string) []requirement {
	t.Helper()
	var mod struct{ Require []requirement }
	require.NoError(t, json.Unmarshal([]byte(goCommand(t, ".", nil, "mod", "edit", "-json", path)), &mod))
	return mod.Require
}

// goCommand runs the go command in dir with env added and returns its
// output; it fails t, showing the output, when the command fails.
func goCommand(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go %s:\n%s", strings.Join(args, " "), out)
	return string(out)
}
