// Package browsertest drives Debian's Chromium, headless, through pages a
// test serves, one tab a browser, and saves screenshots of them. It is a
// normal package so that the tests of every package that serves pages can
// use it.
//
// Without Chromium the tests that ask for it are skipped, except under
// CI=true, where they fail, so that CI never silently leaves the pages
// untested.
package browsertest

import (
	"context"
	"fmt"
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
)

// ScreenshotsEnv names the environment variable holding the folder the
// screenshots go to; unset, they go to a folder under the system's
// temporary directory, kept after the test so that a failure's screenshot
// can be looked at.
const ScreenshotsEnv = "PIPELINE_TEST_SCREENSHOTS"

// Chromium returns the browser's path, skipping the test without one
// unless CI=true, where its absence fails the test.
func Chromium(t testing.TB) string {
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

var (
	shotsOnce sync.Once
	shotsDir  string
	shotsErr  error
)

// Screenshots returns the folder screenshots go to, made if missing.
func Screenshots(t testing.TB) string {
	t.Helper()
	shotsOnce.Do(func() {
		shotsDir = os.Getenv(ScreenshotsEnv)
		if shotsDir == "" {
			shotsDir = filepath.Join(os.TempDir(), "pipeline-screenshots")
		}
		shotsErr = os.MkdirAll(shotsDir, 0o755)
	})
	if shotsErr != nil {
		t.Fatalf("screenshots folder: %v", shotsErr)
	}
	return shotsDir
}

// Tab is a tab of a browser of its own, of a test.
type Tab struct {
	t   testing.TB
	ctx context.Context
}

// NewTab starts Chromium with one tab of width by height CSS pixels, a
// phone's or a desktop's, that closes when the test ends. When the test
// has failed by then, the tab's page is saved first as the screenshot
// "FAILED".
func NewTab(t testing.TB, width, height int64) *Tab {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(Chromium(t)), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(width, height)))
	b := &Tab{t: t, ctx: ctx}
	t.Cleanup(func() {
		if t.Failed() {
			b.Shot("FAILED")
		}
	})
	return b
}

// StepTimeout bounds each Run and Get, so that a page that never shows
// what a test waits for fails it soon, with the tab still alive for the
// screenshot.
const StepTimeout = 20 * time.Second

// step is the tab's context with StepTimeout; a timeout derives from a
// context that has run once, or it would stop the whole browser.
func (b *Tab) step() context.Context {
	ctx, cancel := context.WithTimeout(b.ctx, StepTimeout)
	b.t.Cleanup(cancel)
	return ctx
}

// Run runs actions in the tab in turn, failing the test at the first
// error.
func (b *Tab) Run(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	require.NoError(b.t, chromedp.Do(b.step(), actions...))
}

// Get runs one action in the tab and returns its value, failing the test
// on error.
func Get[T any](b *Tab, a chromedp.Action[T]) T {
	b.t.Helper()
	v, err := chromedp.Run(b.step(), a)
	require.NoError(b.t, err)
	return v
}

// Text returns the visible text of the first element CSS selector sel
// matches.
func (b *Tab) Text(sel string) string {
	b.t.Helper()
	return Get(b, chromedp.Text(chromedp.CSS(sel)))
}

// Location returns the URL of the tab's page.
func (b *Tab) Location() string {
	b.t.Helper()
	return Get(b, chromedp.Location())
}

// Count returns how many elements CSS selector sel matches.
func (b *Tab) Count(sel string) int {
	b.t.Helper()
	return Get(b, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)))
}

// AssertFits asserts that the page, named page in the message, does not
// scroll sideways at the tab's width; the message lists the elements that
// stand out on the right.
func (b *Tab) AssertFits(page string) bool {
	b.t.Helper()
	scroll := Get(b, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`))
	inner := Get(b, chromedp.Evaluate[int64](`window.innerWidth`))
	if scroll <= inner {
		return true
	}
	wide := Get(b, chromedp.Evaluate[[]string](`[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > window.innerWidth + 1).map(e => e.tagName + '.' + e.className)`))
	return assert.LessOrEqual(b.t, scroll, inner, "%s scrolls sideways at %d px: %v", page, inner, wide)
}

// Shot saves the whole page as a PNG in Screenshots, named after the test
// and name, logs its path and returns it; it fails no test, returning ""
// when the page could not be saved.
func (b *Tab) Shot(name string) string {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	file := strings.NewReplacer("/", "_", " ", "_").Replace(b.t.Name()) + "-" + name + ".png"
	path := filepath.Join(Screenshots(b.t), file)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	b.t.Logf("screenshot: %s", path)
	return path
}
