package pipelinehttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinehttp/browsertest"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// The browser tests drive Debian's chromium, headless, through the pages
// a real server serves on a real database.

// tab is a browser tab on a served world.
type tab struct {
	*browsertest.Tab
	t    *testing.T
	base string
	f    storetest.Fixture
}

// newTab opens a tab the size of a phone or a desktop on the world f
// served at base.
func newTab(t *testing.T, f storetest.Fixture, base string, width, height int64) *tab {
	t.Helper()
	return &tab{Tab: browsertest.NewTab(t, width, height), t: t, base: base, f: f}
}

// signIn opens a fresh sign-in link of email and presses its button.
func (b *tab) signIn(email string) {
	b.t.Helper()
	secret, err := b.f.Op.SignInLink(context.Background(), email)
	require.NoError(b.t, err)
	b.Run(chromedp.Navigate(pipeline.SignInURL(b.base, secret)), chromedp.WaitVisible(chromedp.CSS(`main form button`)))
	assert.Contains(b.t, b.Text("main"), "Sign in as "+email[:1]+"…@")
	b.Run(chromedp.Click(chromedp.CSS(`main form button`)), chromedp.WaitVisible(chromedp.CSS(`#new-h`)))
	assert.Equal(b.t, b.base+"/app/tokens", b.Location(), "no secret left in the URL")
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
	browsertest.Chromium(t)
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f, base := serveWorld(t, db)
		b := newTab(t, f, base, 1280, 900)
		b.signIn("olivia@acme.test")

		b.Run(
			chromedp.SendKeys(chromedp.CSS(`#name`), "agent"),
			chromedp.Click(chromedp.CSS(`#scope-jobs\:read`)),
			chromedp.Click(chromedp.CSS(`#scope-candidates\:read`)),
			chromedp.Click(chromedp.CSS(`#new-h ~ form button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(`#token-value`)),
		)
		value := browsertest.Get(b.Tab, chromedp.Value(chromedp.CSS(`#token-value`)))
		require.True(t, pipeline.WellFormedToken(value), value)
		assert.NotContains(t, b.Location(), value, "never in a URL")
		b.Shot("created")

		status, scopes := me(t, base, value)
		require.Equal(t, http.StatusOK, status)
		assert.Equal(t, []string{"jobs:read", "candidates:read"}, scopes, "exactly the ticked scopes")

		b.Run(chromedp.Navigate(base+"/app/tokens"), chromedp.WaitVisible(chromedp.CSS(`#mine-h`)))
		assert.NotContains(t, b.Text("main"), value, "shown once")
		b.Run(
			chromedp.Click(chromedp.Search(`//section[h2[@id="mine-h"]]//tr[td[1][normalize-space()="agent"]]//a`)),
			chromedp.WaitVisible(chromedp.CSS(`button.danger`)),
		)
		assert.Contains(t, b.Text("h1"), "Revoke token “agent”?")
		status, _ = me(t, base, value)
		assert.Equal(t, http.StatusOK, status, "the confirmation page revokes nothing")
		b.Run(chromedp.Click(chromedp.CSS(`button.danger`)), chromedp.WaitVisible(chromedp.CSS(`#mine-h`)))
		state := browsertest.Get(b.Tab, chromedp.Text(chromedp.Search(`//section[h2[@id="mine-h"]]//tr[td[1][normalize-space()="agent"]]/td[@data-label="State"]`)))
		assert.Equal(t, "revoked", state)

		status, _ = me(t, base, value)
		assert.Equal(t, http.StatusUnauthorized, status)
	})
}

// TestBrowser_Refusals: a forged form does nothing; a used or stale link
// signs nobody in.
func TestBrowser_Refusals(t *testing.T) {
	browsertest.Chromium(t)
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
		b.Run(
			chromedp.SetValue(chromedp.CSS(`#new-h ~ form input[name=csrf]`), "forged"),
			chromedp.SendKeys(chromedp.CSS(`#name`), "forged"),
			chromedp.Click(chromedp.CSS(`#new-h ~ form button[type=submit]`)),
			chromedp.WaitVisible(chromedp.Search(`//h1[normalize-space()="Form refused"]`)),
		)
		assert.Contains(t, b.Text("main"), "nothing was done")
		assert.Equal(t, before, count(), "a forged form makes no token")

		// A used link: the tab above used one; open a used one again.
		secret, err := f.Op.SignInLink(context.Background(), "adam@acme.test")
		require.NoError(t, err)
		_, err = f.Svc.SignIn(context.Background(), secret)
		require.NoError(t, err)
		other := newTab(t, f, base, 1280, 900)
		other.Run(chromedp.Navigate(pipeline.SignInURL(base, secret)), chromedp.WaitVisible(chromedp.CSS(`main p.error`)))
		assert.Contains(t, other.Text("main"), "used or expired")
		assert.Zero(t, other.Count(`main form button`), "no button to press")

		// A stale link: 15 minutes after it was made.
		stale, err := f.Op.SignInLink(context.Background(), "adam@acme.test")
		require.NoError(t, err)
		other.Run(chromedp.Navigate(pipeline.SignInURL(base, stale)), chromedp.WaitVisible(chromedp.CSS(`main form button`)))
		clock.Advance(pipeline.SignInLinkLifetime)
		other.Run(chromedp.Click(chromedp.CSS(`main form button`)), chromedp.WaitVisible(chromedp.CSS(`main p.error`)))
		assert.Contains(t, other.Text("main"), "used or expired")
		other.Run(chromedp.Navigate(base+"/app/tokens"), chromedp.WaitVisible(chromedp.CSS(`#email`)))
		assert.Equal(t, base+"/app/sign-in", other.Location(), "not signed in")
	})
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
	browsertest.Chromium(t)
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
				b.AssertFits(page)
				b.Shot(page)
			}
			b.Run(chromedp.Navigate(base+"/app/sign-in"), chromedp.WaitVisible(chromedp.CSS(`#email`)))
			fits("sign-in")
			b.signIn("olivia@acme.test")
			fits("tokens")
			b.Run(chromedp.Navigate(base+"/app/approvals"), chromedp.WaitVisible(chromedp.CSS(`article.proposal`)))
			fits("approvals")
			b.Run(chromedp.Navigate(base+"/app/tokens"), chromedp.WaitVisible(chromedp.CSS(`#name`)))
			// The keyboard alone reaches the form: focus moves to the
			// name field and a box by Tab.
			b.Run(chromedp.Focus(chromedp.CSS(`#name`)), chromedp.KeyEvent("\t"))
			focused := browsertest.Get(b.Tab, chromedp.Evaluate[string](`document.activeElement.id`))
			assert.Equal(t, "scope-jobs:read", focused)
		})
	}
}

// TestBrowser_Approvals: a person approves an agent's proposal and sees
// the candidate moved, and rejects another and sees nothing changed.
func TestBrowser_Approvals(t *testing.T) {
	browsertest.Chromium(t)
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f, base := serveWorld(t, db, approvalOptions(t)...)
		token := agent(t, f, "olivia", "sourcing agent", pipeline.OpMoveCandidate)
		approve := propose(t, base, token, "POST", candidatePath(f, "backend", "ada")+"/stage",
			map[string]any{"stage": f.Res.Stages["backend"]["Screening"], "reason": "Her résumé matches the role."})
		reject := propose(t, base, token, "POST", candidatePath(f, "backend", "grace")+"/stage",
			map[string]any{"stage": f.Res.Stages["backend"]["Offer"], "reason": "Skip the interview."})

		b := newTab(t, f, base, 1280, 900)
		b.signIn("mia@acme.test")
		b.Run(chromedp.Click(chromedp.Search(`//nav//a[starts-with(normalize-space(), "Approvals")]`)),
			chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#proposal-%d`, approve))))
		card := fmt.Sprintf(`#proposal-%d`, approve)
		assert.Equal(t, "Move Ada Lovelace from Applied to Screening", b.Text(card+` h2`))
		assert.Contains(t, b.Text(card), "Asked by the token “sourcing agent” of Olivia Owner")
		assert.Contains(t, b.Text(card+` blockquote`), "Her résumé matches the role.")
		b.Run(chromedp.SendKeys(chromedp.CSS(card+` textarea`), "Agreed."),
			chromedp.Click(chromedp.CSS(card+` button[value=approve]`)),
			chromedp.WaitVisible(chromedp.CSS(`#done`)))
		assert.Contains(t, b.Text(`#done`), "applied")
		assert.Contains(t, b.Text(`#done`), "Move Ada Lovelace to Screening")
		assert.Equal(t, "Screening", candidateStage(t, f, "backend", "ada"), "the candidate moved")
		assert.Zero(t, b.Count(card), "no longer waiting")

		card = fmt.Sprintf(`#proposal-%d`, reject)
		assert.Equal(t, "Move Grace Hopper from Screening to Offer", b.Text(card+` h2`))
		b.Run(chromedp.Click(chromedp.CSS(card+` button[value=reject]`)),
			chromedp.WaitVisible(chromedp.Search(fmt.Sprintf(`//section[@id="done"]/h2[starts-with(., "Proposal %d:")]`, reject))))
		assert.Contains(t, b.Text(`#done`), "rejected")
		assert.Equal(t, "Screening", candidateStage(t, f, "backend", "grace"), "nothing changed")
		assert.Equal(t, pipeline.ProposalRejected, proposalStatus(t, f, reject))

		b.Run(chromedp.Click(chromedp.Search(`//a[normalize-space()="Decided, expired and withdrawn"]`)),
			chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#proposal-%d`, approve))))
		assert.Contains(t, b.Text(fmt.Sprintf(`#proposal-%d .outcome`, approve)), "applied by Mia Member")
		assert.Contains(t, b.Text(fmt.Sprintf(`#proposal-%d .outcome`, reject)), "rejected by Mia Member")
		b.Shot("decided")
	})
}
