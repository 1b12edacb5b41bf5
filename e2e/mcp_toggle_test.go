package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// toggleSite is a settings form with one checkbox whose state the server
// keeps: a save stores what was sent.
type toggleSite struct {
	*httptest.Server
	digest atomic.Bool  // the saved state of "Weekly digest"
	saves  atomic.Int32 // how many times the form was sent
}

func newToggleSite(t *testing.T) *toggleSite {
	s := &toggleSite{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			r.ParseForm()
			s.digest.Store(r.PostForm.Get("digest") == "on")
			s.saves.Add(1)
			fmt.Fprint(w, `<!doctype html><title>Saved</title><main><h1>Settings</h1><p role="status">Settings saved</p></main>`)
			return
		}
		checked := ""
		if s.digest.Load() {
			checked = " checked"
		}
		fmt.Fprintf(w, `<!doctype html><title>Settings</title><main><h1>Settings</h1>
<form method="post" action="/settings"><input type="checkbox" id="d" name="digest"%s><label for="d">Weekly digest</label><button>Save</button></form></main>`, checked)
	}))
	t.Cleanup(s.Close)
	return s
}

// TestToggleReplaysToTheRecordedState records a session that turns a
// checkbox on with a click and saves, with a verify that only sees
// "Settings saved". Replayed where the box is already on, a blind click
// would turn it off and still pass that verify. Through @playwright/mcp
// the ref's line keeps the state it showed, and a box found already as
// the click left it is not clicked; through rote mcp browser the click is
// distilled to check, which leaves the box on. Both save it on.
func TestToggleReplaysToTheRecordedState(t *testing.T) {
	long(t, "checkbox replays through both browser MCP servers")
	t.Parallel()
	for _, srv := range []struct {
		name    string
		command serverCommand
		drive   func(c *rawClient, base string)
	}{
		{"@playwright/mcp", playwrightMCP, func(c *rawClient, base string) {
			c.text("browser_navigate", map[string]any{"url": base + "/"})
			snap := c.text("browser_snapshot", map[string]any{})
			c.text("browser_click", map[string]any{"element": "Weekly digest", "target": snapshotRef(c.t, snap, "checkbox", "Weekly digest")})
			c.text("browser_click", map[string]any{"element": "Save", "target": snapshotRef(c.t, snap, "button", "Save")})
			c.text("browser_snapshot", map[string]any{})
		}},
		{"rote mcp browser", roteBrowserServer, func(c *rawClient, base string) {
			page := c.text("navigate", map[string]any{"url": base + "/"})
			c.text("click", map[string]any{"target": roteID(c.t, page, "checkbox", "Weekly digest")})
			c.text("click", map[string]any{"target": roteID(c.t, page, "button", "Save")})
			c.text("done", map[string]any{"reason": "saved"})
		}},
	} {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			site := newToggleSite(t)
			dir := t.TempDir()
			server := srv.command(t, dir)
			rec := recordSession(t, dir, []string{"--task", "digest-on", "--text", "Turn the weekly digest on",
				"--target", "settings", "--verify", "text_visible: Settings saved"}, server, "2025-06-18", func(c *rawClient) { srv.drive(c, site.URL) })
			if !site.digest.Load() {
				t.Fatal("the recorded session did not turn the digest on")
			}
			data := []string{"--data", dir}
			site.digest.Store(false)
			code, out := rote(t, dir, append(append(data, "promote", rec.runID, "--target", "settings", "--"), server...)...)
			if code != 0 || !strings.Contains(out, "promoted digest-on v1") || !site.digest.Load() {
				t.Fatalf("promote: exit %d, digest %v\n%s", code, site.digest.Load(), out)
			}
			replay := append(data, "replay", "digest-on", "--target", "settings", "--")
			saves := site.saves.Load()
			code, out = rote(t, dir, append(replay, server...)...)
			if !site.digest.Load() {
				t.Fatalf("the replay on a box already on turned it off (exit %d)\n%s", code, out)
			}
			if code != 0 || !strings.Contains(out, "success: verified") || site.saves.Load() != saves+1 {
				t.Fatalf("the replay on a box already on: exit %d, %d saves; want it left on and saved once\n%s", code, site.saves.Load()-saves, out)
			}
			site.digest.Store(false)
			if code, out = rote(t, dir, append(replay, server...)...); code != 0 || !site.digest.Load() {
				t.Fatalf("the replay on a box that is off: exit %d, digest %v\n%s", code, site.digest.Load(), out)
			}
		})
	}
}
