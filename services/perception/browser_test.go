package perception

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
	"github.com/rote-agent/rote/schema"
)

// browserWS is the DevTools address of the one Chromium this package's
// tests share, started by TestMain.
var browserWS string

func TestMain(m *testing.M) {
	cmd, ws, err := launchChromium()
	if err != nil {
		fmt.Fprintln(os.Stderr, "perception tests need /usr/bin/chromium (scripts/setup installs it):", err)
		os.Exit(1)
	}
	browserWS = ws
	code := m.Run()
	cmd.Process.Kill()
	cmd.Wait()
	os.Exit(code)
}

// launchChromium starts headless Chromium with the flags this machine
// needs and returns its DevTools WebSocket address.
func launchChromium() (*exec.Cmd, string, error) {
	dir, err := os.MkdirTemp("", "perception-chromium-")
	if err != nil {
		return nil, "", err
	}
	cmd := exec.Command("/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir="+dir,
		"--remote-debugging-port=0", "--window-size=1280,900", "about:blank")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	sc := bufio.NewScanner(stderr)
	re := regexp.MustCompile(`DevTools listening on (ws://\S+)`)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			go func() {
				for sc.Scan() {
				}
			}()
			return cmd, m[1], nil
		}
	}
	cmd.Process.Kill()
	return nil, "", fmt.Errorf("chromium printed no DevTools address")
}

// page is a tab of its own browser context, driven by the test.
type page struct {
	ctx context.Context
	ref schema.BrowserRef
}

// openPage opens url in a new browser context and returns the tab.
func openPage(t testing.TB, url string) *page {
	t.Helper()
	alloc, cancelAlloc := remote.NewAllocator(context.Background(), browserWS)
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithNewBrowserContext())
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("navigate %s: %v", url, err)
	}
	return &page{ctx: ctx, ref: schema.BrowserRef{WSURL: browserWS, TargetID: string(chromedp.FromContext(ctx).Target.TargetID)}}
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

// observeNow captures and distills p's page directly, outside any service.
func observeNow(t testing.TB, p *page) []schema.ObservedNode {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	c, err := capturePage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return observedNodes(distill(c.dom, c.frames))
}
