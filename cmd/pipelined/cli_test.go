package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	for _, group := range []string{"token", "team", "user"} {
		r := pipelined(t, nil, group, "-h")
		assert.Equal(t, 0, r.code, group)
		assert.Empty(t, r.stderr, group)
		assert.Contains(t, r.stdout, "pipelined "+group+" list", group)
	}
}

// TestCLI_UsageErrors: a mistake in the command line exits 2 with the
// reason and the usage on stderr and nothing on stdout.
func TestCLI_UsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"token"}, "token needs a subcommand"},
		{[]string{"token", "delete", "1"}, `unknown token subcommand "delete"`},
		{[]string{"user"}, "user needs a subcommand"},
		{[]string{"serve", "extra"}, "serve takes no arguments"},
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
		{[]string{"seed"}, "seed takes exactly one FILE"},
		{[]string{"demo", "x"}, "demo takes no arguments"},
		{[]string{"migrate", "now"}, "migrate takes no arguments"},
		{[]string{"token", "create", "--name", "x"}, "token create needs --user"},
		{[]string{"token", "revoke", "abc"}, `"abc" is not a token id`},
		{[]string{"team", "create", "--name", "Acme"}, "team create needs --key"},
		{[]string{"user", "add", "--email", "a@b.test", "--team", "acme"}, "user add needs"},
		{[]string{"activity", "--limit", "many"}, `invalid value "many" for flag -limit`},
		{[]string{"activity", "--since-id", "-1"}, "--since-id -1 is not an entry id"},
		{[]string{"version", "extra"}, "version takes no arguments"},
		{[]string{"help", "frobnicate"}, `no command "frobnicate"`},
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
		{map[string]string{"PIPELINE_DB": migrated}, []string{"token", "create", "--user", "x@y.test", "--name", "n", "--scopes", "jobs:delete"}, "scopes: Unknown scope jobs:delete."},
		{map[string]string{"PIPELINE_DB": "missing/dir/pipeline.db"}, []string{"activity"}, "pipelined: open database:"},
		{map[string]string{"PIPELINE_RATE_LIMIT": "lots"}, []string{"activity"}, "PIPELINE_RATE_LIMIT"},
		{map[string]string{"PIPELINE_AUTO_MIGRATE": "maybe"}, []string{"seed", "-"}, "PIPELINE_AUTO_MIGRATE"},
		{map[string]string{"PIPELINE_TRUSTED_PROXIES": "10.0.0.0/33"}, []string{"serve"}, "PIPELINE_TRUSTED_PROXIES"},
		{map[string]string{"PIPELINE_AUTO_MIGRATE": "false"}, []string{"activity"}, `run "pipelined migrate" first`},
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
	assert.JSONEq(t, `{"id":1,"key":"acme","name":"Acme","job_limit":null}`, r.stdout)
}
