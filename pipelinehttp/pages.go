package pipelinehttp

import (
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The people's pages (web.md): sign-in, sessions and the tokens page,
// rendered on the server with html/template and working without
// JavaScript. Every action is a Service call as the signed-in person.

// Cookies of the pages.
const (
	// SessionCookie holds a signed-in person's session value.
	SessionCookie = "pipeline_session"
	// preSessionCookie ties the sign-in forms' CSRF tokens to a browser
	// before there is a session.
	preSessionCookie = "pipeline_csrf"
	preSessionMaxAge = time.Hour
)

// MaxPageBody is the most of a body a POST to the pages is read for
// (web.md): their forms are a few fields, and none takes a file.
const MaxPageBody = 64 << 10

// pageCSP lets a page load its own style sheet and nothing else: no
// script at all, no framing.
const pageCSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// pages serves the people's pages.
type pages struct {
	svc     *pipeline.Service
	baseURL string // configured, for mailed links; "" when none
	prefix  string // the path /app/ is served below
	secure  bool   // cookies only over https
	log     *slog.Logger
	tmpl    map[string]*template.Template
}

// MountPages serves the people's pages below r's path + "/app/" (New
// serves them at /app/): sign-in by one-time links, the session, and
// the tokens and approvals pages, and the reviewer's job and candidate
// pages. cfg.BaseURL is where the pages are reached; without it
// no sign-in link is mailed, and cookies are Secure when it is https.
// The client IP is what r's engine takes it to be (its trusted proxies).
func MountPages(r gin.IRouter, svc *pipeline.Service, cfg Config) {
	prefix := ""
	if g, ok := r.(interface{ BasePath() string }); ok {
		prefix = strings.TrimRight(g.BasePath(), "/")
	}
	// The API's chain: request ids, the request log, recovery and the
	// request's deadline, as for an API request.
	newPages(svc, cfg, prefix).routes(r.Group("/app", newAPI(svc, cfg, prefix).baseChain()...))
}

func newPages(svc *pipeline.Service, cfg Config, prefix string) *pages {
	p := &pages{
		svc:     svc,
		baseURL: strings.TrimRight(cfg.BaseURL, "/"),
		prefix:  prefix,
		secure:  strings.HasPrefix(cfg.BaseURL, "https:"),
		log:     cfg.Logger,
		tmpl:    map[string]*template.Template{},
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	funcs := template.FuncMap{
		"when":          func(t *time.Time) string { return whenText(t) },
		"day":           func(t time.Time) string { return t.UTC().Format(time.DateOnly) },
		"state":         tokenState,
		"policy":        policyText,
		"at":            func(t time.Time) string { return whenText(&t) },
		"date":          func(t time.Time) string { return t.UTC().Format(time.DateOnly) },
		"interviewWhen": func(iv pipeline.Interview) string { return whenInterview(iv.Start, iv.End, iv.Timezone) },
		"names":         names,
		"actor":         actorName,
		"statuses":      func() []string { return pipeline.CandidateStatuses },
		"proposalView": func(it approvalItem, v view) proposalView {
			return proposalView{Item: it, Prefix: v.Prefix, CSRF: v.CSRF, Back: v.Back}
		},
		"rows": func(ts []pipeline.Token, creator bool, prefix string) tokenTable {
			return tokenTable{Tokens: ts, Creator: creator, Prefix: prefix}
		},
	}
	for _, name := range []string{"sign-in", "link", "message", "tokens", "revoke", "approvals", "candidate", "job"} {
		p.tmpl[name] = template.Must(template.New(name).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/proposal.html", "templates/"+name+".html"))
	}
	return p
}

// proposalView is one proposal of the approvals page, with what its
// form needs.
type proposalView struct {
	Item   approvalItem
	Prefix string
	CSRF   string
	Back   string // the page a decision returns to; "": the approvals page
}

type tokenTable struct {
	Tokens  []pipeline.Token
	Creator bool
	Prefix  string
}

// proposableOps are the writes an approval policy may name, in the
// order of the API's document.
func proposableOps() []pipeline.Op {
	var out []pipeline.Op
	for _, op := range pipeline.Ops() {
		if op.Proposable() {
			out = append(out, op)
		}
	}
	return out
}

// policyText is a token's approval policy in words.
func policyText(ops []pipeline.Op) string {
	if len(ops) == 0 {
		return "none"
	}
	parts := make([]string, len(ops))
	for i, op := range ops {
		parts[i] = string(op)
		if op == pipeline.EveryWrite {
			parts[i] = "every write (*)"
		}
	}
	return strings.Join(parts, ", ")
}

func whenText(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func tokenState(t pipeline.Token) string {
	switch {
	case t.RevokedAt != nil:
		return "revoked"
	case !t.Active(time.Now()):
		return "expired"
	}
	return "active"
}

func (p *pages) routes(g *gin.RouterGroup) {
	g.Use(p.recover, p.headers, p.bounded)
	g.GET("/static/*file", p.static)
	g.HEAD("/static/*file", p.static)
	g.GET("", func(c *gin.Context) { c.Redirect(http.StatusSeeOther, p.prefix+"/app/") })
	g.GET("/", p.signedIn, func(c *gin.Context) { c.Redirect(http.StatusSeeOther, p.prefix+"/app/tokens") })
	g.GET("/sign-in", p.signInForm)
	g.POST("/sign-in", p.preCSRF, p.requestLink)
	g.GET("/sign-in/:link", p.linkForm)
	g.POST("/sign-in/:link", p.preCSRF, p.useLink)
	g.POST("/sign-out", p.signedIn, p.csrf, p.signOut)
	g.POST("/team", p.signedIn, p.csrf, p.switchTeam)
	g.GET("/tokens", p.signedIn, p.tokens)
	g.POST("/tokens", p.signedIn, p.csrf, p.createToken)
	g.GET("/tokens/:id/revoke", p.signedIn, p.confirmRevoke)
	g.GET("/approvals", p.signedIn, p.approvals)
	g.POST("/approvals/:id", p.signedIn, p.csrf, p.decide)
	g.GET("/jobs/:job", p.signedIn, p.job)
	g.GET("/jobs/:job/candidates/:candidate", p.signedIn, p.candidate)
	g.GET("/jobs/:job/candidates/:candidate/documents/:document", p.signedIn, p.download)
	g.POST("/tokens/:id/revoke", p.signedIn, p.csrf, p.revoke)
}

// static serves the pages' style sheet and icon; a folder, /app/static/
// included, is not found, so that nothing is listed.
func (p *pages) static(c *gin.Context) {
	name := "static/" + strings.TrimPrefix(c.Param("file"), "/")
	body, err := fs.ReadFile(staticFS, name)
	if err != nil || !fs.ValidPath(name) {
		p.notFound(c)
		return
	}
	if c.Request.Method == http.MethodHead {
		c.Status(http.StatusOK)
		c.Header("Content-Type", staticType(name))
		return
	}
	c.Data(http.StatusOK, staticType(name), body)
}

func staticType(name string) string {
	if path.Ext(name) == ".ico" {
		return "image/x-icon" // mime's table knows no .ico everywhere
	}
	return cmp.Or(mime.TypeByExtension(path.Ext(name)), "application/octet-stream")
}

// favicon serves the icon at /favicon.ico, where browsers look for it.
func (p *pages) favicon(c *gin.Context) {
	c.Header("Cache-Control", "public, max-age=86400")
	c.Params = gin.Params{{Key: "file", Value: "/favicon.ico"}}
	p.static(c)
}

// pagePath reports whether a path is below the pages' /app/.
func (p *pages) pagePath(path string) bool {
	return path == p.prefix+"/app" || strings.HasPrefix(path, p.prefix+"/app/")
}

// orPage answers a request below /app/ with page, and any other with api:
// errors below /app/ are pages too.
func (p *pages) orPage(page, api gin.HandlerFunc) gin.HandlerFunc {
	return func(c *gin.Context) {
		if !p.pagePath(c.Request.URL.Path) {
			api(c)
			return
		}
		p.setHeaders(c)
		page(c)
		c.Abort()
	}
}

// notFound is the page of an unknown path below /app/.
func (p *pages) notFound(c *gin.Context) {
	p.message(c, http.StatusNotFound, "Page not found", "There is no page at this address.", true)
	c.Abort()
}

// methodNotAllowed is the page of a known path below /app/ asked with
// another method; Gin has set the Allow header.
func (p *pages) methodNotAllowed(c *gin.Context) {
	p.message(c, http.StatusMethodNotAllowed, "Not allowed", "This page does not take that kind of request.", true)
	c.Abort()
}

// headers: no script, no framing, no referrer outside the site (a
// sign-in link's secret is in its path), and no cache keeps a page, which
// shows a person's tokens.
func (p *pages) headers(c *gin.Context) {
	p.setHeaders(c)
	c.Next()
}

func (p *pages) setHeaders(c *gin.Context) {
	h := c.Writer.Header()
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
}

// bounded refuses a POST that carries neither a session nor a
// pre-session cookie before reading any of its body, since no form of the
// pages is sent without one, and reads at most MaxPageBody of the others:
// beyond, 413 and nothing more read. It parses the form here, so that the
// handlers after it only look it up.
func (p *pages) bounded(c *gin.Context) {
	if c.Request.Method != http.MethodPost {
		c.Next()
		return
	}
	if p.cookie(c, SessionCookie) == "" && p.cookie(c, preSessionCookie) == "" {
		p.forged(c)
		return
	}
	if c.Request.ContentLength > MaxPageBody {
		p.tooLarge(c)
		return
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, MaxPageBody)
	// ParseMultipartForm would hide an error of ParseForm behind
	// ErrNotMultipart. A multipart form of MaxPageBody bytes stays in
	// memory whole.
	err := c.Request.ParseForm()
	if err == nil {
		err = c.Request.ParseMultipartForm(MaxPageBody)
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		p.tooLarge(c)
		return
	}
	// Any other malformed body leaves the form empty: its CSRF token is
	// missing, and the form is refused.
	c.Next()
}

func (p *pages) tooLarge(c *gin.Context) {
	p.render(c, http.StatusRequestEntityTooLarge, "message", view{Title: "Form too large",
		Error:   "yes",
		Message: "This form carried more than 64 KiB, more than any form of these pages holds; nothing was done.",
		Next:    "/app/", NextLabel: "Back"})
	c.Abort()
}

func (p *pages) recover(c *gin.Context) {
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("page panic", "path", c.FullPath(), "panic", r)
			p.message(c, http.StatusInternalServerError, "Something went wrong", "The server failed. Try again later.", true)
			c.Abort()
		}
	}()
	c.Next()
}

// view is what every page template reads.
type view struct {
	Title  string
	Prefix string
	CSRF   string
	Me     *me // nil before sign-in

	// sign-in
	Sent   bool
	Error  string
	Link   string
	Masked string

	// message
	Message   string
	Next      string
	NextLabel string

	// tokens
	Created *createdToken
	Name    string
	Nonce   string
	// The token form's boxes: the scopes, the writes a token's policy
	// may hold, and its box of every write.
	ScopeChoices []choice
	OpChoices    []choice
	EveryWrite   bool
	Mine         []pipeline.Token
	TeamTokens   []pipeline.Token
	Token        pipeline.Token

	// approvals
	Tab       string // pending or decided
	Proposals []approvalItem
	Done      *approvalItem // the one just decided
	More      string        // the next page's path
	Secret    string        // the signing secret of a webhook its approval created
	Back      string        // the page a decision returns to (a candidate's)

	// a candidate's page, a job's
	Candidate *candidatePage
	JobPage   *jobPage
}

type me struct {
	User  pipeline.User
	Team  pipeline.Team
	Teams []pipeline.TeamRole
	// Waiting is how many proposals wait for this person's decision.
	Waiting int
}

type createdToken struct {
	Token pipeline.Token
	Value string
}

func (p *pages) render(c *gin.Context, status int, name string, v view) {
	v.Prefix = p.prefix
	var b strings.Builder
	if err := p.tmpl[name].ExecuteTemplate(&b, "layout", v); err != nil {
		p.log.Error("render page", "page", name, "error", err.Error())
		c.String(http.StatusInternalServerError, "The page failed to render.")
		return
	}
	c.Data(status, "text/html; charset=utf-8", []byte(b.String()))
}

func (p *pages) message(c *gin.Context, status int, title, msg string, isErr bool) {
	v := view{Title: title, Message: msg, Error: "", Next: "/app/", NextLabel: "Back"}
	if isErr {
		v.Error = msg
	}
	if s, ok := c.Get(sessionKey); ok {
		st := s.(*session)
		v.Me, v.CSRF = st.me, csrfOf(st.value)
	} else {
		v.Next, v.NextLabel = "/app/sign-in", "Sign in"
	}
	p.render(c, status, "message", v)
}

// fail renders a Service error as a page, by its code.
func (p *pages) fail(c *gin.Context, err error) {
	var e *pipeline.Error
	if !errors.As(err, &e) {
		p.log.Error("page failed", "path", c.FullPath(), "error", err.Error())
		p.message(c, http.StatusInternalServerError, "Something went wrong", "The server failed. Try again later.", true)
		return
	}
	status := map[string]int{
		pipeline.ENotFound: http.StatusNotFound, pipeline.EForbidden: http.StatusForbidden,
		pipeline.EConflict: http.StatusConflict, pipeline.EValidation: http.StatusUnprocessableEntity,
		pipeline.ERateLimited: http.StatusTooManyRequests, pipeline.EUnavailable: http.StatusServiceUnavailable,
		pipeline.EUnauthenticated: http.StatusUnauthorized,
	}[e.Code]
	if status == 0 {
		status = http.StatusInternalServerError
	}
	msg := errorText(e)
	if e.Code == pipeline.ERateLimited {
		msg = "Too many attempts. Wait a minute and try again."
	}
	p.message(c, status, "Not done", msg, true)
}

// Sessions and CSRF.

const sessionKey = "pipeline.session"

type session struct {
	value string
	auth  pipeline.SessionAuth
	me    *me
}

// signedIn resumes the session of the cookie, putting the person's caller
// on the request's context; without one, a GET goes to the sign-in page
// and anything else is refused.
func (p *pages) signedIn(c *gin.Context) {
	value := p.cookie(c, SessionCookie)
	ctx, auth, err := p.svc.ResumeSession(c.Request.Context(), value, c.ClientIP())
	if err != nil {
		if errors.Is(err, pipeline.ErrUnauthenticated) {
			if c.Request.Method == http.MethodGet {
				c.Redirect(http.StatusSeeOther, p.prefix+"/app/sign-in")
			} else {
				p.message(c, http.StatusForbidden, "Signed out", "Your session has ended. Sign in again.", true)
			}
			c.Abort()
			return
		}
		p.fail(c, err)
		c.Abort()
		return
	}
	c.Request = c.Request.WithContext(ctx)
	teams, err := p.svc.MyTeams(ctx)
	if err != nil {
		p.fail(c, err)
		c.Abort()
		return
	}
	// The navigation's count: the pending proposals this person may
	// decide, which are those they see (a person decides without a token).
	waiting, err := p.svc.ListProposals(ctx, pipeline.ProposalFilter{Status: pipeline.ProposalPending})
	if err != nil {
		p.fail(c, err)
		c.Abort()
		return
	}
	c.Set(sessionKey, &session{value: value, auth: auth, me: &me{User: auth.User, Team: auth.Team, Teams: teams, Waiting: waiting.Total}})
	c.Next()
}

func sessionOf(c *gin.Context) *session { s, _ := c.Get(sessionKey); return s.(*session) }

// csrfOf is the CSRF token of a form tied to a secret the browser holds
// in an HttpOnly cookie (the session's value, or the pre-session
// cookie's): another site can neither read the cookie nor compute it.
func csrfOf(secret string) string {
	sum := sha256.Sum256([]byte("pipeline csrf\x00" + secret))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func validCSRF(secret, sent string) bool {
	return secret != "" && sent != "" && subtle.ConstantTimeCompare([]byte(csrfOf(secret)), []byte(sent)) == 1
}

// csrf refuses, with 403 and nothing done, a POST whose form does not
// carry the session's CSRF token.
func (p *pages) csrf(c *gin.Context) {
	if !validCSRF(sessionOf(c).value, c.PostForm("csrf")) {
		p.forged(c)
		return
	}
	c.Next()
}

// preCSRF is csrf before sign-in, against the pre-session cookie.
func (p *pages) preCSRF(c *gin.Context) {
	if !validCSRF(p.cookie(c, preSessionCookie), c.PostForm("csrf")) {
		p.forged(c)
		return
	}
	c.Next()
}

func (p *pages) forged(c *gin.Context) {
	p.render(c, http.StatusForbidden, "message", view{Title: "Form refused",
		Error:   "yes",
		Message: "This form was not sent from this site's page, or has expired. Reload the page and try again; nothing was done.",
		Next:    "/app/", NextLabel: "Back"})
	c.Abort()
}

// preSession returns the CSRF token of the sign-in forms, setting the
// pre-session cookie when the browser has none.
func (p *pages) preSession(c *gin.Context) string {
	v := p.cookie(c, preSessionCookie)
	if v == "" {
		v = randomValue()
		p.setCookie(c, preSessionCookie, v, preSessionMaxAge)
	}
	return csrfOf(v)
}

func randomValue() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (p *pages) cookie(c *gin.Context, name string) string {
	v, err := c.Cookie(name)
	if err != nil || len(v) > 100 {
		return ""
	}
	return v
}

// setCookie sets a cookie of the pages: HttpOnly, SameSite=Lax, Secure
// when the pages are reached over https, on their path only; a negative
// maxAge deletes it.
func (p *pages) setCookie(c *gin.Context, name, value string, maxAge time.Duration) {
	http.SetCookie(c.Writer, &http.Cookie{
		Name: name, Value: value, Path: p.prefix + "/app/", MaxAge: int(maxAge / time.Second),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: p.secure,
	})
}

// Sign-in.

func (p *pages) signInForm(c *gin.Context) {
	p.render(c, http.StatusOK, "sign-in", view{Title: "Sign in", CSRF: p.preSession(c)})
}

// requestLink answers the same whether or not the email is known.
func (p *pages) requestLink(c *gin.Context) {
	err := p.svc.RequestSignIn(c.Request.Context(), pipeline.SignInRequest{
		Email: c.PostForm("email"), IP: c.ClientIP(), BaseURL: p.baseURL,
	})
	if errors.Is(err, pipeline.ErrValidation) {
		p.render(c, http.StatusUnprocessableEntity, "sign-in", view{Title: "Sign in", CSRF: p.preSession(c),
			Error: "Enter the email address you were invited with."})
		return
	} else if err != nil {
		p.fail(c, err)
		return
	}
	p.render(c, http.StatusOK, "sign-in", view{Title: "Check your mail", Sent: true})
}

// linkForm shows whom a link signs in, using nothing up: mail scanners
// open links.
func (p *pages) linkForm(c *gin.Context) {
	link := c.Param("link")
	u, err := p.svc.SignInLinkUser(c.Request.Context(), link)
	if err != nil {
		p.fail(c, err)
		return
	}
	p.render(c, http.StatusOK, "link", view{Title: "Sign in", CSRF: p.preSession(c),
		Link: url.PathEscape(link), Masked: maskEmail(u.Email)})
}

// useLink signs in with a new session and goes to /app/, the secret left
// behind in no URL.
func (p *pages) useLink(c *gin.Context) {
	value, err := p.svc.SignIn(c.Request.Context(), c.Param("link"))
	if err != nil {
		p.fail(c, err)
		return
	}
	p.setCookie(c, SessionCookie, value, pipeline.SessionLifetime)
	p.setCookie(c, preSessionCookie, "", -1)
	c.Redirect(http.StatusSeeOther, p.prefix+"/app/")
}

// maskEmail shows an address's first letter and domain: o…@acme.test.
func maskEmail(email string) string {
	local, domain, ok := strings.Cut(email, "@")
	if !ok || local == "" {
		return "…"
	}
	r := []rune(local)
	return string(r[0]) + "…@" + domain
}

func (p *pages) signOut(c *gin.Context) {
	if err := p.svc.SignOut(c.Request.Context(), sessionOf(c).value); err != nil {
		p.fail(c, err)
		return
	}
	p.setCookie(c, SessionCookie, "", -1)
	c.Redirect(http.StatusSeeOther, p.prefix+"/app/sign-in")
}

func (p *pages) switchTeam(c *gin.Context) {
	id, err := strconv.ParseInt(c.PostForm("team"), 10, 64)
	if err != nil {
		p.fail(c, pipeline.Invalid("team", "Choose a team."))
		return
	}
	if err := p.svc.SwitchTeam(c.Request.Context(), sessionOf(c).value, id); err != nil {
		p.fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, p.prefix+"/app/tokens")
}

// Tokens.

func (p *pages) tokensView(c *gin.Context) (view, error) {
	s := sessionOf(c)
	lists, err := p.svc.Tokens(c.Request.Context())
	if err != nil {
		return view{}, err
	}
	v := view{Title: "API tokens", CSRF: csrfOf(s.value), Me: s.me, Nonce: randomValue(), Mine: lists.Mine, TeamTokens: lists.Team}
	v.tokenForm(nil, nil)
	return v, nil
}

// choice is a box of the token form: a scope's or an operation's code,
// its words, and whether it is ticked.
type choice struct {
	Code   string
	Words  string
	Ticked bool
}

// tokenForm fills the token form's boxes, those of scopes and approval
// ticked: a refused form comes back as it was sent.
func (v *view) tokenForm(scopes []pipeline.Scope, approval []pipeline.Op) {
	words := opSummaries()
	v.ScopeChoices, v.OpChoices = nil, nil
	for _, s := range pipeline.AllScopes {
		v.ScopeChoices = append(v.ScopeChoices, choice{Code: string(s), Words: scopeWords(s, words), Ticked: slices.Contains(scopes, s)})
	}
	for _, op := range proposableOps() {
		v.OpChoices = append(v.OpChoices, choice{Code: string(op), Words: words[op], Ticked: slices.Contains(approval, op)})
	}
	v.EveryWrite = slices.Contains(approval, pipeline.EveryWrite)
}

// scopeWords says what a scope lets a token do: the operations that need
// it, each by its summary in the API's document (or, while none does, the
// scope's own words).
func scopeWords(s pipeline.Scope, words map[pipeline.Op]string) string {
	var does []string
	for _, op := range pipeline.Ops() {
		if w := words[op]; op.Scope() == s && w != "" {
			r, size := utf8.DecodeRuneInString(w)
			does = append(does, string(unicode.ToLower(r))+w[size:])
		}
	}
	if len(does) == 0 {
		// A scope that no operation needs yet: what it is for.
		return "lets it " + s.Words() + "."
	}
	return "lets it " + strings.Join(does, ", ") + "."
}

// opSummaries are the operations' summaries in the served API document,
// which the document's generator takes from the table of operations and
// its overlay: the words of each operation.
var opSummaries = sync.OnceValue(func() map[pipeline.Op]string {
	out := map[pipeline.Op]string{}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"` // an item's parameters too
	}
	raw, err := openapiJSON()
	if err != nil || json.Unmarshal(raw, &doc) != nil {
		return out // the package's tests rule it out
	}
	for _, item := range doc.Paths {
		for _, rawOp := range item {
			var op struct {
				OperationID string `json:"operationId"`
				Summary     string `json:"summary"`
			}
			if json.Unmarshal(rawOp, &op) == nil && op.OperationID != "" {
				out[pipeline.Op(op.OperationID)] = op.Summary
			}
		}
	}
	return out
})

func (p *pages) tokens(c *gin.Context) {
	v, err := p.tokensView(c)
	if err != nil {
		p.fail(c, err)
		return
	}
	p.render(c, http.StatusOK, "tokens", v)
}

// createToken answers with the page that shows the new value, once: the
// POST's own answer, never a URL, and stored by no cache (headers).
func (p *pages) createToken(c *gin.Context) {
	var scopes []pipeline.Scope
	for _, s := range c.PostFormArray("scope") {
		scopes = append(scopes, pipeline.Scope(s))
	}
	var approval []pipeline.Op
	for _, op := range c.PostFormArray("approval") {
		approval = append(approval, pipeline.Op(op))
	}
	t, value, err := p.svc.CreateToken(c.Request.Context(), pipeline.TokenForm{
		Name: c.PostForm("name"), Scopes: scopes, Approval: approval, Nonce: c.PostForm("nonce"),
	})
	v, verr := p.tokensView(c)
	if verr != nil {
		p.fail(c, verr)
		return
	}
	var e *pipeline.Error
	switch {
	case err == nil:
		v.Created = &createdToken{Token: t, Value: value}
		p.render(c, http.StatusOK, "tokens", v)
	case errors.As(err, &e) && (e.Code == pipeline.EValidation || e.Code == pipeline.EConflict):
		v.Error = errorText(e)
		status := http.StatusConflict
		if e.Code == pipeline.EValidation {
			// The form as it was sent, to mend.
			status, v.Name = http.StatusUnprocessableEntity, c.PostForm("name")
			v.tokenForm(scopes, approval)
		}
		p.render(c, status, "tokens", v)
	default:
		p.fail(c, err)
	}
}

// errorText is an error's message with its fields' messages.
func errorText(e *pipeline.Error) string {
	fields, ok := e.Details.(pipeline.FieldErrors)
	if !ok || len(fields) == 0 {
		return e.Message
	}
	var parts []string
	for _, msgs := range fields {
		parts = append(parts, msgs...)
	}
	return strings.Join(parts, " ")
}

func (p *pages) tokenParam(c *gin.Context) (pipeline.Token, bool) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		p.fail(c, pipeline.ErrNotFound)
		return pipeline.Token{}, false
	}
	t, err := p.svc.TokenToRevoke(c.Request.Context(), id)
	if err != nil {
		p.fail(c, err)
		return pipeline.Token{}, false
	}
	return t, true
}

func (p *pages) confirmRevoke(c *gin.Context) {
	t, ok := p.tokenParam(c)
	if !ok {
		return
	}
	s := sessionOf(c)
	p.render(c, http.StatusOK, "revoke", view{Title: "Revoke token", CSRF: csrfOf(s.value), Me: s.me, Token: t})
}

func (p *pages) revoke(c *gin.Context) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		p.fail(c, pipeline.ErrNotFound)
		return
	}
	if err := p.svc.RevokeToken(c.Request.Context(), id); err != nil {
		p.fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, p.prefix+"/app/tokens")
}
