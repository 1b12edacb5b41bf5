package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/chromium"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/replay/replaytest"
)

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// session opens a browser session for a new run and navigates to url.
func session(t testing.TB, b *bus.Bus, url string) *bus.BrowserSession {
	t.Helper()
	ctx := testContext(t)
	s, err := b.Browsers().Open(ctx, bus.NewID())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	act(t, s, schema.Action{Kind: schema.ActNavigate, URL: url})
	return s
}

// act performs an action that must succeed.
func act(t testing.TB, s *bus.BrowserSession, a schema.Action) *schema.BrowserAction {
	t.Helper()
	ev, err := s.Act(testContext(t), "", a)
	if err != nil {
		t.Fatalf("%s: %v", a.Kind, err)
	}
	if ev.Error != nil {
		t.Fatalf("%s %+v: %v", a.Kind, a.Target, ev.Error)
	}
	return ev
}

// refused performs an action that must fail with code.
func refused(t testing.TB, s *bus.BrowserSession, a schema.Action, code error) *schema.BrowserAction {
	t.Helper()
	ev, err := s.Act(testContext(t), "", a)
	if err != nil {
		t.Fatalf("%s: %v", a.Kind, err)
	}
	if ev.Error == nil || !errors.Is(ev.Error, code) {
		t.Fatalf("%s %+v: got %v, want %v", a.Kind, a.Target, ev.Error, code)
	}
	return ev
}

func observe(t testing.TB, s *bus.BrowserSession) *schema.SessionObserveReply {
	t.Helper()
	rep, err := s.Observe(testContext(t), "", true, 0)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func findNode(t testing.TB, obs *schema.Observation, role, name string) schema.ObservedNode {
	t.Helper()
	for _, n := range obs.Nodes {
		if n.Role == role && n.Name == name {
			return n
		}
	}
	t.Fatalf("no %s %q in:\n%s", role, name, obs.Render)
	return schema.ObservedNode{}
}

// site serves pages by path and records form posts.
type site struct {
	*httptest.Server
	mu    sync.Mutex
	posts []url.Values
	to    []string // the path of each post
}

func newSite(t testing.TB, pages map[string]string) *site {
	s := &site{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost:
			r.ParseForm()
			s.mu.Lock()
			s.posts = append(s.posts, r.PostForm)
			s.to = append(s.to, r.URL.Path)
			s.mu.Unlock()
			fmt.Fprint(w, `<!doctype html><main><h1>Thanks</h1><p role="status">Saved</p></main>`)
		case r.URL.Path == "/slow":
			time.Sleep(700 * time.Millisecond)
			io.WriteString(w, "Loaded from the server")
		case r.URL.Path == "/endless.png":
			// A response that never ends: the page's load event never fires.
			w.Header().Set("Content-Length", "100000")
			io.WriteString(w, "partial")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			body, ok := pages[r.URL.Path]
			if !ok {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			if strings.HasSuffix(r.URL.Path, ".js") {
				w.Header().Set("Content-Type", "text/javascript")
			}
			io.WriteString(w, body)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *site) lastPost() url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.posts) == 0 {
		return nil
	}
	return s.posts[len(s.posts)-1]
}

// actionsPage is the conformance suite's page: a form with every kind of
// control, a hover target, an overlay and two identical buttons.
const actionsPage = replaytest.Page

// TestActionsInChromium drives every typed action through the actuator
// against a real page and checks the server received what a user would
// have sent.
func TestActionsInChromium(t *testing.T) {
	t.Parallel()
	b := planes(t)
	web := newSite(t, map[string]string{"/": actionsPage})
	s := session(t, b, web.URL+"/")
	obs := observe(t, s).Observation

	name := findNode(t, &obs, "textbox", "Name")
	fill := act(t, s, schema.Action{Kind: schema.ActFill, Target: &schema.Target{ID: name.ID}, Value: "Ada Lovelace"})
	if fill.Resolution != schema.ResolvedByID {
		t.Errorf("fill by id resolved by %s", fill.Resolution)
	}
	act(t, s, schema.Action{Kind: schema.ActSelect, Target: &schema.Target{Role: "combobox", Name: "Color"}, Value: "Green"})
	act(t, s, schema.Action{Kind: schema.ActCheck, Target: &schema.Target{Role: "checkbox", Name: "Gift wrap"}})
	act(t, s, schema.Action{Kind: schema.ActFill, Target: &schema.Target{Role: "textbox", Name: "Message"}, Value: "Happy birthday"})
	got := act(t, s, schema.Action{Kind: schema.ActExtract, Target: &schema.Target{Role: "textbox", Name: "Message"}})
	if got.Output != "Happy birthday" {
		t.Errorf("extract gave %q", got.Output)
	}
	refused(t, s, schema.Action{Kind: schema.ActSelect, Target: &schema.Target{Role: "combobox", Name: "Color"}, Value: "Purple"}, schema.ErrNotFound)

	after := observe(t, s)
	if after.Observation.Kind != schema.ObservationDiff || !strings.Contains(after.Observation.Render, `= "Ada Lovelace"`) {
		t.Errorf("observation after filling is not a diff showing the value:\n%s", after.Observation.Render)
	}
	act(t, s, schema.Action{Kind: schema.ActHover, Target: &schema.Target{Role: "clickable", Name: "Hover target"}}) // it listens for the mouse: a control
	if obs := observe(t, s).Observation; !strings.Contains(obs.Text, "Hovered") {
		t.Error("hover did not reach the element")
	}
	act(t, s, schema.Action{Kind: schema.ActPress, Target: &schema.Target{Role: "textbox", Name: "Name"}, Value: "Enter"})
	if obs := observe(t, s).Observation; !strings.Contains(obs.Text, "Saved") {
		t.Fatalf("Enter did not submit the form: %s", obs.Text)
	}
	post := web.lastPost()
	if post.Get("name") != "Ada Lovelace" || post.Get("color") != "g" || post.Get("gift") != "on" || post.Get("msg") != "Happy birthday" {
		t.Fatalf("the server received %v", post)
	}
}

// TestAmbiguityAndObstructionFailClosed: two identical buttons are never
// guessed between, a covered button is never clicked through, nor one
// the pointer arriving replaces (:hover) by another.
func TestAmbiguityAndObstructionFailClosed(t *testing.T) {
	t.Parallel()
	b := planes(t)
	web := newSite(t, map[string]string{"/": actionsPage, "/hover": `<html><head><style>
		.row { position: relative; width: 140px; height: 44px; } .row button { position: absolute; inset: 0; }
		.publish { display: none; } .row:hover .publish { display: block; }
	</style></head><body><main><h1>Draft</h1><div class="row">
		<form method="post" action="/save"><button>Save draft</button></form>
		<form class="publish" method="post" action="/publish"><button>Publish</button></form>
	</div></main></body></html>`})
	s := session(t, b, web.URL+"/")
	refused(t, s, schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Delete"}}, schema.ErrAmbiguous)
	refused(t, s, schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Remove"}}, schema.ErrNotFound)
	act(t, s, schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Show overlay"}})
	refused(t, s, schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Place order"}}, schema.ErrObscured)
	if web.lastPost() != nil {
		t.Fatal("a refused click reached the server")
	}
	// The pointer arriving on the target shows, by :hover alone, another
	// control in its place: nothing is clicked.
	act(t, s, schema.Action{Kind: schema.ActNavigate, URL: "/hover"})
	refused(t, s, schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Save draft"}}, schema.ErrObscured)
	if web.lastPost() != nil {
		t.Fatal("the control the pointer revealed was pressed")
	}
}

// TestContractChangeRefusesDispatch records a field's contract, then
// meets the field as a textarea, and a submit that now posts elsewhere.
func TestContractChangeRefusesDispatch(t *testing.T) {
	t.Parallel()
	b := planes(t)
	web := newSite(t, map[string]string{
		"/v1": `<main><form method="post" action="/vendors"><label for="s">Street</label><input id="s" name="street"><button>Register</button></form></main>`,
		"/v2": `<main><form method="post" action="/vendors/import"><label for="s">Street</label><textarea id="s" name="street"></textarea><button>Register</button></form></main>`,
	})
	s := session(t, b, web.URL+"/v1")
	obs := observe(t, s).Observation
	street, register := findNode(t, &obs, "textbox", "Street"), findNode(t, &obs, "button", "Register")
	if street.Contract.Tag != "input" || register.Contract.FormAction != "/vendors" {
		t.Fatalf("recorded contracts %+v %+v", street.Contract, register.Contract)
	}
	streetTarget := &schema.Target{ID: street.ID, Role: street.Role, Name: street.Name, Contract: street.Contract}
	registerTarget := &schema.Target{ID: register.ID, Role: register.Role, Name: register.Name, Contract: register.Contract}
	act(t, s, schema.Action{Kind: schema.ActFill, Target: streetTarget, Value: "1 Main St"})

	act(t, s, schema.Action{Kind: schema.ActNavigate, URL: "/v2"})
	ev := refused(t, s, schema.Action{Kind: schema.ActFill, Target: streetTarget, Value: "1 Main St"}, schema.ErrControlChanged)
	if !strings.Contains(ev.Error.Message, `"textarea"`) {
		t.Errorf("refusal does not say what changed: %v", ev.Error)
	}
	ev = refused(t, s, schema.Action{Kind: schema.ActClick, Target: registerTarget}, schema.ErrContractChanged)
	if !strings.Contains(ev.Error.Message, "/vendors/import") {
		t.Errorf("refusal does not name the new form action: %v", ev.Error)
	}
	if web.lastPost() != nil {
		t.Fatal("a refused submit reached the server")
	}
}

// TestSendGuardHoldsAMovedSubmit: a page script that moves the form as
// it is used (on mousedown, on submit, on the Enter keydown) passes the
// contract read before the action; the request it sends is held in the
// browser and refused (contract_changed), and nothing reaches the
// server. The same form left alone sends where recorded; a GET form
// sends its fields as the query; a link moved on mousedown is refused
// and the page stays.
func TestSendGuardHoldsAMovedSubmit(t *testing.T) {
	t.Parallel()
	b := planes(t)
	form := func(attrs, buttonAttrs string) string {
		return `<main><form method="post" action="/vendors"` + attrs + `><label for="c">Company</label><input id="c" name="company">` +
			`<button` + buttonAttrs + `>Register</button></form></main>`
	}
	web := newSite(t, map[string]string{
		"/plain":      form("", ""),
		"/mousedown":  form("", ` onmousedown="this.form.action='/vendors/purge'"`),
		"/submit":     form(` onsubmit="this.action='/vendors/purge'"`, ""),
		"/keydown":    form(` onkeydown="if (event.key === 'Enter') this.action='/vendors/purge'"`, ""),
		"/search":     `<main><form action="/results"><label for="q">Query</label><input id="q" name="q"><button>Search</button></form></main>`,
		"/results":    `<main><h1>Results</h1></main>`,
		"/link":       `<main><a href="/results" onmousedown="this.href='/vendors/purge'">Results</a></main>`,
		"/fetchfirst": form(` onsubmit="fetch('/api/delete', {method: 'POST', keepalive: true}); this.action='/vendors/purge'"`, ""),
	})
	s := session(t, b, web.URL+"/plain")
	obs := observe(t, s).Observation
	company, register := findNode(t, &obs, "textbox", "Company"), findNode(t, &obs, "button", "Register")
	companyTarget := &schema.Target{ID: company.ID, Role: company.Role, Name: company.Name, Contract: company.Contract}
	registerTarget := &schema.Target{ID: register.ID, Role: register.Role, Name: register.Name, Contract: register.Contract}
	for _, c := range []struct {
		page string
		send schema.Action
	}{
		{"/mousedown", schema.Action{Kind: schema.ActClick, Target: registerTarget}},
		{"/submit", schema.Action{Kind: schema.ActClick, Target: registerTarget}},
		{"/keydown", schema.Action{Kind: schema.ActPress, Target: companyTarget, Value: "Enter"}},
	} {
		act(t, s, schema.Action{Kind: schema.ActNavigate, URL: c.page})
		act(t, s, schema.Action{Kind: schema.ActFill, Target: companyTarget, Value: "Initech"})
		ev := refused(t, s, c.send, schema.ErrContractChanged)
		if !strings.Contains(ev.Error.Message, "/vendors/purge") {
			t.Errorf("%s: the refusal does not say where the page sent: %v", c.page, ev.Error)
		}
		if web.lastPost() != nil {
			t.Fatalf("%s: a moved submit reached the server", c.page)
		}
	}
	// Left alone, the form sends where it says, also for a recorded
	// contract without its action (distillation drops an address that
	// names one record): the guard holds the request to the form as read.
	act(t, s, schema.Action{Kind: schema.ActNavigate, URL: "/plain"})
	act(t, s, schema.Action{Kind: schema.ActFill, Target: companyTarget, Value: "Initech"})
	unaddressed := *registerTarget.Contract
	unaddressed.FormAction = ""
	act(t, s, schema.Action{Kind: schema.ActClick, Target: &schema.Target{ID: register.ID, Role: register.Role, Name: register.Name, Contract: &unaddressed}})
	web.mu.Lock()
	if len(web.to) != 1 || web.to[0] != "/vendors" || web.posts[0].Get("company") != "Initech" {
		web.mu.Unlock()
		t.Fatalf("the form left alone: posts to %v %v, want /vendors company=Initech", web.to, web.posts)
	}
	web.mu.Unlock()

	// A GET form sends its fields as the query: let through. A link whose
	// href a script moves on mousedown: refused, the page stays.
	act(t, s, schema.Action{Kind: schema.ActNavigate, URL: "/search"})
	obs = observe(t, s).Observation
	query, search := findNode(t, &obs, "textbox", "Query"), findNode(t, &obs, "button", "Search")
	act(t, s, schema.Action{Kind: schema.ActFill, Target: &schema.Target{ID: query.ID, Role: query.Role, Name: query.Name, Contract: query.Contract}, Value: "acme"})
	act(t, s, schema.Action{Kind: schema.ActClick, Target: &schema.Target{ID: search.ID, Role: search.Role, Name: search.Name, Contract: search.Contract}})
	if got := observe(t, s).Observation.URL; !strings.HasSuffix(got, "/results?q=acme") {
		t.Fatalf("the GET form left alone went to %s, want /results?q=acme", got)
	}
	act(t, s, schema.Action{Kind: schema.ActNavigate, URL: "/link"})
	obs = observe(t, s).Observation
	link := findNode(t, &obs, "link", "Results")
	ev := refused(t, s, schema.Action{Kind: schema.ActClick, Target: &schema.Target{ID: link.ID, Role: link.Role, Name: link.Name, Contract: link.Contract}}, schema.ErrContractChanged)
	if !strings.Contains(ev.Error.Message, "/vendors/purge") {
		t.Errorf("the link's refusal does not say where the page went: %v", ev.Error)
	}
	if got := observe(t, s).Observation.URL; !strings.HasSuffix(got, "/link") {
		t.Fatalf("after the refused link the page is %s, want it to stay on /link", got)
	}
	// A script that posts elsewhere itself before moving the form: the
	// guard holds navigations only, and its refusal says what went out.
	act(t, s, schema.Action{Kind: schema.ActNavigate, URL: "/fetchfirst"})
	act(t, s, schema.Action{Kind: schema.ActFill, Target: companyTarget, Value: "Initech"})
	ev = refused(t, s, schema.Action{Kind: schema.ActClick, Target: registerTarget}, schema.ErrContractChanged)
	if !strings.Contains(ev.Error.Message, "POST "+web.URL+"/api/delete") || !strings.Contains(ev.Error.Message, "went out") {
		t.Errorf("the refusal does not say the script's own post went out: %v", ev.Error)
	}
}

// TestKeptCaptureIsCheckedAgainstThePage: a target is resolved on the
// last capture while the page shows no mutation and no action but an
// extract happened since, and the node found is read again from the
// browser before the action. A fill that swaps twins by CSS alone sends
// the next click to the twin shown; a button inside a shadow root (whose
// changes the page's watch does not see) relabelled by a fill's handler
// is not clicked under its old name.
func TestKeptCaptureIsCheckedAgainstThePage(t *testing.T) {
	t.Parallel()
	b := planes(t)
	web := newSite(t, map[string]string{
		"/shadow": `<main><h1>Shadow</h1><label>Note <input id="n"></label><div id="host"></div><script>
			const root = document.getElementById('host').attachShadow({mode: 'closed'});
			const btn = document.createElement('button'); btn.textContent = 'Save'; root.appendChild(btn);
			btn.addEventListener('click', () => { const p = document.createElement('p'); p.textContent = btn.textContent + ' pressed'; document.querySelector('main').appendChild(p); });
			document.getElementById('n').addEventListener('input', () => { btn.textContent = 'Delete'; });
		</script></main>`,
		"/focus": `<html><head><style>#b { display: none; } form:focus-within #a { opacity: 0; } form:focus-within #b { display: inline-block; }</style></head>
			<body><main><h1>Write a post</h1><form><label>Title <input name="title"></label>
			<button type="button" id="a" onclick="document.querySelector('main').append('Drafted')">Save</button>
			<button type="button" id="b" onclick="document.querySelector('main').append('Published')">Save</button></form></main></body></html>`,
		"/disabled": `<main><h1>Order</h1><label>Note <input id="n"></label><div id="host"></div><script>
			const root = document.getElementById('host').attachShadow({mode: 'closed'});
			const btn = document.createElement('button'); btn.textContent = 'Order'; root.appendChild(btn);
			btn.addEventListener('click', () => { const p = document.createElement('p'); p.textContent = 'Order pressed'; document.querySelector('main').appendChild(p); });
			document.getElementById('n').addEventListener('input', () => { btn.disabled = true; });
		</script></main>`,
	})
	// A fill focuses its field: the form's :focus-within hides one Save
	// and shows its twin with no mutation. The click goes to the one
	// shown, not to the one the capture before the fill saw.
	s := session(t, b, web.URL+"/focus")
	observe(t, s)
	act(t, s, schema.Action{Kind: schema.ActFill, Target: &schema.Target{Role: "textbox", Name: "Title"}, Value: "Launch"})
	act(t, s, schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Save"}})
	if text := observe(t, s).Observation.Text; !strings.Contains(text, "Published") || strings.Contains(text, "Drafted") {
		t.Fatalf("the click went to the Save the fill hid: %q", text)
	}
	act(t, s, schema.Action{Kind: schema.ActNavigate, URL: "/shadow"})
	obs := observe(t, s).Observation
	save := findNode(t, &obs, "button", "Save")
	act(t, s, schema.Action{Kind: schema.ActFill, Target: &schema.Target{Role: "textbox", Name: "Note"}, Value: "x"})
	refused(t, s, schema.Action{Kind: schema.ActClick, Target: &schema.Target{ID: save.ID, Role: "button", Name: "Save"}}, schema.ErrNotFound)
	if text := observe(t, s).Observation.Text; strings.Contains(text, "pressed") {
		t.Fatalf("the relabelled button was clicked: %q", text)
	}
	// The same with a button a fill disables inside the shadow root.
	act(t, s, schema.Action{Kind: schema.ActNavigate, URL: "/disabled"})
	observe(t, s)
	act(t, s, schema.Action{Kind: schema.ActFill, Target: &schema.Target{Role: "textbox", Name: "Note"}, Value: "x"})
	refused(t, s, schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Order"}}, schema.ErrStateChanged)
	if text := observe(t, s).Observation.Text; strings.Contains(text, "pressed") {
		t.Fatalf("the disabled button was clicked: %q", text)
	}
}

// TestCrashedBrowserIsReplaced crashes the browser under a session: the
// session reports a typed error and the next run gets a new browser.
func TestCrashedBrowserIsReplaced(t *testing.T) {
	t.Parallel()
	// A browser of its own: the package's shared one must live on.
	b := startWith(t, bustest.Start(t), node.Config{Roles: node.Browser}, nil).Bus()
	web := newSite(t, map[string]string{"/": actionsPage})
	s := session(t, b, web.URL+"/")
	alloc, cancel, err := chromium.Connect(context.Background(), s.Browser.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	ctx, cancel2 := chromedp.NewContext(alloc)
	defer cancel2()
	chromedp.CallBrowser(ctx, browser.Crash, cdp.Empty{}) // the browser dies; the call's error is expected
	time.Sleep(500 * time.Millisecond)

	ev, err := s.Act(testContext(t), "", schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Place order"}})
	if err == nil && (ev.Error == nil || !errors.Is(ev.Error, schema.ErrBrowserCrashed)) {
		t.Fatalf("action on a crashed browser: %+v", ev.Error)
	}
	if err != nil && !errors.Is(err, schema.ErrBrowserCrashed) {
		t.Fatalf("action on a crashed browser: %v", err)
	}
	next := session(t, b, web.URL+"/")
	if next.Browser.Endpoint == s.Browser.Endpoint {
		t.Fatal("the new run got the dead browser")
	}
	if obs := observe(t, next).Observation; !strings.Contains(obs.Render, "Place order") {
		t.Fatal("the replacement browser does not work")
	}
}

// TestBrowserEventsAreRecorded: observations and actions land in the run.
func TestBrowserEventsAreRecorded(t *testing.T) {
	t.Parallel()
	b := planes(t)
	web := newSite(t, map[string]string{"/": actionsPage})
	s := session(t, b, web.URL+"/")
	observe(t, s)
	act(t, s, schema.Action{Kind: schema.ActFill, Target: &schema.Target{Role: "textbox", Name: "Name"}, Value: "x"})
	refused(t, s, schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Delete"}}, schema.ErrAmbiguous)
	observe(t, s)
	envs, err := b.Runs().ReadRun(testContext(t), s.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, env := range envs {
		switch e := env.Event.(type) {
		case *schema.BrowserAction:
			k := "action:" + string(e.Action.Kind)
			if e.Error != nil {
				k += ":" + string(e.Error.Code)
			}
			kinds = append(kinds, k)
		case *schema.BrowserObserved:
			kinds = append(kinds, "observed:"+string(e.Kind))
		}
	}
	if got := strings.Join(kinds, " "); got != "action:navigate observed:full action:fill action:click:ambiguous observed:diff" {
		t.Fatalf("recorded %s", got)
	}
}
