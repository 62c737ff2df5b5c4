package pipelinehttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// The browser tests drive Debian's chromium, headless, through the pages
// a real server serves on a real database.

// ScreenshotsEnv names the folder the browser tests save screenshots in;
// unset, a folder under the system's temporary directory, kept after the
// test so that a failure's screenshot can be looked at.
const screenshotsEnv = "PIPELINE_TEST_SCREENSHOTS"

// chromium returns the browser's path, skipping the test without one
// unless CI=true, where its absence fails.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "chromium is not installed (apt-get install -y --no-install-recommends chromium): browser tests skipped"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

var shotsOnce sync.Once
var shotsDir string

// screenshots is the folder screenshots go to.
func screenshots(t *testing.T) string {
	shotsOnce.Do(func() {
		shotsDir = os.Getenv(screenshotsEnv)
		if shotsDir == "" {
			shotsDir = filepath.Join(os.TempDir(), "pipeline-screenshots")
		}
		if err := os.MkdirAll(shotsDir, 0o755); err != nil {
			t.Fatalf("screenshots folder: %v", err)
		}
	})
	return shotsDir
}

// tab is a browser tab on a served world.
type tab struct {
	t    *testing.T
	ctx  context.Context
	base string
	f    storetest.Fixture
}

// newTab starts chromium with a tab the size of a phone or a desktop. When
// the test fails, the tab's page is saved as a screenshot first.
func newTab(t *testing.T, f storetest.Fixture, base string, width, height int64) *tab {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(width, height)))
	tb := &tab{t: t, ctx: ctx, base: base, f: f}
	t.Cleanup(func() {
		if t.Failed() {
			tb.shot("FAILED")
		}
	})
	return tb
}

// run runs actions, failing the test at the first error.
func (b *tab) run(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	require.NoError(b.t, chromedp.Do(b.step(), actions...))
}

// stepTimeout bounds each step, so that a page that never shows what a
// test waits for fails it soon, with the tab still alive for the
// screenshot.
const stepTimeout = 20 * time.Second

// step is the tab's context with stepTimeout; a timeout derives from a
// context that has run once, or it would stop the whole browser.
func (b *tab) step() context.Context {
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	b.t.Cleanup(cancel)
	return ctx
}

// get runs one action and returns its value, failing the test on error.
func get[T any](b *tab, a chromedp.Action[T]) T {
	b.t.Helper()
	v, err := chromedp.Run(b.step(), a)
	require.NoError(b.t, err)
	return v
}

// shot saves the whole page as a PNG named after the test and name, and
// logs its path.
func (b *tab) shot(name string) string {
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	file := strings.NewReplacer("/", "_", " ", "_").Replace(b.t.Name()) + "-" + name + ".png"
	path := filepath.Join(screenshots(b.t), file)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	b.t.Logf("screenshot: %s", path)
	return path
}

func (b *tab) text(sel string) string {
	b.t.Helper()
	return get(b, chromedp.Text(chromedp.CSS(sel)))
}

func (b *tab) location() string {
	b.t.Helper()
	return get(b, chromedp.Location())
}

// signIn opens a fresh sign-in link of email and presses its button.
func (b *tab) signIn(email string) {
	b.t.Helper()
	secret, err := b.f.Op.SignInLink(context.Background(), email)
	require.NoError(b.t, err)
	b.run(chromedp.Navigate(pipeline.SignInURL(b.base, secret)), chromedp.WaitVisible(chromedp.CSS(`main form button`)))
	assert.Contains(b.t, b.text("main"), "Sign in as "+email[:1]+"…@")
	b.run(chromedp.Click(chromedp.CSS(`main form button`)), chromedp.WaitVisible(chromedp.CSS(`#new-h`)))
	assert.Equal(b.t, b.base+"/app/tokens", b.location(), "no secret left in the URL")
}

// serveWorld serves the fixture world with New on a real server.
func serveWorld(t *testing.T, db *pipelinestore.DB, opts ...pipeline.Option) (storetest.Fixture, string) {
	f := storetest.Seeded(t, db, opts...)
	srv := httptest.NewServer(pipelinehttp.New(f.Svc, pipelinehttp.Config{}))
	t.Cleanup(srv.Close)
	return f, srv.URL
}

// me calls GET /api/v1/me with token and returns the status and scopes.
func me(t *testing.T, base, token string) (int, []string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/api/v1/me", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var body struct {
		Data struct {
			Scopes []string `json:"scopes"`
		} `json:"data"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&body))
	return res.StatusCode, body.Data.Scopes
}

// TestBrowser_Tokens: sign in through a link, create a token with two
// scopes ticked, call the API with it, revoke it and see the API refuse it.
func TestBrowser_Tokens(t *testing.T) {
	chromium(t)
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f, base := serveWorld(t, db)
		b := newTab(t, f, base, 1280, 900)
		b.signIn("olivia@acme.test")

		b.run(
			chromedp.SendKeys(chromedp.CSS(`#name`), "agent"),
			chromedp.Click(chromedp.CSS(`#scope-jobs\:read`)),
			chromedp.Click(chromedp.CSS(`#scope-candidates\:read`)),
			chromedp.Click(chromedp.CSS(`#new-h ~ form button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(`#token-value`)),
		)
		value := get(b, chromedp.Value(chromedp.CSS(`#token-value`)))
		require.True(t, pipeline.WellFormedToken(value), value)
		assert.NotContains(t, b.location(), value, "never in a URL")
		b.shot("created")

		status, scopes := me(t, base, value)
		require.Equal(t, http.StatusOK, status)
		assert.Equal(t, []string{"jobs:read", "candidates:read"}, scopes, "exactly the ticked scopes")

		b.run(chromedp.Navigate(base+"/app/tokens"), chromedp.WaitVisible(chromedp.CSS(`#mine-h`)))
		assert.NotContains(t, b.text("main"), value, "shown once")
		b.run(
			chromedp.Click(chromedp.Search(`//section[h2[@id="mine-h"]]//tr[td[1][normalize-space()="agent"]]//a`)),
			chromedp.WaitVisible(chromedp.CSS(`button.danger`)),
		)
		assert.Contains(t, b.text("h1"), "Revoke token “agent”?")
		status, _ = me(t, base, value)
		assert.Equal(t, http.StatusOK, status, "the confirmation page revokes nothing")
		b.run(chromedp.Click(chromedp.CSS(`button.danger`)), chromedp.WaitVisible(chromedp.CSS(`#mine-h`)))
		state := get(b, chromedp.Text(chromedp.Search(`//section[h2[@id="mine-h"]]//tr[td[1][normalize-space()="agent"]]/td[@data-label="State"]`)))
		assert.Equal(t, "revoked", state)

		status, _ = me(t, base, value)
		assert.Equal(t, http.StatusUnauthorized, status)
	})
}

// TestBrowser_Refusals: a forged form does nothing; a used or stale link
// signs nobody in.
func TestBrowser_Refusals(t *testing.T) {
	chromium(t)
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		clock := &pageClock{now: time.Now().UTC()}
		f, base := serveWorld(t, db, pipeline.WithClock(clock))
		b := newTab(t, f, base, 1280, 900)
		b.signIn("mia@acme.test")

		count := func() int {
			l, err := f.Op.TeamTokens(context.Background(), f.Res.Teams["acme"])
			require.NoError(t, err)
			return len(l)
		}
		before := count()
		b.run(
			chromedp.SetValue(chromedp.CSS(`#new-h ~ form input[name=csrf]`), "forged"),
			chromedp.SendKeys(chromedp.CSS(`#name`), "forged"),
			chromedp.Click(chromedp.CSS(`#new-h ~ form button[type=submit]`)),
			chromedp.WaitVisible(chromedp.Search(`//h1[normalize-space()="Form refused"]`)),
		)
		assert.Contains(t, b.text("main"), "nothing was done")
		assert.Equal(t, before, count(), "a forged form makes no token")

		// A used link: the tab above used one; open a used one again.
		secret, err := f.Op.SignInLink(context.Background(), "adam@acme.test")
		require.NoError(t, err)
		_, err = f.Svc.SignIn(context.Background(), secret)
		require.NoError(t, err)
		other := newTab(t, f, base, 1280, 900)
		other.run(chromedp.Navigate(pipeline.SignInURL(base, secret)), chromedp.WaitVisible(chromedp.CSS(`main p.error`)))
		assert.Contains(t, other.text("main"), "used or expired")
		assert.Zero(t, nodeCount(other, `main form button`), "no button to press")

		// A stale link: 15 minutes after it was made.
		stale, err := f.Op.SignInLink(context.Background(), "adam@acme.test")
		require.NoError(t, err)
		other.run(chromedp.Navigate(pipeline.SignInURL(base, stale)), chromedp.WaitVisible(chromedp.CSS(`main form button`)))
		clock.Advance(pipeline.SignInLinkLifetime)
		other.run(chromedp.Click(chromedp.CSS(`main form button`)), chromedp.WaitVisible(chromedp.CSS(`main p.error`)))
		assert.Contains(t, other.text("main"), "used or expired")
		other.run(chromedp.Navigate(base+"/app/tokens"), chromedp.WaitVisible(chromedp.CSS(`#email`)))
		assert.Equal(t, base+"/app/sign-in", other.location(), "not signed in")
	})
}

func nodeCount(b *tab, sel string) int {
	return get(b, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)))
}

// pageClock is a clock a test moves forward.
type pageClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *pageClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *pageClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestBrowser_Widths: the sign-in, tokens and approvals pages fit a 360
// px phone and a 1280 px desktop without scrolling sideways, and are
// saved as screenshots.
func TestBrowser_Widths(t *testing.T) {
	chromium(t)
	f, base := serveWorld(t, storetest.OpenSQLite(t), approvalOptions(t)...)
	ada := candidatePath(f, "backend", "ada")
	token := agent(t, f, "olivia", "outreach agent", pipeline.EveryWrite)
	propose(t, base, token, "POST", ada+"/messages", map[string]any{"subject": "Your application to the Backend Engineer role at Acme",
		"body":   "Dear Ada,\n\nThank you for applying. We would like to invite you to a first conversation: https://acme.example/careers/backend-engineer/interview-scheduling?candidate=ada-lovelace\n\nKind regards,\nAcme Hiring",
		"reason": "She matches every requirement of the posting; a first conversation is the next step."})
	propose(t, base, token, "PATCH", ada, map[string]any{"status": "rejected", "resume_url": "https://files.example.test/a-very-long-path/to/the/resume/of/ada-lovelace.pdf"})
	for _, width := range []int64{360, 1280} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			b := newTab(t, f, base, width, 800)
			fits := func(page string) {
				scroll := get(b, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`))
				inner := get(b, chromedp.Evaluate[int64](`window.innerWidth`))
				wide := get(b, chromedp.Evaluate[[]string](`[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > window.innerWidth + 1).map(e => e.tagName + '.' + e.className)`))
				assert.LessOrEqual(t, scroll, inner, "%s scrolls sideways at %d px: %v", page, width, wide)
				b.shot(page)
			}
			b.run(chromedp.Navigate(base+"/app/sign-in"), chromedp.WaitVisible(chromedp.CSS(`#email`)))
			fits("sign-in")
			b.signIn("olivia@acme.test")
			fits("tokens")
			b.run(chromedp.Navigate(base+"/app/approvals"), chromedp.WaitVisible(chromedp.CSS(`article.proposal`)))
			fits("approvals")
			b.run(chromedp.Navigate(base+"/app/tokens"), chromedp.WaitVisible(chromedp.CSS(`#name`)))
			// The keyboard alone reaches the form: focus moves to the
			// name field and a box by Tab.
			b.run(chromedp.Focus(chromedp.CSS(`#name`)), chromedp.KeyEvent("\t"))
			focused := get(b, chromedp.Evaluate[string](`document.activeElement.id`))
			assert.Equal(t, "scope-jobs:read", focused)
		})
	}
}

// TestBrowser_Approvals: a person approves an agent's proposal and sees
// the candidate moved, and rejects another and sees nothing changed.
func TestBrowser_Approvals(t *testing.T) {
	chromium(t)
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f, base := serveWorld(t, db, approvalOptions(t)...)
		token := agent(t, f, "olivia", "sourcing agent", pipeline.OpMoveCandidate)
		approve := propose(t, base, token, "POST", candidatePath(f, "backend", "ada")+"/stage",
			map[string]any{"stage": f.Res.Stages["backend"]["Screening"], "reason": "Her résumé matches the role."})
		reject := propose(t, base, token, "POST", candidatePath(f, "backend", "grace")+"/stage",
			map[string]any{"stage": f.Res.Stages["backend"]["Offer"], "reason": "Skip the interview."})

		b := newTab(t, f, base, 1280, 900)
		b.signIn("mia@acme.test")
		b.run(chromedp.Click(chromedp.Search(`//nav//a[starts-with(normalize-space(), "Approvals")]`)),
			chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#proposal-%d`, approve))))
		card := fmt.Sprintf(`#proposal-%d`, approve)
		assert.Equal(t, "Move Ada Lovelace from Applied to Screening", b.text(card+` h2`))
		assert.Contains(t, b.text(card), "Asked by the token “sourcing agent” of Olivia Owner")
		assert.Contains(t, b.text(card+` blockquote`), "Her résumé matches the role.")
		b.run(chromedp.SendKeys(chromedp.CSS(card+` textarea`), "Agreed."),
			chromedp.Click(chromedp.CSS(card+` button[value=approve]`)),
			chromedp.WaitVisible(chromedp.CSS(`#done`)))
		assert.Contains(t, b.text(`#done`), "applied")
		assert.Contains(t, b.text(`#done`), "Move Ada Lovelace to Screening")
		assert.Equal(t, "Screening", candidateStage(t, f, "backend", "ada"), "the candidate moved")
		assert.Zero(t, nodeCount(b, card), "no longer waiting")

		card = fmt.Sprintf(`#proposal-%d`, reject)
		assert.Equal(t, "Move Grace Hopper from Screening to Offer", b.text(card+` h2`))
		b.run(chromedp.Click(chromedp.CSS(card+` button[value=reject]`)),
			chromedp.WaitVisible(chromedp.Search(fmt.Sprintf(`//section[@id="done"]/h2[starts-with(., "Proposal %d:")]`, reject))))
		assert.Contains(t, b.text(`#done`), "rejected")
		assert.Equal(t, "Screening", candidateStage(t, f, "backend", "grace"), "nothing changed")
		assert.Equal(t, pipeline.ProposalRejected, proposalStatus(t, f, reject))

		b.run(chromedp.Click(chromedp.Search(`//a[normalize-space()="Decided, expired and withdrawn"]`)),
			chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#proposal-%d`, approve))))
		assert.Contains(t, b.text(fmt.Sprintf(`#proposal-%d .outcome`, approve)), "applied by Mia Member")
		assert.Contains(t, b.text(fmt.Sprintf(`#proposal-%d .outcome`, reject)), "rejected by Mia Member")
		b.shot("decided")
	})
}
