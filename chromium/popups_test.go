package chromium

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// TestPopupsAreRefusedByTheBrowser: a page that undoes any blocker in its
// own world (a capture-phase handler that stops every click on the
// window, form.submit() on a form aimed at _blank, window.open) opens no
// tab, nor does a click with Shift, Ctrl or the middle button (a page
// with no opener): the browser holds the new page before it runs, fails
// what it asks for and closes it. The other origin hears nothing, and the
// opener hears Page.windowOpen with the address. No client may turn those
// guards off.
func TestPopupsAreRefusedByTheBrowser(t *testing.T) {
	var heard atomic.Int64
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		heard.Add(1)
		io.WriteString(w, "<p>stolen</p>")
	}))
	defer evil.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><script>window.addEventListener("click", e => e.stopPropagation(), true)</script>
<a id=link href="%[1]s/link" target=_blank rel=noopener>Partner</a>
<form id=form method=post action="%[1]s/post" target=_blank><input name=pw value=hunter2></form>
<button id=submit onmousedown="document.getElementById('form').submit()">Send</button>
<button id=open onmousedown="window.open('%[1]s/open')">Open</button>
<a id=plain href="%[1]s/plain">Plain</a>`, evil.URL)
	}))
	defer home.Close()

	ctx := testContext(t)
	p, err := Launch(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	alloc, cancel := p.Allocator(ctx)
	defer cancel()
	var mu sync.Mutex
	var opened []string
	tab, cancelTab := chromedp.NewContext(alloc, chromedp.WithNewBrowserContext(), chromedp.WithListener(func(ev any) {
		if e, ok := ev.(*page.EventWindowOpen); ok {
			mu.Lock()
			opened = append(opened, e.URL)
			mu.Unlock()
		}
	}))
	defer cancelTab()
	if err := chromedp.Do(tab, chromedp.Navigate(home.URL)); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"#link", "#submit", "#open"} {
		if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(id))); err != nil {
			t.Fatalf("click %s: %v", id, err)
		}
	}
	// A click with Shift, Ctrl or the middle button opens a page with no
	// opener, in the session's browser context.
	at, err := chromedp.Run(tab, chromedp.Evaluate[[]float64](`(() => { const r = document.getElementById("plain").getBoundingClientRect(); return [r.x + r.width/2, r.y + r.height/2] })()`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		modifiers int64
		button    input.MouseButton
	}{{8, input.MouseButtonLeft}, {2, input.MouseButtonLeft}, {0, input.MouseButtonMiddle}} {
		for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
			if _, err := chromedp.Call(tab, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: typ, X: at[0], Y: at[1], Button: c.button, ClickCount: 1, Modifiers: c.modifiers}); err != nil {
				t.Fatal(err)
			}
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(opened)
		mu.Unlock()
		if n == 6 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the opener heard of %d popups, want 6: %v", n, opened)
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // time for a request that got out to arrive
	if n := heard.Load(); n != 0 {
		t.Fatalf("the other origin heard %d requests", n)
	}
	want := map[string]bool{evil.URL + "/link": true, evil.URL + "/post": true, evil.URL + "/open": true, evil.URL + "/plain": true}
	for _, u := range opened {
		if !want[u] {
			t.Errorf("the opener heard of a popup at %s", u)
		}
	}
	// The popups are closed as soon as their requests are held, which on a
	// loaded machine may come after the opener heard of them.
	deadline = time.Now().Add(10 * time.Second)
	for pages := pageTargets(t, tab); pages != 1; pages = pageTargets(t, tab) {
		if time.Now().After(deadline) {
			t.Fatalf("%d pages in the session's browser context, want 1", pages)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := chromedp.Run(tab, chromedp.Title()); err != nil {
		t.Fatalf("the opener after its popups were refused: %v", err)
	}
	// No client may turn the browser's own guards off.
	browser := chromedp.FromContext(tab).Browser
	if _, err := cdp.Call(ctx, browser, fetch.Disable, cdp.Empty{}); err == nil {
		t.Error("a client turned the browser's request interception off")
	}
	if _, err := cdp.Call(ctx, browser, target.SetAutoAttach, target.SetAutoAttachParams{}); err == nil {
		t.Error("a client turned the browser's auto-attach off")
	}
}

// pageTargets counts the page targets in the browser context of tab.
func pageTargets(t *testing.T, tab context.Context) int {
	t.Helper()
	c := chromedp.FromContext(tab)
	infos, err := chromedp.Targets(tab)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, info := range infos {
		if info.Type == "page" && info.BrowserContextID == c.BrowserContextID {
			n++
		}
	}
	return n
}
