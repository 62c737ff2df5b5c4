package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The tests below keep the README and the help text true: they run the
// README's commands and code as a reader would, against the real server.

// demoBase is where the README's curl lines reach the demo.
const demoBase = "http://127.0.0.1:8080"

// block is a fenced code block of a Markdown file, with the heading of
// the section it stands in.
type block struct {
	lang, section, text string
}

// readmeBlocks returns the README's code blocks in their order.
func readmeBlocks(t *testing.T) []block {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	var out []block
	var section string
	var cur *block
	for line := range strings.Lines(string(raw)) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case cur != nil && line == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		case strings.HasPrefix(line, "```"):
			cur = &block{lang: strings.TrimPrefix(line, "```"), section: section}
		case strings.HasPrefix(line, "## "):
			section = strings.TrimPrefix(line, "## ")
		}
	}
	require.Nil(t, cur, "README: a code block is not closed")
	return out
}

// sectionBlocks returns the blocks of one language in the sections whose
// headings start with one of prefixes.
func sectionBlocks(t *testing.T, lang string, prefixes ...string) []block {
	t.Helper()
	var out []block
	for _, b := range readmeBlocks(t) {
		for _, p := range prefixes {
			if b.lang == lang && strings.HasPrefix(b.section, p) {
				out = append(out, b)
				break
			}
		}
	}
	require.NotEmpty(t, out, "README: no %s block in %q", lang, prefixes)
	return out
}

// shellLines returns the command lines of sh blocks, continuation lines
// joined and comments left out.
func shellLines(blocks []block) []string {
	var out []string
	for _, b := range blocks {
		joined := strings.ReplaceAll(b.text, "\\\n", " ")
		for line := range strings.Lines(joined) {
			line = strings.TrimSpace(line)
			if line != "" && !strings.HasPrefix(line, "#") {
				out = append(out, line)
			}
		}
	}
	return out
}

// curlLines returns the curl commands of the README's sh blocks in the
// sections named.
func curlLines(t *testing.T, sections ...string) []string {
	t.Helper()
	var out []string
	for _, line := range shellLines(sectionBlocks(t, "sh", sections...)) {
		if strings.HasPrefix(line, "curl ") {
			out = append(out, line)
		}
	}
	require.NotEmpty(t, out, "README: no curl line in %q", sections)
	return out
}

// shellWords splits a command line as a POSIX shell would for the simple
// commands the README shows: words, single and double quotes, $NAME and
// ${NAME} from env. Anything else (pipes, substitutions) is refused, so
// that the README does not show what this test cannot run.
func shellWords(line string, env map[string]string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	expand := func(s string) (string, error) {
		var err error
		out := regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?`).ReplaceAllStringFunc(s, func(v string) string {
			name := strings.Trim(v, "${}")
			val, ok := env[name]
			if !ok {
				err = fmt.Errorf("%s is not set", name)
			}
			return val
		})
		return out, err
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
			continue
		case c == '\'' || c == '"':
			j := strings.IndexByte(line[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unterminated %c", c)
			}
			s := line[i+1 : i+1+j]
			if c == '"' {
				if strings.ContainsAny(s, "\\`") {
					return nil, errors.New("escapes in double quotes are not supported")
				}
				var err error
				if s, err = expand(s); err != nil {
					return nil, err
				}
			}
			cur.WriteString(s)
			i += j + 1
		case c == '$':
			m := regexp.MustCompile(`^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?`).FindString(line[i:])
			s, err := expand(m)
			if m == "" || err != nil {
				return nil, fmt.Errorf("unsupported expansion at %q: %v", line[i:], err)
			}
			cur.WriteString(s)
			i += len(m) - 1
		case strings.IndexByte("|&;<>()`\\*?", c) >= 0:
			return nil, fmt.Errorf("shell syntax %q is not supported", c)
		default:
			cur.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// curlRequest builds the request that curl would send for words, the
// demo's address replaced by base. It knows the flags the README uses and
// refuses others.
func curlRequest(words []string, base string) (*http.Request, error) {
	if len(words) == 0 || words[0] != "curl" {
		return nil, fmt.Errorf("not a curl command: %q", words)
	}
	method, target, body := "", "", ""
	var hasBody bool
	header := http.Header{}
	for i := 1; i < len(words); i++ {
		w := words[i]
		next := func() (string, error) {
			if i+1 >= len(words) {
				return "", fmt.Errorf("%s needs a value", w)
			}
			i++
			return words[i], nil
		}
		var err error
		switch w {
		case "-s", "--silent", "-f", "--fail":
		case "-X", "--request":
			method, err = next()
		case "-H", "--header":
			var h string
			if h, err = next(); err == nil {
				name, value, ok := strings.Cut(h, ":")
				if !ok {
					return nil, fmt.Errorf("header %q", h)
				}
				header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
			}
		case "-d", "--data":
			body, err = next()
			hasBody = true
		default:
			if strings.HasPrefix(w, "-") || target != "" {
				return nil, fmt.Errorf("curl argument %q is not one this test knows", w)
			}
			target = w
		}
		if err != nil {
			return nil, err
		}
	}
	if !strings.HasPrefix(target, demoBase+"/") {
		return nil, fmt.Errorf("%q does not reach the demo at %s", target, demoBase)
	}
	if method == "" {
		method = "GET"
		if hasBody {
			method = "POST"
		}
	}
	req, err := http.NewRequest(method, base+strings.TrimPrefix(target, demoBase), strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = header
	if hasBody && header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	return req, nil
}

// readmeDemo is a running pipelined demo, as the README starts it.
type readmeDemo struct {
	srv *Server
	env map[string]string // the shell's: PIPELINE_TOKEN exported
}

// startDemo runs pipelined demo in-process with env, and exports its token
// as the demo's output says.
func startDemo(t *testing.T, env map[string]string) readmeDemo {
	t.Helper()
	m := newMain(t, filepath.Join(t.TempDir(), "ignored.db"))
	maps.Copy(m.env, env)
	srv := m.Start("demo")
	export := regexp.MustCompile(`(?m)^export PIPELINE_TOKEN=(\S+)$`).FindStringSubmatch(srv.stdout.String())
	require.NotNil(t, export, "demo output:\n%s", srv.stdout)
	require.True(t, pipeline.WellFormedToken(export[1]))
	return readmeDemo{srv: srv, env: map[string]string{"PIPELINE_TOKEN": export[1]}}
}

// curl runs one of the README's curl lines against the demo, with edit
// applied to its words first, and returns the status and the body.
func (d readmeDemo) curl(t *testing.T, line string, edit func(string) string) (int, string) {
	t.Helper()
	words, err := shellWords(line, d.env)
	require.NoError(t, err, line)
	if edit != nil {
		for i := range words {
			words[i] = edit(words[i])
		}
	}
	req, err := curlRequest(words, d.srv.URL)
	require.NoError(t, err, line)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err, line)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// exportedEnv reads the variables of the export lines of sh blocks.
func exportedEnv(t *testing.T, blocks []block) map[string]string {
	t.Helper()
	env := map[string]string{}
	for _, line := range shellLines(blocks) {
		if rest, ok := strings.CutPrefix(line, "export "); ok {
			for _, kv := range strings.Fields(rest) {
				k, v, ok := strings.Cut(kv, "=")
				require.True(t, ok, line)
				env[k] = v
			}
		}
	}
	return env
}

// TestReadme_Commands: the README names the two commands to start with
// literally, and its links stay in the repository or go to public URLs.
func TestReadme_Commands(t *testing.T) {
	t.Parallel()
	start := shellLines(sectionBlocks(t, "sh", "Start here"))
	assert.Contains(t, start, "go run ./cmd/pipelined demo")
	assert.Contains(t, start, "go test ./...")

	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, doc := range []string{"README.md", ".ci/README.md", "cmd/pipelinebench/README.md"} {
		raw, err := os.ReadFile(filepath.Join(root, doc))
		require.NoError(t, err)
		for _, m := range link.FindAllStringSubmatch(string(raw), -1) {
			target := m[1]
			if strings.HasPrefix(target, "https://") || strings.HasPrefix(target, "#") {
				continue
			}
			path := filepath.Join(root, filepath.Dir(doc), strings.SplitN(target, "#", 2)[0])
			assert.True(t, strings.HasPrefix(path, root+string(filepath.Separator)) || path == root,
				"%s: %s leaves the repository", doc, target)
			_, err := os.Stat(path)
			assert.NoError(t, err, "%s: %s", doc, target)
		}
	}
	if lines := strings.Count(string(must(os.ReadFile(filepath.Join(root, "README.md")))), "\n"); lines > 200 {
		t.Errorf("README.md has %d lines: the reference lives in pipelined help, the OpenAPI document and the godoc", lines)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestReadme_Curl: every curl line of the README, run in order against a
// demo started as the README says, answers 2xx with what the README
// promises.
func TestReadme_Curl(t *testing.T) {
	t.Parallel()
	d := startDemo(t, exportedEnv(t, sectionBlocks(t, "sh", "Webhooks")))
	for _, line := range curlLines(t, "Start here", "Webhooks", "MCP") {
		status, body := d.curl(t, line, nil)
		require.True(t, status >= 200 && status < 300, "%s\n%d %s", line, status, body)
		if status == http.StatusAccepted && body == "" {
			continue // a JSON-RPC notification
		}
		require.True(t, json.Valid([]byte(body)), "%s: %s", line, body)
		path := strings.Fields(strings.SplitN(line, "http://127.0.0.1:8080", 2)[1])[0]
		switch {
		case strings.HasPrefix(path, "/api/v1/me"):
			assert.Contains(t, body, `"email":"olivia@acme.test"`)
		case strings.Contains(path, "search="):
			assert.Contains(t, body, `"name":"Ada Lovelace"`, line)
			assert.Contains(t, body, `"total":1`, line)
		case strings.HasSuffix(path, "/candidates/1/stage"):
			assert.Contains(t, body, `"stage":"Screening"`, line)
		case strings.HasSuffix(path, "/candidates/2/stage"):
			assert.Contains(t, body, `"stage":"Interview"`, line)
		case strings.HasPrefix(path, "/api/v1/activity"):
			assert.Contains(t, body, `"action":"candidate.stage_changed"`, line)
		case strings.HasPrefix(path, "/api/v1/webhooks"):
			assert.Contains(t, body, `"secret":"whsec_`, line)
		case strings.HasPrefix(path, "/mcp"):
			checkMCPAnswer(t, line, d.env, body)
		default:
			t.Errorf("a curl line no case checks: %s", line)
		}
	}
}

// checkMCPAnswer checks the JSON-RPC answer to one of the README's MCP
// curl lines: no error, the version asked for, the tools, a tool's result.
func checkMCPAnswer(t *testing.T, line string, env map[string]string, body string) {
	t.Helper()
	words, err := shellWords(line, env)
	require.NoError(t, err)
	var call struct {
		Method string
		Params struct{ ProtocolVersion, Name string }
	}
	require.NoError(t, json.Unmarshal([]byte(words[slices.Index(words, "-d")+1]), &call))
	var answer struct {
		Error  any
		Result struct {
			ProtocolVersion   string
			Tools             []struct{ Name string }
			IsError           bool
			StructuredContent struct{ Data []any }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &answer), body)
	require.Nil(t, answer.Error, "%s: %s", call.Method, body)
	switch call.Method {
	case "initialize":
		assert.Equal(t, call.Params.ProtocolVersion, answer.Result.ProtocolVersion, "the version asked for")
	case "tools/list":
		assert.NotEmpty(t, answer.Result.Tools)
	case "tools/call":
		assert.False(t, answer.Result.IsError, body)
		assert.NotEmpty(t, answer.Result.StructuredContent.Data, body)
	default:
		t.Errorf("an MCP call no case checks: %s", call.Method)
	}
}

// TestReadme_MCPVersions: each protocol version the README names is one
// that initialize negotiates (asked for, it comes back), and the first,
// the newest, answers a version the server does not know.
func TestReadme_MCPVersions(t *testing.T) {
	t.Parallel()
	raw := string(must(os.ReadFile(filepath.Join("..", "..", "README.md"))))
	claim := regexp.MustCompile("(?s)`initialize` negotiates the protocol versions(.*?)\\. ").FindStringSubmatch(raw)
	require.NotNil(t, claim, "README: the sentence naming the protocol versions")
	var versions []string
	for _, m := range regexp.MustCompile("`(\\d{4}-\\d\\d-\\d\\d)`").FindAllStringSubmatch(claim[1], -1) {
		versions = append(versions, m[1])
	}
	require.NotEmpty(t, versions)
	d := startDemo(t, nil)
	initialize := func(version string) string {
		req, err := http.NewRequest("POST", d.srv.URL+"/mcp", strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+d.env["PIPELINE_TOKEN"])
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var answer struct {
			Result struct{ ProtocolVersion string }
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&answer))
		return answer.Result.ProtocolVersion
	}
	for _, v := range versions {
		assert.Equal(t, v, initialize(v), "the README says initialize negotiates %s", v)
	}
	assert.Equal(t, versions[0], initialize("1999-01-01"), "the newest answers a version it does not know")
}

// TestReadme_Seed: the README's seed file, and the one in pipelined help
// seed, load as they stand.
func TestReadme_Seed(t *testing.T) {
	t.Parallel()
	readme := sectionBlocks(t, "json", "A world from a file")[0].text
	var help strings.Builder
	for line := range strings.Lines(indent(seedDoc, "")) {
		if strings.HasPrefix(line, "  ") {
			help.WriteString(line)
		}
	}
	require.True(t, json.Valid([]byte(help.String())), "pipelined help seed: the example is JSON:\n%s", help.String())
	for name, file := range map[string]string{"README": readme, "help": help.String()} {
		eachCase(t, name, func(t *testing.T, m *Main) {
			path := filepath.Join(t.TempDir(), "world.json")
			require.NoError(t, os.WriteFile(path, []byte(file), 0o600))
			res := m.Seed(path)
			assert.Equal(t, map[string]int64{"acme": 1}, res.Teams)
			assert.Equal(t, map[string]int64{"ada": 1}, res.Candidates)
			assert.Len(t, res.Stages["backend"], 5)
			assert.True(t, pipeline.WellFormedToken(res.Tokens["olivia_bot"]))
		})
	}
}

// TestHelp_Environment: pipelined help has an entry for every PIPELINE_*
// variable that the code of pipelined reads.
func TestHelp_Environment(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	read := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src := must(os.ReadFile(f))
		for _, m := range regexp.MustCompile(`"(PIPELINE_[A-Z0-9_]+)"`).FindAllStringSubmatch(string(src), -1) {
			read[m[1]] = true
		}
	}
	require.Greater(t, len(read), 10, "the variables pipelined reads")
	help := usage()
	for v := range read {
		assert.Regexp(t, `(?m)^  `+v+`\b`, help, "pipelined help has no entry for %s", v)
	}
}

// TestReadme_WebhookRecipe: the README's local webhook recipe, followed as
// written: the demo with its environment, the curl that subscribes a
// receiver, the example receiver it names (examples/webhookreceiver), copied
// out of the module and run as it stands with the secret, and the
// curl that moves a candidate; the receiver verifies the real delivery and
// refuses a forged one.
func TestReadme_WebhookRecipe(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"go", "python"} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			src := map[string]string{"go": "main.go", "python": "receiver.py"}[lang]
			code := string(must(os.ReadFile(filepath.Join("..", "..", "examples", "webhookreceiver", src))))
			run := map[string]string{"go": "go run ./examples/webhookreceiver", "python": "python3 examples/webhookreceiver/receiver.py"}[lang]
			require.Contains(t, string(must(os.ReadFile(filepath.Join("..", "..", "README.md")))), run, "the README says how to start the receiver")
			curls := curlLines(t, "Webhooks")
			require.Len(t, curls, 2, "subscribe, then move")
			subscribe, move := curls[0], curls[1]
			// The receiver the curl subscribes is the one the code starts.
			at := regexp.MustCompile(`"url": "http://([^/"]+)/hook"`).FindStringSubmatch(subscribe)
			require.NotNil(t, at, subscribe)
			require.Contains(t, code, `"`+at[1]+`"`, "the receiver listens where the webhook points")

			d := startDemo(t, exportedEnv(t, sectionBlocks(t, "sh", "Webhooks")))
			addr := freeAddr(t)
			status, body := d.curl(t, subscribe, func(w string) string { return strings.ReplaceAll(w, at[1], addr) })
			require.Equal(t, http.StatusCreated, status, body)
			var created struct{ Data struct{ Secret string } }
			require.NoError(t, json.Unmarshal([]byte(body), &created))

			verified := startReceiver(t, lang, code, map[string]string{"WEBHOOK_SECRET": created.Data.Secret, "RECEIVER_ADDR": addr})
			forged, err := http.NewRequest("POST", "http://"+addr+"/hook", strings.NewReader(`{"type":"candidate.stage_changed"}`))
			require.NoError(t, err)
			forged.Header.Set("webhook-id", "msg_forged")
			forged.Header.Set("webhook-timestamp", fmt.Sprint(time.Now().Unix()))
			forged.Header.Set("webhook-signature", "v1,"+strings.Repeat("A", 43)+"=")
			resp, err := http.DefaultClient.Do(forged)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "a forged signature is refused")

			status, body = d.curl(t, move, nil)
			require.Equal(t, http.StatusOK, status, body)
			select {
			case line := <-verified:
				id, msg, ok := strings.Cut(strings.TrimPrefix(line, "verified "), ": ")
				require.True(t, ok, line)
				assert.NotEqual(t, "msg_forged", id)
				var m struct {
					Type string
					Data struct{ Changes map[string]map[string]string }
				}
				require.NoError(t, json.Unmarshal([]byte(msg), &m), msg)
				assert.Equal(t, "candidate.stage_changed", m.Type)
				assert.Equal(t, map[string]string{"before": "Applied", "after": "Interview"}, m.Data.Changes["stage"])
			case <-time.After(30 * time.Second):
				t.Fatalf("the receiver verified no delivery\n%s", d.srv.stderr)
			}
		})
	}
}

// freeAddr is a loopback address with a port free at the time.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

// startReceiver runs the example receiver's code in lang with env until the
// test ends, once it listens, and hands on the lines it prints that start
// with "verified ".
func startReceiver(t *testing.T, lang, code string, env map[string]string) <-chan string {
	t.Helper()
	dir := t.TempDir()
	var cmd *exec.Cmd
	switch lang {
	case "go":
		src := filepath.Join(dir, "receiver.go")
		require.NoError(t, os.WriteFile(src, []byte(code), 0o600))
		bin := filepath.Join(dir, "receiver")
		build := exec.Command("go", "build", "-o", bin, src)
		build.Dir = dir // outside the module, as a reader's receiver.go stands
		out, err := build.CombinedOutput()
		require.NoError(t, err, "the example Go receiver builds as it stands:\n%s", out)
		cmd = exec.Command(bin)
	case "python":
		python, err := exec.LookPath("python3")
		if err != nil {
			t.Skip("python3 is not on PATH: the example Python receiver is not run")
		}
		src := filepath.Join(dir, "receiver.py")
		require.NoError(t, os.WriteFile(src, []byte(code), 0o600))
		cmd = exec.Command(python, src)
	}
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = io.Discard
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	verified := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "verified ") {
				verified <- sc.Text()
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		conn, err := net.Dial("tcp", env["RECEIVER_ADDR"])
		if err == nil {
			conn.Close()
			return verified
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the %s receiver does not listen on %s", lang, env["RECEIVER_ADDR"])
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestReadme_ReceiverEnvironment: the README names every variable the
// example receiver it starts reads, in either language, so that a reader
// can move it off its default address.
func TestReadme_ReceiverEnvironment(t *testing.T) {
	t.Parallel()
	readme := string(must(os.ReadFile(filepath.Join("..", "..", "README.md"))))
	read := map[string]bool{}
	for _, src := range []string{"main.go", "receiver.py"} {
		code := string(must(os.ReadFile(filepath.Join("..", "..", "examples", "webhookreceiver", src))))
		for _, m := range regexp.MustCompile(`(?:Getenv\(|environ\[|environ\.get\()"([A-Z0-9_]+)"`).FindAllStringSubmatch(code, -1) {
			read[m[1]] = true
		}
	}
	require.Equal(t, []string{"RECEIVER_ADDR", "WEBHOOK_SECRET"}, slices.Sorted(maps.Keys(read)), "the variables the receiver reads")
	for v := range read {
		assert.True(t, strings.Contains(readme, "`"+v), "the README names %s", v)
	}
}
