package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipelinehttp/browsertest"
)

// TestBrowser_DemoSignIn: in Chromium, on a phone and on a desktop, the
// demo's "Email me a sign-in link" prints a link to the demo's terminal
// that signs the user in, with no secret left in the URL; every page on
// the way fits the width and is saved as a screenshot.
func TestBrowser_DemoSignIn(t *testing.T) {
	t.Parallel()
	browsertest.Chromium(t)
	for _, size := range []struct{ w, h int64 }{{360, 800}, {1280, 900}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			d := startDemo(t, nil)
			b := browsertest.NewTab(t, size.w, size.h)
			page := func(name string) {
				t.Helper()
				b.AssertFits(name)
				b.Shot(name)
			}

			b.Run(chromedp.Navigate(d.srv.URL+"/app/sign-in"), chromedp.WaitVisible(chromedp.CSS(`#email`)))
			b.Run(chromedp.SendKeys(chromedp.CSS(`#email`), "adam@acme.test"))
			page("1-form")
			before := d.srv.stderr.String()
			b.Run(chromedp.Click(chromedp.Search(`//button[normalize-space()="Email me a sign-in link"]`)),
				chromedp.WaitVisible(chromedp.CSS(`main [role=status], main [role=alert]`)))
			require.Contains(t, b.Text("main"), "a sign-in link is on its way")
			page("2-sent")

			link := d.mailedLink(t, before)
			secret := strings.TrimPrefix(link, d.srv.URL+"/app/sign-in/")

			b.Run(chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(`main form button, main .error`)))
			require.Contains(t, b.Text("main"), "Sign in as a…@acme.test")
			page("3-link")
			b.Run(chromedp.Click(chromedp.CSS(`main form button`)), chromedp.WaitVisible(chromedp.CSS(`#new-h, main .error, #email`)))
			require.Equal(t, "API tokens", b.Text("main h1"), "signed in: %s", b.Text("main"))
			assert.Equal(t, "Adam Admin", b.Text("header .who"))
			assert.Equal(t, d.srv.URL+"/app/tokens", b.Location())
			assert.NotContains(t, b.Location(), secret, "no secret left in the URL")
			page("4-signed-in")
		})
	}
}
