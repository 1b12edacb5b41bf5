package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// enterSite is one form whose only field sends it on Enter. Its action
// can change between recording and replay; every POST is kept with its
// path.
type enterSite struct {
	*httptest.Server
	action atomic.Value // string: the form's action
	script atomic.Value // string: a handler attribute of the form that moves it to /purge
	mu     sync.Mutex
	posts  []string // "path name=value"
}

func newEnterSite(t *testing.T) *enterSite {
	s := &enterSite{}
	s.action.Store("/save")
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			r.ParseForm()
			s.mu.Lock()
			s.posts = append(s.posts, r.URL.Path+" "+url.Values(r.PostForm).Encode())
			s.mu.Unlock()
			fmt.Fprintf(w, `<!doctype html><title>Saved</title><main><h1>Saved</h1><p role="status">Company %s saved</p></main>`, r.PostForm.Get("company"))
			return
		}
		onInput, _ := s.script.Load().(string)
		fmt.Fprintf(w, `<!doctype html><title>Company</title><main><h1>New company</h1>
<form method="post" action=%q%s><label for="c">Company</label><input id="c" name="company"><button>Save</button></form></main>`, s.action.Load(), onInput)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *enterSite) sent() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.posts...)
}

// TestEnterSendsOnlyWhereItWasRecorded records a session that sends a
// form by pressing Enter in its field (@playwright/mcp: browser_type
// with submit; rote mcp browser: press Enter on the field), replays it
// with another value, then replays it against the same form now posting
// to /purge: the replay must stop with contract_changed and send nothing
// there. A key press in a field is a submit; before the field's contract
// named its form's action, it went through and reported success. Each
// server is recorded by a raw client speaking each protocol version
// (promoted and replayed by one negotiating its own); the drift is tried
// on the first.
func TestEnterSendsOnlyWhereItWasRecorded(t *testing.T) {
	long(t, "Enter-key replays through both browser MCP servers")
	t.Parallel()
	for _, srv := range []struct {
		name    string
		command serverCommand
		drive   func(c *rawClient, base string)
	}{
		{"@playwright/mcp", playwrightMCP, func(c *rawClient, base string) {
			c.text("browser_navigate", map[string]any{"url": base + "/"})
			snap := c.text("browser_snapshot", map[string]any{})
			c.text("browser_type", map[string]any{"element": "Company", "target": snapshotRef(c.t, snap, "textbox", "Company"), "text": "Acme", "submit": true})
			if final := c.text("browser_snapshot", map[string]any{}); !strings.Contains(final, "Company Acme saved") {
				c.t.Fatalf("the session did not save:\n%.2000s", final)
			}
		}},
		{"rote mcp browser", roteBrowserServer, func(c *rawClient, base string) {
			page := c.text("navigate", map[string]any{"url": base + "/"})
			field := roteID(c.t, page, "textbox", "Company")
			c.text("fill", map[string]any{"target": field, "value": "Acme"})
			c.text("press", map[string]any{"target": field, "key": "Enter"})
			if final := c.text("done", map[string]any{"reason": "saved"}); !strings.Contains(final, "Company Acme saved") {
				c.t.Fatalf("the session did not save:\n%.2000s", final)
			}
		}},
	} {
		for i, version := range []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
			t.Run(srv.name+"/"+version, func(t *testing.T) {
				t.Parallel()
				enterFlow(t, srv.command, srv.drive, version, i == 0)
			})
		}
	}
}

// enterFlow records the Enter session with a client speaking version,
// promotes it with a replay client negotiating its own, and replays it
// with another value; with drift, also against the form now posting to
// /purge, and against one that moves there as its field is typed into or
// as Enter is pressed.
func enterFlow(t *testing.T, command serverCommand, drive func(c *rawClient, base string), version string, drift bool) {
	site := newEnterSite(t)
	dir := t.TempDir()
	server := command(t, dir)
	rec := recordSession(t, dir, []string{"--task", "save-company", "--text", "Save the company Acme", "--param", "company=Acme",
		"--target", "enter-form", "--verify", "text_visible: Company Acme saved"}, server, version, func(c *rawClient) { drive(c, site.URL) })
	data := []string{"--data", dir}
	code, out := rote(t, dir, append(append(data, "promote", rec.runID, "--target", "enter-form", "--"), server...)...)
	if code != 0 || !strings.Contains(out, "promoted save-company v1") {
		t.Fatalf("promote: exit %d\n%s", code, out)
	}
	replay := append(data, "replay", "save-company", "--target", "enter-form", "--param", "company=Initech", "--")
	code, out = rote(t, dir, append(replay, server...)...)
	if sent := site.sent(); code != 0 || !strings.Contains(out, "success: verified") || sent[len(sent)-1] != "/save company=Initech" {
		t.Fatalf("replay on the recorded form: exit %d, posts %v\n%s", code, sent, out)
	}
	if !drift {
		return
	}
	site.action.Store("/purge")
	before := len(site.sent())
	code, out = rote(t, dir, append(replay, server...)...)
	if sent := site.sent(); len(sent) != before {
		t.Fatalf("the replay sent %v to a form that now purges (exit %d)\n%s", sent[before:], code, out)
	}
	if code == 0 || !strings.Contains(out, "contract_changed") {
		t.Fatalf("the replay against a form that now purges: exit %d, want a contract_changed stop\n%s", code, out)
	}
	// The page moves the form as it is used: once the field is typed
	// into (the contract must be read after the typing), or on the Enter
	// keydown itself (after any read: the send guard holds the request).
	site.action.Store("/save")
	for _, script := range []string{` oninput="this.action='/purge'"`, ` onkeydown="if (event.key === 'Enter') this.action='/purge'"`} {
		site.script.Store(script)
		code, out = rote(t, dir, append(replay, server...)...)
		if sent := site.sent(); len(sent) != before {
			t.Fatalf("the replay sent %v to a form that%s moved to /purge (exit %d)\n%s", sent[before:], script, code, out)
		}
		if code == 0 || !strings.Contains(out, "contract_changed") {
			t.Fatalf("the replay against a form that%s moves: exit %d, want a contract_changed stop\n%s", script, code, out)
		}
	}
}
