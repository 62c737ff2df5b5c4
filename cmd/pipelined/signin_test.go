package main

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// TestCLI_SignInLink: sign-in-link prints an absolute link on
// PIPELINE_BASE_URL, else on the listen address, that signs the user in
// once.
func TestCLI_SignInLink(t *testing.T) {
	t.Parallel()
	seed, err := filepath.Abs("testdata/seed.json")
	require.NoError(t, err)
	db := filepath.Join(t.TempDir(), "x.db")
	require.Equal(t, 0, pipelined(t, nil, "seed", seed, "-db", db).code)

	r := pipelined(t, map[string]string{"PIPELINE_BASE_URL": "https://hiring.example/people"}, "sign-in-link", "--email", "olivia@acme.test", "-db", db)
	require.Equal(t, 0, r.code, r.stderr)
	m := regexp.MustCompile(`^https://hiring\.example/people/app/sign-in/([A-Za-z0-9_-]{43})\n$`).FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)

	r = pipelined(t, map[string]string{"PIPELINE_ADDR": "0.0.0.0:9911"}, "sign-in-link", "--email", "olivia@acme.test", "-db", db)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `^http://127\.0\.0\.1:9911/app/sign-in/[A-Za-z0-9_-]{43}\n$`, r.stdout)

	r = pipelined(t, nil, "sign-in-link", "--email", "nobody@acme.test", "-db", db)
	assert.Equal(t, 1, r.code)
	assert.Empty(t, r.stdout)

	store, err := pipelinestore.Open(context.Background(), db)
	require.NoError(t, err)
	defer store.Close()
	svc := pipeline.NewService(store)
	_, err = svc.SignIn(context.Background(), m[1])
	require.NoError(t, err, "the printed link signs in")
	_, err = svc.SignIn(context.Background(), m[1])
	assert.ErrorIs(t, err, pipeline.ErrNotFound, "once")
}

// TestReadme_Pages: the demo prints a link that opens the pages as its
// owner.
func TestReadme_Pages(t *testing.T) {
	t.Parallel()
	d := startDemo(t, nil)
	m := regexp.MustCompile(`(?m)^#   (http://\S+/app/sign-in/\S+)$`).FindStringSubmatch(d.srv.stdout.String())
	require.NotNil(t, m, d.srv.stdout.String())
	assert.True(t, strings.HasPrefix(m[1], d.srv.URL), m[1])
	res, err := http.Get(m[1])
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, string(body), "Sign in as <strong>o…@acme.test</strong>")
}

// signInLinkRE is an absolute sign-in link on a loopback address.
var signInLinkRE = regexp.MustCompile(`http://127\.0\.0\.1:\d+/app/sign-in/[A-Za-z0-9_-]{43}`)

// TestDemo_EmailedSignIn: in the demo, "Email me a sign-in link" works:
// the demo's base URL is its own address and its mail goes to the log, so
// the link is printed to the terminal, and it opens the pages.
func TestDemo_EmailedSignIn(t *testing.T) {
	t.Parallel()
	d := startDemo(t, nil)
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	client := &http.Client{Jar: jar}
	get := func(url string) string {
		res, err := client.Get(url)
		require.NoError(t, err)
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		require.Equal(t, http.StatusOK, res.StatusCode, string(body))
		return string(body)
	}
	form := get(d.srv.URL + "/app/sign-in")
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(form)
	require.NotNil(t, csrf)
	before := d.srv.stderr.String()
	res, err := client.PostForm(d.srv.URL+"/app/sign-in", url.Values{"csrf": {csrf[1]}, "email": {"adam@acme.test"}})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)

	link := d.mailedLink(t, before)
	assert.Contains(t, get(link), "Sign in as <strong>a…@acme.test</strong>")
}

// mailedLink waits for a sign-in link in what the demo wrote to its
// terminal after before, a mail's, and returns it.
func (d readmeDemo) mailedLink(t *testing.T, before string) string {
	t.Helper()
	var link string
	require.Eventually(t, func() bool {
		link = signInLinkRE.FindString(strings.TrimPrefix(d.srv.stderr.String(), before))
		return link != ""
	}, 10*time.Second, 10*time.Millisecond, "no sign-in link in the demo's terminal:\n%s", d.srv.stderr.String())
	assert.True(t, strings.HasPrefix(link, d.srv.URL+"/app/sign-in/"), "%s is on the demo's address %s", link, d.srv.URL)
	return link
}

// TestDemo_SignInLinkCommand: the demo prints how to make another sign-in
// link from another shell, and that command prints a link on the demo's
// own address, not on a default port.
func TestDemo_SignInLinkCommand(t *testing.T) {
	t.Parallel()
	d := startDemo(t, nil)
	m := regexp.MustCompile(`(?m)^#   (PIPELINE_\S+ PIPELINE_\S+) go run \./cmd/pipelined sign-in-link --email (\S+)$`).FindStringSubmatch(d.srv.stdout.String())
	require.NotNil(t, m, d.srv.stdout.String())
	env := map[string]string{}
	for _, kv := range strings.Fields(m[1]) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	cli := &Main{t: t, env: env}
	link := strings.TrimSpace(cli.Must("sign-in-link", "--email", m[2]))
	assert.True(t, strings.HasPrefix(link, d.srv.URL+"/app/sign-in/"), "%s is on the demo's address %s", link, d.srv.URL)
	res, err := http.Get(link)
	require.NoError(t, err)
	defer res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
}

// TestCLI_SignInLinkNoPort: a listen address of port 0 names no address a
// link could be on: sign-in-link asks for PIPELINE_BASE_URL.
func TestCLI_SignInLinkNoPort(t *testing.T) {
	t.Parallel()
	m := newMain(t, filepath.Join(t.TempDir(), "x.db"))
	m.Seed("testdata/seed.json")
	out, stderr, err := m.Run("", "sign-in-link", "--email", "olivia@acme.test")
	require.Error(t, err)
	assert.Empty(t, out)
	assert.Contains(t, err.Error()+stderr, "PIPELINE_BASE_URL")
}

// TestServe_LogMailWarns: serve warns at start when mail goes to the log,
// which then holds whole mails, sign-in links included.
func TestServe_LogMailWarns(t *testing.T) {
	t.Parallel()
	m := newMain(t, filepath.Join(t.TempDir(), "x.db"))
	m.env["PIPELINE_SMTP_URL"] = "log:"
	m.env["PIPELINE_MAIL_FROM"] = "Acme Hiring <jobs@acme.example>"
	srv := m.Serve()
	var warned bool
	for _, l := range jsonLines(t, srv.stderr.String()) {
		if l["level"] == "WARN" && strings.Contains(l["msg"].(string), "log:") {
			warned = true
		}
	}
	assert.True(t, warned, "no warning of log: mail:\n%s", srv.stderr.String())
}
