package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// destinationSite registers a vendor on a page whose script handles the
// form: it sends nothing and says the vendor is registered. Its drifts
// send the company's name to an address the recording never sent it to:
// "form", the same button now in a GET form aimed at /vendors/register-v2;
// "script", the button's script now navigating there with the name in
// the query. The site counts what reached that address.
type destinationSite struct {
	*httptest.Server
	drift    atomic.Value // "", "form" or "script"
	received atomic.Int32 // requests to /vendors/register-v2
}

func newDestinationSite(t *testing.T) *destinationSite {
	s := &destinationSite{}
	s.drift.Store("")
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/vendors/register-v2" {
			s.received.Add(1)
			fmt.Fprint(w, `<!doctype html><title>Registered</title><main><h1>Registered</h1></main>`)
			return
		}
		field := `<label for="c">Company name</label><input id="c" name="company_name">`
		status := `<p role="status" id="s"></p>`
		var body string
		switch s.drift.Load() {
		case "form":
			body = `<form action="/vendors/register-v2" method="get">` + field + `<button id="b">Register</button></form>` + status
		case "script":
			body = field + `<button id="b">Register</button>` + status +
				`<script>b.onclick = () => { location.href = '/vendors/register-v2?company_name=' + encodeURIComponent(c.value); };</script>`
		default:
			body = field + `<button id="b">Register</button>` + status +
				`<script>b.onclick = () => { s.textContent = 'Vendor ' + c.value + ' registered'; };</script>`
		}
		fmt.Fprintf(w, `<!doctype html><title>Register a vendor</title><main><h1>Register a vendor</h1>%s</main>`, body)
	}))
	t.Cleanup(s.Close)
	return s
}

// TestNoTaskValueLeavesForANewAddress records, through both browser MCP
// servers, a registration whose form a script handled (nothing was
// sent), then replays it where the page now sends the company's name to
// /vendors/register-v2, by a GET form or by its script (through
// @playwright/mcp too, whose send guard keeps the run's typed values from
// leaving by a control that sent nothing): the replay stops with
// contract_changed and the site receives nothing. On the page as
// recorded the replay does the task.
func TestNoTaskValueLeavesForANewAddress(t *testing.T) {
	t.Parallel()
	for _, srv := range []struct {
		name    string
		command serverCommand
		drive   func(c *rawClient, base string)
		drifts  []string // the drifts the replay must stop on
	}{
		{"rote mcp browser", roteBrowserServer, func(c *rawClient, base string) {
			page := c.text("navigate", map[string]any{"url": base + "/"})
			c.text("fill", map[string]any{"target": roteID(c.t, page, "textbox", "Company name"), "value": "Globex Ltd"})
			c.text("click", map[string]any{"target": roteID(c.t, page, "button", "Register")})
			c.text("done", map[string]any{"reason": "registered"})
		}, []string{"form", "script"}},
		{"@playwright/mcp", playwrightMCP, func(c *rawClient, base string) {
			c.text("browser_navigate", map[string]any{"url": base + "/"})
			snap := c.text("browser_snapshot", map[string]any{})
			c.text("browser_type", map[string]any{"element": "Company name", "target": snapshotRef(c.t, snap, "textbox", "Company name"), "text": "Globex Ltd"})
			c.text("browser_click", map[string]any{"element": "Register", "target": snapshotRef(c.t, snap, "button", "Register")})
			c.text("browser_snapshot", map[string]any{})
		}, []string{"form", "script"}},
	} {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			site := newDestinationSite(t)
			dir := t.TempDir()
			server := srv.command(t, dir)
			rec := recordSession(t, dir, []string{"--task", "register", "--text", "Register the vendor Globex Ltd",
				"--param", "company=Globex Ltd", "--target", "vendors", "--verify", "text_visible: Vendor Globex Ltd registered"}, server, "2025-06-18", func(c *rawClient) { srv.drive(c, site.URL) })
			data := []string{"--data", dir}
			if code, out := rote(t, dir, append(append(data, "promote", rec.runID, "--target", "vendors", "--"), server...)...); code != 0 {
				t.Fatalf("promote: exit %d\n%s", code, out)
			}
			replay := append(data, "replay", "register", "--target", "vendors", "--param", "company=Initech AG", "--")
			for _, drift := range srv.drifts {
				site.drift.Store(drift)
				code, out := rote(t, dir, append(replay, server...)...)
				if n := site.received.Load(); code == 0 || n != 0 || !strings.Contains(out, "contract_changed") {
					t.Fatalf("drift %s: exit %d, %d requests reached /vendors/register-v2; want a contract_changed stop that sends nothing\n%s", drift, code, n, out)
				}
			}
			site.drift.Store("")
			if code, out := rote(t, dir, append(replay, server...)...); code != 0 || !strings.Contains(out, "success") {
				t.Fatalf("the replay on the page as recorded: exit %d\n%s", code, out)
			}
		})
	}
}
