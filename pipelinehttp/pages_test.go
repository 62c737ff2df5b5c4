package pipelinehttp_test

import (
	"context"
	"io"
	"mime/quotedprintable"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	netmail "net/mail"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/mail"
	"github.com/pipeline-dev/pipeline/pipeline/mail/mailtest"
	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// browser is an HTTP client with cookies that follows no redirect, so
// that a test sees each answer.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newBrowser(t *testing.T, base string) *browser {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &browser{t: t, base: base, c: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type page struct {
	*http.Response
	body string
}

func (b *browser) get(path string) page {
	b.t.Helper()
	res, err := b.c.Get(b.base + path)
	require.NoError(b.t, err)
	return read(b.t, res)
}

func (b *browser) post(path string, form url.Values) page {
	b.t.Helper()
	res, err := b.c.PostForm(b.base+path, form)
	require.NoError(b.t, err)
	return read(b.t, res)
}

func read(t *testing.T, res *http.Response) page {
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return page{res, string(body)}
}

// field is the value of a form's hidden input.
func (p page) field(t *testing.T, name string) string {
	t.Helper()
	m := regexp.MustCompile(`name="` + name + `" value="([^"]+)"`).FindStringSubmatch(p.body)
	require.NotNil(t, m, "no %s field in %s", name, p.body)
	return m[1]
}

func cookieOf(res *http.Response, name string) *http.Cookie {
	for _, c := range res.Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// servePages serves the fixture world with New on a real server.
func servePages(t *testing.T, db *pipelinestore.DB, cfg pipelinehttp.Config, opts ...pipeline.Option) (storetest.Fixture, string) {
	f := storetest.Seeded(t, db, opts...)
	srv := httptest.NewServer(pipelinehttp.New(f.Svc, cfg))
	t.Cleanup(srv.Close)
	return f, srv.URL
}

func TestPages_SignIn(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f, base := servePages(t, db, pipelinehttp.Config{})
		b := newBrowser(t, base)

		res := b.get("/app/tokens")
		assert.Equal(t, http.StatusSeeOther, res.StatusCode, "signed out")
		assert.Equal(t, "/app/sign-in", res.Header.Get("Location"))

		form := b.get("/app/sign-in")
		require.Equal(t, http.StatusOK, form.StatusCode)
		csp := form.Header.Get("Content-Security-Policy")
		assert.Contains(t, csp, "frame-ancestors 'none'")
		assert.Contains(t, csp, "default-src 'none'")
		assert.NotContains(t, csp, "unsafe-inline")
		assert.Equal(t, "same-origin", form.Header.Get("Referrer-Policy"))
		assert.Contains(t, form.body, `name="viewport"`)
		pre := cookieOf(form.Response, "pipeline_csrf")
		require.NotNil(t, pre)
		assert.True(t, pre.HttpOnly)
		assert.Equal(t, http.SameSiteLaxMode, pre.SameSite)
		assert.False(t, pre.Secure, "no https base URL")
		csrf := form.field(t, "csrf")

		// A POST without the form's token is refused.
		assert.Equal(t, http.StatusForbidden, b.post("/app/sign-in", url.Values{"email": {"olivia@acme.test"}}).StatusCode)
		known := b.post("/app/sign-in", url.Values{"email": {"olivia@acme.test"}, "csrf": {csrf}})
		unknown := b.post("/app/sign-in", url.Values{"email": {"nobody@acme.test"}, "csrf": {csrf}})
		assert.Equal(t, http.StatusOK, known.StatusCode)
		assert.Equal(t, known.body, unknown.body, "the same answer whether or not the email is known")
		assert.Contains(t, known.body, "If this address belongs to an account")

		secret, err := f.Op.SignInLink(context.Background(), "olivia@acme.test")
		require.NoError(t, err)
		link := b.get("/app/sign-in/" + secret)
		require.Equal(t, http.StatusOK, link.StatusCode)
		assert.Contains(t, link.body, "Sign in as <strong>o…@acme.test</strong>")
		assert.Equal(t, http.StatusOK, b.get("/app/sign-in/"+secret).StatusCode, "opening it used nothing up")

		forged := b.post("/app/sign-in/"+secret, url.Values{"csrf": {"forged"}})
		assert.Equal(t, http.StatusForbidden, forged.StatusCode)
		assert.Nil(t, cookieOf(forged.Response, pipelinehttp.SessionCookie))

		in := b.post("/app/sign-in/"+secret, url.Values{"csrf": {link.field(t, "csrf")}})
		require.Equal(t, http.StatusSeeOther, in.StatusCode, in.body)
		assert.Equal(t, "/app/", in.Header.Get("Location"))
		sess := cookieOf(in.Response, pipelinehttp.SessionCookie)
		require.NotNil(t, sess)
		assert.True(t, sess.HttpOnly)
		assert.Equal(t, http.SameSiteLaxMode, sess.SameSite)

		again := newBrowser(t, base)
		used := again.get("/app/sign-in/" + secret)
		assert.Equal(t, http.StatusNotFound, used.StatusCode)
		assert.Contains(t, used.body, "used or expired")

		tokens := b.get("/app/")
		assert.Equal(t, http.StatusSeeOther, tokens.StatusCode)
		tokens = b.get("/app/tokens")
		require.Equal(t, http.StatusOK, tokens.StatusCode)
		assert.Contains(t, tokens.body, "Olivia Owner")

		// Signing out ends the session: its cookie no longer signs in.
		out := b.post("/app/sign-out", url.Values{"csrf": {tokens.field(t, "csrf")}})
		assert.Equal(t, http.StatusSeeOther, out.StatusCode)
		_, _, err = f.Svc.ResumeSession(context.Background(), sess.Value, "")
		assert.ErrorIs(t, err, pipeline.ErrUnauthenticated)
	})
}

func TestPages_Tokens(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f, base := servePages(t, db, pipelinehttp.Config{})
		b := signIn(t, f, base, "mia@acme.test")
		tokens := b.get("/app/tokens")
		csrf, nonce := tokens.field(t, "csrf"), tokens.field(t, "nonce")
		count := func() int {
			l, err := f.Op.TeamTokens(context.Background(), f.Res.Teams["acme"])
			require.NoError(t, err)
			return len(l)
		}
		before := count()

		create := url.Values{"name": {"agent"}, "scope": {"jobs:read"}, "nonce": {nonce}, "csrf": {"forged"}}
		assert.Equal(t, http.StatusForbidden, b.post("/app/tokens", create).StatusCode)
		assert.Equal(t, before, count(), "a forged form does nothing")

		create.Set("csrf", csrf)
		made := b.post("/app/tokens", create)
		require.Equal(t, http.StatusOK, made.StatusCode, made.body)
		assert.Equal(t, "no-store", made.Header.Get("Cache-Control"))
		value := regexp.MustCompile(`plt_[0-9A-Za-z]{38}`).FindString(made.body)
		require.NotEmpty(t, value)
		assert.Equal(t, before+1, count())

		twice := b.post("/app/tokens", create)
		assert.Equal(t, http.StatusConflict, twice.StatusCode)
		assert.NotContains(t, twice.body, value)
		assert.Equal(t, before+1, count(), "the same form sent again makes no second token")

		listed := b.get("/app/tokens")
		assert.NotContains(t, listed.body, value, "the value is shown once")
		assert.NotContains(t, listed.body, "Every token of", "a member sees only their own tokens")

		// No GET changes anything: the revoke link only asks.
		id := regexp.MustCompile(`/app/tokens/(\d+)/revoke`).FindAllStringSubmatch(listed.body, -1)
		require.NotEmpty(t, id)
		last := id[len(id)-1][1]
		confirm := b.get("/app/tokens/" + last + "/revoke")
		require.Equal(t, http.StatusOK, confirm.StatusCode)
		_, err := f.Svc.Authenticate(context.Background(), value)
		require.NoError(t, err, "still live after the GET")
		assert.Equal(t, http.StatusForbidden, b.post("/app/tokens/"+last+"/revoke", url.Values{}).StatusCode)
		_, err = f.Svc.Authenticate(context.Background(), value)
		require.NoError(t, err, "still live after a forged POST")
		assert.Equal(t, http.StatusSeeOther, b.post("/app/tokens/"+last+"/revoke", url.Values{"csrf": {confirm.field(t, "csrf")}}).StatusCode)
		_, err = f.Svc.Authenticate(context.Background(), value)
		assert.ErrorIs(t, err, pipeline.ErrUnauthenticated)

		owner := signIn(t, f, base, "olivia@acme.test")
		assert.Contains(t, owner.get("/app/tokens").body, "Every token of Acme")
	})
}

// signIn signs a fixture user in through a link the Operator made.
func signIn(t *testing.T, f storetest.Fixture, base, email string) *browser {
	t.Helper()
	b := newBrowser(t, base)
	secret, err := f.Op.SignInLink(context.Background(), email)
	require.NoError(t, err)
	link := b.get("/app/sign-in/" + secret)
	res := b.post("/app/sign-in/"+secret, url.Values{"csrf": {link.field(t, "csrf")}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.body)
	return b
}

func TestPages_SignInMail(t *testing.T) {
	srv := mailtest.Start(t, mailtest.Options{})
	mailer, err := mail.New(srv.URL(), mail.WithTLSConfig(srv.ClientTLS()))
	require.NoError(t, err)
	from := &netmail.Address{Name: "Acme Hiring", Address: "jobs@acme.example"}
	f, base := servePages(t, storetest.OpenSQLite(t), pipelinehttp.Config{BaseURL: "https://hiring.example"},
		pipeline.WithMail(from, mailer))
	b := newBrowser(t, base)
	form := b.get("/app/sign-in")
	assert.True(t, cookieOf(form.Response, "pipeline_csrf").Secure, "https base URL")
	res := b.post("/app/sign-in", url.Values{"email": {"Olivia@acme.test"}, "csrf": {form.field(t, "csrf")}})
	require.Equal(t, http.StatusOK, res.StatusCode)

	require.Eventually(t, func() bool { return len(srv.Received()) == 1 }, 10*time.Second, 20*time.Millisecond)
	msg := srv.Received()[0].Message(t)
	assert.Equal(t, "olivia@acme.test", msg.Header.Get("To")[strings.Index(msg.Header.Get("To"), "<")+1:len(msg.Header.Get("To"))-1])
	var rd io.Reader = msg.Body
	if strings.EqualFold(msg.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		rd = quotedprintable.NewReader(rd)
	}
	body, err := io.ReadAll(rd)
	require.NoError(t, err)
	secret := regexp.MustCompile(`https://hiring\.example/app/sign-in/([A-Za-z0-9_-]+)`).FindSubmatch(body)
	require.NotNil(t, secret, string(body))
	u, err := f.Svc.SignInLinkUser(context.Background(), string(secret[1]))
	require.NoError(t, err)
	assert.Equal(t, "olivia@acme.test", u.Email)
}

// TestPages_TokenForm: the token form describes each scope and each
// operation in words beside its code, and a refused submit keeps every
// tick and field.
func TestPages_TokenForm(t *testing.T) {
	f, base := servePages(t, storetest.OpenSQLite(t), pipelinehttp.Config{})
	b := signIn(t, f, base, "mia@acme.test")
	tokens := b.get("/app/tokens")
	ticked := func(p page, name, value string) bool {
		t.Helper()
		m := regexp.MustCompile(`<input type="checkbox" id="[^"]+" name="` + name + `" value="` + regexp.QuoteMeta(value) + `"( checked)?[ >]`).FindStringSubmatch(p.body)
		require.NotNil(t, m, "no box %s=%s in %s", name, value, p.body)
		return m[1] != ""
	}
	assert.Regexp(t, `<code>jobs:read</code>[^<]*</label>\s*<span class="hint" id="scope-jobs:read-words">lets it list jobs, read a job`, tokens.body)
	assert.Regexp(t, `<code>move_candidate</code>[^<]*</label>\s*<span class="hint" id="approval-move_candidate-words">Move a candidate to a stage</span>`, tokens.body)
	assert.NotContains(t, tokens.body, `-words"></span>`, "a box without words")
	assert.False(t, ticked(tokens, "scope", "jobs:read"))

	// proposals:review under an approval policy is refused.
	refused := b.post("/app/tokens", url.Values{"name": {"agent"}, "csrf": {tokens.field(t, "csrf")}, "nonce": {tokens.field(t, "nonce")},
		"scope": {"jobs:read", "candidates:write", "proposals:review"}, "approval": {"move_candidate"}})
	require.Equal(t, http.StatusUnprocessableEntity, refused.StatusCode, refused.body)
	assert.Contains(t, refused.body, `value="agent"`, "the name is kept")
	for _, s := range pipeline.AllScopes {
		want := s == "jobs:read" || s == "candidates:write" || s == "proposals:review"
		assert.Equal(t, want, ticked(refused, "scope", string(s)), "scope %s", s)
	}
	assert.True(t, ticked(refused, "approval", "move_candidate"))
	assert.False(t, ticked(refused, "approval", "*"))
	assert.False(t, ticked(refused, "approval", "create_job"))
}
