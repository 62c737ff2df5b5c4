package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The tests below run the real binary, built once per test process, to
// see what an operator sees: the exit status and what goes to stdout and
// to stderr.
var (
	buildOnce sync.Once
	binDir    string
	binErr    error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binary builds cmd/pipelined, once, and returns its path.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "pipelined-test-"); binErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", filepath.Join(binDir, "pipelined"), ".").CombinedOutput()
		if err != nil {
			binErr = errors.New(string(out))
		}
	})
	require.NoError(t, binErr, "go build")
	return filepath.Join(binDir, "pipelined")
}

// result is what a process left: its exit status and output.
type result struct {
	code           int
	stdout, stderr string
}

// pipelined runs the binary with args and env (besides PATH and HOME) in
// a fresh directory, whose default database is pipeline.db there.
func pipelined(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run pipelined %v: %v", args, err)
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errOut.String()}
}

// TestCLI_Help: help, -h and --help print the whole usage on stdout and
// exit 0; so does each command's -h, with its own usage and flags.
func TestCLI_Help(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		r := pipelined(t, nil, args...)
		assert.Equal(t, 0, r.code, args)
		assert.Empty(t, r.stderr, args)
		for _, c := range commands() {
			assert.Contains(t, r.stdout, "  "+c.line()+"\n", args)
		}
		for _, v := range []string{"PIPELINE_DB", "PIPELINE_AUTO_MIGRATE", "PIPELINE_TRUSTED_PROXIES", "PIPELINE_METRICS_ADDR", "OTEL_EXPORTER_OTLP_ENDPOINT"} {
			assert.Contains(t, r.stdout, v, args)
		}
		for line := range strings.Lines(r.stdout) {
			assert.LessOrEqual(t, len(strings.TrimSuffix(line, "\n")), 79, "fits a terminal: %q", line)
		}
	}
	for _, c := range commands() {
		if c.run == nil {
			continue
		}
		args := append(strings.Fields(c.name), "-h")
		r := pipelined(t, nil, args...)
		assert.Equal(t, 0, r.code, args)
		assert.Empty(t, r.stderr, args)
		assert.True(t, strings.HasPrefix(r.stdout, "Usage: "+c.line()+"\n"), "%v: %s", args, r.stdout)
		help := pipelined(t, nil, append([]string{"help"}, strings.Fields(c.name)...)...)
		assert.Equal(t, 0, help.code, "help", c.name)
		assert.True(t, strings.HasPrefix(r.stdout, help.stdout), "help %s is -h without the flags: %s", c.name, help.stdout)
	}
	for _, group := range []string{"token", "team", "user", "proposal"} {
		r := pipelined(t, nil, group, "-h")
		assert.Equal(t, 0, r.code, group)
		assert.Empty(t, r.stderr, group)
		assert.Contains(t, r.stdout, "pipelined "+group+" list", group)
	}
}

// TestCLI_HelpOperations: help operations lists every operation with its
// method, path, scope, and whether it is a tool.
func TestCLI_HelpOperations(t *testing.T) {
	t.Parallel()
	r := pipelined(t, nil, "help", "operations")
	require.Equal(t, 0, r.code, r.stderr)
	rows := map[string][]string{}
	for line := range strings.Lines(r.stdout) {
		if f := strings.Fields(line); len(f) == 6 {
			rows[f[0]] = f[1:]
		}
	}
	assert.Equal(t, []string{"METHOD", "PATH", "SCOPE", "TOOL", "WRITE"}, rows["NAME"])
	for _, op := range pipeline.Ops() {
		require.Contains(t, rows, string(op))
		assert.Equal(t, []string{op.Method(), "/api/v1" + op.Path()}, rows[string(op)][:2], op)
	}
	assert.Equal(t, []string{"POST", "/api/v1/jobs/{job}/candidates/{candidate}/stage", "candidates:write", "yes", "yes"}, rows["move_candidate"])
	assert.Equal(t, []string{"GET", "/api/v1/me", "-", "yes", "no"}, rows["get_me"])
	assert.Equal(t, []string{"DELETE", "/api/v1/webhooks/{webhook}", "webhooks:write", "no", "yes"}, rows["delete_webhook"])
}

// TestCLI_UsageErrors: a mistake in the command line exits 2 with the
// reason and the usage on stderr and nothing on stdout.
func TestCLI_UsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"token"}, "token needs a subcommand"},
		{[]string{"token", "delete", "1"}, `unknown token subcommand "delete"`},
		{[]string{"user"}, "user needs a subcommand"},
		{[]string{"serve", "extra"}, "serve takes no arguments"},
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
		{[]string{"seed"}, "seed takes exactly one FILE"},
		{[]string{"demo", "x"}, "demo takes no arguments"},
		{[]string{"migrate", "now"}, "migrate takes no arguments"},
		{[]string{"token", "create", "--name", "x"}, "token create needs --user, --scopes"},
		{[]string{"token", "revoke", "abc"}, `"abc" is not a token id`},
		{[]string{"team", "create", "--name", "Acme"}, "team create needs --key\n"},
		{[]string{"user", "add", "--email", "a@b.test", "--team", "acme"}, "user add needs"},
		{[]string{"activity", "--limit", "many"}, `invalid value "many" for flag -limit`},
		{[]string{"activity", "--since-id", "-1"}, "--since-id -1 is not an entry id"},
		{[]string{"version", "extra"}, "version takes no arguments"},
	} {
		r := pipelined(t, nil, tc.args...)
		assert.Equal(t, 2, r.code, tc.args)
		assert.Empty(t, r.stdout, tc.args)
		assert.Contains(t, r.stderr, tc.want, tc.args)
		assert.Contains(t, r.stderr, "Usage:", tc.args)
	}
}

// TestCLI_RuntimeErrors: a failure of the work itself exits 1 with the
// reason on stderr, nothing on stdout and no usage.
func TestCLI_RuntimeErrors(t *testing.T) {
	t.Parallel()
	migrated := filepath.Join(t.TempDir(), "pipeline.db")
	r := pipelined(t, map[string]string{"PIPELINE_DB": migrated}, "migrate")
	require.Equal(t, 0, r.code, r.stderr)
	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"PIPELINE_DB": migrated}, []string{"token", "revoke", "9999"}, "pipelined: not_found: Token not found."},
		{map[string]string{"PIPELINE_DB": "missing/dir/pipeline.db"}, []string{"team", "create", "--key", "a", "--name", "A"}, "pipelined: open database:"},
		{map[string]string{"PIPELINE_DB": "missing/dir/pipeline.db"}, []string{"activity"}, "pipelined: no SQLite database at missing/dir/pipeline.db"},
		{map[string]string{"PIPELINE_RATE_LIMIT": "lots"}, []string{"activity"}, "PIPELINE_RATE_LIMIT"},
		{map[string]string{"PIPELINE_AUTO_MIGRATE": "maybe"}, []string{"seed", "-"}, "PIPELINE_AUTO_MIGRATE"},
		{map[string]string{"PIPELINE_TRUSTED_PROXIES": "10.0.0.0/33"}, []string{"serve"}, "PIPELINE_TRUSTED_PROXIES"},
		{map[string]string{"PIPELINE_AUTO_MIGRATE": "false"}, []string{"team", "create", "--key", "a", "--name", "A"}, `run "pipelined migrate" first`},
	} {
		r := pipelined(t, tc.env, tc.args...)
		assert.Equal(t, 1, r.code, tc.args)
		assert.Empty(t, r.stdout, tc.args)
		assert.Contains(t, r.stderr, tc.want, tc.args)
		assert.NotContains(t, r.stderr, "Usage:", tc.args)
	}
}

// TestCLI_Version: one line with the module version, the VCS revision when
// the build recorded one (go build inside a git checkout), the Go version
// and the platform; -json gives the same as an object.
func TestCLI_Version(t *testing.T) {
	t.Parallel()
	r := pipelined(t, nil, "version")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	assert.Regexp(t, regexp.MustCompile(`^pipelined \S+ (revision [0-9a-f]{40}( \(\S+\))?( with uncommitted changes)?|\(no VCS revision recorded\)), go1\.\S+ \w+/\w+\n$`), r.stdout)

	r = pipelined(t, nil, "version", "-json")
	require.Equal(t, 0, r.code, r.stderr)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v))
	// Built from a checkout: "(devel)", or the pseudo-version that go build
	// derives from the revision when it records one.
	assert.Regexp(t, `^(\(devel\)|v\d+\.\d+\.\d+\S*)$`, v["version"])
	assert.Regexp(t, `^go1\.`, v["go_version"])
	for _, k := range []string{"revision", "time", "modified", "platform"} {
		assert.Contains(t, v, k)
	}
	if rev, _ := v["revision"].(string); rev != "" {
		head, err := exec.Command("git", "rev-parse", "HEAD").Output()
		require.NoError(t, err)
		assert.Equal(t, strings.TrimSpace(string(head)), rev)
	}
}

// TestCLI_Output: a command that succeeds writes its result on stdout
// alone and exits 0.
func TestCLI_Output(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PIPELINE_DB": filepath.Join(t.TempDir(), "pipeline.db")}
	r := pipelined(t, env, "migrate")
	assert.Equal(t, 0, r.code)
	assert.Empty(t, r.stderr)
	assert.Contains(t, r.stdout, `"applied":[{"name":"20260101000000_init"`)
	r = pipelined(t, env, "team", "create", "--key", "acme", "--name", "Acme")
	assert.Equal(t, 0, r.code)
	assert.Empty(t, r.stderr)
	assert.JSONEq(t, `{"id":1,"key":"acme","name":"Acme","job_limit":null,"retention_days":0,"retention_days_in_effect":0,"retention_effective_at":null}`, r.stdout)
}

// TestCLI_FlagsAnywhere: a command reads its flags wherever they stand
// among its arguments; after "--" everything is an argument.
func TestCLI_FlagsAnywhere(t *testing.T) {
	t.Parallel()
	seed, err := filepath.Abs("testdata/seed.json")
	require.NoError(t, err)
	db := filepath.Join(t.TempDir(), "x.db")
	r := pipelined(t, nil, "seed", seed, "-db", db)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"teams":{"acme":1}`)

	r = pipelined(t, nil, "token", "create", "--user", "olivia@acme.test", "-db", db, "--name", "ci", "--scopes", "jobs:read")
	require.Equal(t, 0, r.code, r.stderr)
	var tok issuedToken
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &tok))
	r = pipelined(t, nil, "token", "revoke", strconv.FormatInt(tok.ID, 10), "--db="+db)
	require.Equal(t, 0, r.code, r.stderr)
	r = pipelined(t, nil, "token", "list", "--team", "acme", "-db", db)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, jsonLines(t, r.stdout), 2)

	r = pipelined(t, nil, "seed", "-db", db, "--", seed, "-x")
	assert.Equal(t, 2, r.code, "after --, -x is a second FILE")
	assert.Contains(t, r.stderr, "seed takes exactly one FILE")

	r = pipelined(t, nil, "-db", db, "seed", seed)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "pipelined: flags go after the command: pipelined seed")
}

// TestCLI_UnknownCommand: one line on stderr that names the command and
// points to pipelined help, and exit status 2.
func TestCLI_UnknownCommand(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"frobnicate"}, {"help", "frobnicate"}} {
		r := pipelined(t, nil, args...)
		assert.Equal(t, 2, r.code, args)
		assert.Empty(t, r.stdout, args)
		assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
		assert.Contains(t, r.stderr, `"frobnicate"`, args)
		assert.Contains(t, r.stderr, `run "pipelined help"`, args)
	}
}

// TestCLI_MissingFlags: a required flag left out is a mistake in the
// command line: exit 2, the flag named, before the database is opened.
func TestCLI_MissingFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		missing string
	}{
		{[]string{"token", "create"}, "--user, --name, --scopes"},
		{[]string{"token", "create", "--user", "a@b.test", "--scopes", "jobs:read"}, "--name"},
		{[]string{"token", "create", "--user", "a@b.test", "--name", "x"}, "--scopes"},
		{[]string{"token", "list"}, "--team"},
		{[]string{"team", "create", "--key", "acme"}, "--name"},
		{[]string{"team", "create", "--name", "Acme"}, "--key"},
		{[]string{"user", "add", "--email", "a@b.test", "--team", "acme"}, "--role"},
		{[]string{"user", "add", "--team", "acme", "--role", "member"}, "--email"},
		{[]string{"user", "set-role", "--email", "a@b.test", "--role", "admin"}, "--team"},
		{[]string{"user", "remove", "--email", "a@b.test"}, "--team"},
	} {
		r := pipelined(t, nil, tc.args...)
		assert.Equal(t, 2, r.code, tc.args)
		assert.Empty(t, r.stdout, tc.args)
		assert.Contains(t, r.stderr, strings.Join(tc.args[:2], " ")+" needs "+tc.missing+"\n", tc.args)
		assert.Contains(t, r.stderr, "Usage:", tc.args)
	}
}

// TestCLI_RefusedValues: a value of the command line that the domain
// refuses (validation_failed) exits 2 with the domain's words; what the
// database holds (an unknown user) is a failure, exit 1.
func TestCLI_RefusedValues(t *testing.T) {
	t.Parallel()
	seed, err := filepath.Abs("testdata/seed.json")
	require.NoError(t, err)
	env := map[string]string{"PIPELINE_DB": filepath.Join(t.TempDir(), "pipeline.db")}
	require.Equal(t, 0, pipelined(t, env, "seed", seed).code)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"token", "create", "--user", "olivia@acme.test", "--name", "x", "--scopes", "jobs:delete"}, 2, "scopes: Unknown scope jobs:delete."},
		{[]string{"token", "create", "--user", "olivia@acme.test", "--name", " ", "--scopes", ""}, 2, "validation_failed"},
		{[]string{"team", "create", "--key", "two words", "--name", "Two"}, 2, "validation_failed"},
		{[]string{"user", "add", "--email", "new@acme.test", "--team", "acme", "--role", "member"}, 2, "name:"},
		{[]string{"user", "set-role", "--email", "mia@acme.test", "--team", "acme", "--role", "boss"}, 2, "role:"},
		{[]string{"token", "create", "--user", "nobody@acme.test", "--name", "x", "--scopes", ""}, 1, "not_found"},
	} {
		r := pipelined(t, env, tc.args...)
		assert.Equal(t, tc.code, r.code, tc.args)
		assert.Empty(t, r.stdout, tc.args)
		assert.Contains(t, r.stderr, tc.want, tc.args)
		if tc.code == 2 {
			assert.Contains(t, r.stderr, "Run \"pipelined "+strings.Join(tc.args[:2], " ")+" -h\" for its usage.", tc.args)
		}
	}
}

// TestCLI_SeedSyntax: a seed file that is not JSON, or not of the seed's
// shape, is named with the line and column where it goes wrong, and
// loads nothing.
func TestCLI_SeedSyntax(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := map[string]string{"PIPELINE_DB": filepath.Join(dir, "pipeline.db")}
	for name, tc := range map[string]struct{ body, want string }{
		"trailing comma": {"{\n  \"teams\": [\n    {\"key\": \"acme\",}\n  ]\n}\n", "broken.json:3:20: invalid character '}'"},
		"wrong type":     {"{\"teams\": [],\n \"users\": \"olivia\"}", "broken.json:2:18: json: cannot unmarshal string"},
		"cut short":      {"{\"teams\": [\n", "broken.json:2:1: the JSON ends before the seed object does"},
		"two objects":    {"{\"teams\": []}\n\n  {}", "broken.json:3:3: unexpected data after the seed object"},
	} {
		path := filepath.Join(dir, "broken.json")
		require.NoError(t, os.WriteFile(path, []byte(tc.body), 0o600))
		r := pipelined(t, env, "seed", path)
		assert.Equal(t, 1, r.code, name)
		assert.Contains(t, r.stderr, tc.want, name)
		assert.NoFileExists(t, env["PIPELINE_DB"], "%s: nothing opened, nothing loaded", name)
	}
}
