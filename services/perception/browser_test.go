package perception

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/rote-agent/rote/chromium"
	"github.com/rote-agent/rote/schema"
)

// browser is the one Chromium this package's tests share, started by
// TestMain.
var browser *chromium.Process

func TestMain(m *testing.M) {
	var err error
	browser, err = chromium.Launch(context.Background(), "")
	if err != nil {
		fmt.Fprintln(os.Stderr, "perception tests need /usr/bin/chromium (scripts/setup installs it):", err)
		os.Exit(1)
	}
	code := m.Run()
	browser.Kill()
	os.Exit(code)
}

// page is a tab of its own browser context, driven by the test.
type page struct {
	ctx    context.Context
	ref    schema.BrowserRef
	frames *remoteFrames
}

// openPage opens url in a new browser context and returns the tab.
func openPage(t testing.TB, url string) *page {
	t.Helper()
	alloc, cancelAlloc := browser.Allocator(context.Background())
	frames := newRemoteFrames()
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithNewBrowserContext(), chromedp.WithListener(frames.onEvent))
	frames.parent = ctx
	t.Cleanup(func() { frames.close(); cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("navigate %s: %v", url, err)
	}
	return &page{ctx: ctx, frames: frames, ref: schema.BrowserRef{Endpoint: browser.Endpoint(), TargetID: string(chromedp.FromContext(ctx).Target.TargetID)}}
}

// run evaluates script in the page.
func (p *page) run(t testing.TB, script string) {
	t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Evaluate[chromedp.Void](script)); err != nil {
		t.Fatalf("script %q: %v", script, err)
	}
}

// navigate loads url in the page.
func (p *page) navigate(t testing.TB, url string) {
	t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
}

// serve serves HTML pages by path.
func serve(t testing.TB, pages map[string]string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// observeNow captures and condenses p's page directly, outside any service.
func observeNow(t testing.TB, p *page) []schema.ObservedNode {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	c, err := capturePage(ctx, p.frames, true)
	if err != nil {
		t.Fatal(err)
	}
	return observedNodes(condense(c))
}
