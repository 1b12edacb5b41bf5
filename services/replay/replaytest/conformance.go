// Package replaytest is the conformance suite of replay.Dispatcher:
// the executor replays through the browser and through any MCP server
// alike, so every backend must behave the same wherever the executor
// relies on it. A backend's tests call TestDispatcher with a Backend
// that says how to open one, how its steps are written and which
// Features it has, as watermill's pubsub/tests does for its publishers.
package replaytest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/replay"
)

// Page is the page TestDispatcher drives: the environment under test
// must serve it at the URL TestDispatcher is given.
const Page = `<!doctype html><title>Form</title><main><h1>Order</h1>
<form method="post" action="/order">
<label for="n">Name</label><input id="n" name="name">
<label for="c">Color</label><select id="c" name="color"><option value="r">Red</option><option value="g">Green</option></select>
<input type="checkbox" id="g" name="gift"><label for="g">Gift wrap</label>
<label for="m">Message</label><textarea id="m" name="msg"></textarea>
<button>Place order</button></form>
<p id="hov" onmouseover="this.textContent='Hovered'">Hover target</p>
<div id="cover" style="position:fixed;inset:0;display:none;background:#fff8"></div>
<button onclick="document.getElementById('cover').style.display='block'">Show overlay</button>
<button>Delete</button><button>Delete</button>
</main>`

// Backend is one Dispatcher implementation under the suite.
type Backend struct {
	Name string
	// Open opens a dispatcher whose events belong to run runID, on the
	// environment that serves the suite's URL; a dispatcher that confines
	// navigation when it is opened (a browser) confines it to that URL's
	// origin. The suite closes it.
	Open func(t *testing.T, runID string) replay.Dispatcher
	// Navigate is the step that loads url.
	Navigate func(url string) (tool string, args map[string]any, target *schema.Target)
	// Control is the step that does tool (fill, click, ...) to the
	// control with role and name, with args.
	Control func(tool, role, name string, args map[string]any) (string, map[string]any, *schema.Target)
	// Features is what the backend does where backends differ.
	Features Features
}

// Features says what a backend does where backends legitimately differ.
// A subtest of a feature the backend does not declare is skipped, saying
// so; one it declares is held to it, and so is the declaration: a backend
// that is a replay.Writer, Looker or Actor must say so, and one that says
// so must be one.
type Features struct {
	// UnknownTool is the code a tool the environment does not have
	// gives: the browser's tools are its closed set of actions
	// (schema.ErrOutOfSet), an MCP server's the ones it lists
	// (schema.ErrNotFound). Required.
	UnknownTool error
	// Pages says the environment is a browser page: a world is the page
	// (schema.World.Page, with its URL and nodes), and World looks at it
	// afresh, whole. Otherwise a world is a tool result's text, and World
	// is the last successful call's.
	Pages bool
	// Writes says the dispatcher is a replay.Writer: an action that
	// changed the page says so, a refused one says nothing.
	Writes bool
	// Resolves says the dispatcher is a replay.Resolver that names the
	// control each action resolved its target to, with its contract. An
	// MCP dispatcher reads one only from a server that can run a script
	// on a control (browser_evaluate), which rote mcp browser is not.
	Resolves bool
	// Looks says the dispatcher is a replay.Looker.
	Looks bool
	// Acts says the dispatcher is a replay.Actor.
	Acts bool
}

// timeout bounds each subtest.
const timeout = 90 * time.Second

// TestDispatcher runs the suite against be, whose environment serves
// Page at url, as subtests of t named after be, one per behaviour, each
// on a dispatcher of its own. It returns the environment's fingerprint,
// "" when the Fingerprint subtest failed.
func TestDispatcher(t *testing.T, url string, be Backend) string {
	t.Helper()
	s := &suite{url: url, be: be}
	t.Run(be.Name, func(t *testing.T) {
		for _, c := range []struct {
			name string
			skip string // why a backend without the feature skips it; "" runs always
			has  bool
			test func(*testing.T, context.Context)
		}{
			{"DeclaredFeatures", "", true, s.declaredFeatures},
			{"Fingerprint", "", true, s.fingerprint},
			{"FingerprintIsTheEnvironments", "", true, s.fingerprintIsTheEnvironments},
			{"Navigate", "", true, s.navigate},
			{"Fill", "", true, s.fill},
			{"SelectCheckHover", "", true, s.selectCheckHover},
			{"UnknownToolIsTyped", "", true, s.unknownTool},
			{"MissingTargetIsNotFound", "", true, s.notFound},
			{"AmbiguousTargetIsRefused", "", true, s.ambiguous},
			{"ObscuredTargetIsRefused", "", true, s.obscured},
			{"OffOriginNavigationIsRefused", "", true, s.offOrigin},
			{"StepAfterCloseFails", "", true, s.afterClose},
			{"WorldIsThePage", "its worlds are tool results, and World is the last call's", be.Features.Pages, s.worldIsThePage},
			{"Writes", "it is no replay.Writer", be.Features.Writes, s.writes},
			{"Resolves", "it names no control an action resolved to", be.Features.Resolves, s.resolves},
			{"Looks", "it is no replay.Looker", be.Features.Looks, s.looks},
			{"Acts", "it is no replay.Actor", be.Features.Acts, s.acts},
		} {
			t.Run(c.name, func(t *testing.T) {
				if !c.has {
					t.Skipf("%s does not declare the feature: %s", be.Name, c.skip)
				}
				ctx, cancel := context.WithTimeout(context.Background(), timeout)
				defer cancel()
				c.test(t, ctx)
			})
		}
	})
	return s.fp
}

// suite is one backend's run of the suite.
type suite struct {
	url  string
	be   Backend
	runs int    // the dispatchers opened so far, which number their runs
	fp   string // what the Fingerprint subtest read
}

// open opens a dispatcher of a run of its own, closed when t ends.
func (s *suite) open(t *testing.T) replay.Dispatcher {
	t.Helper()
	s.runs++
	d := s.be.Open(t, fmt.Sprintf("conformance-%s-%d", s.be.Name, s.runs))
	t.Cleanup(func() { d.Close(context.Background()) })
	return d
}

// onPage opens a dispatcher and loads Page in it.
func (s *suite) onPage(t *testing.T, ctx context.Context) replay.Dispatcher {
	t.Helper()
	d := s.open(t)
	tool, args, target := s.be.Navigate(s.url)
	w, err := d.Dispatch(ctx, "open", tool, args, target)
	if err != nil || !strings.Contains(w.Text, "Order") {
		t.Fatalf("navigate: %v, world text %q", err, w.Text)
	}
	return d
}

// control dispatches tool on the control with role and name.
func (s *suite) control(ctx context.Context, d replay.Dispatcher, stepID, tool, role, name string, args map[string]any) (schema.World, error) {
	tool, args, target := s.be.Control(tool, role, name, args)
	return d.Dispatch(ctx, stepID, tool, args, target)
}

// fillName fills the Name field with Ada, as a step that must succeed.
func (s *suite) fillName(t *testing.T, ctx context.Context, d replay.Dispatcher) schema.World {
	t.Helper()
	w, err := s.control(ctx, d, "name", "fill", "textbox", "Name", map[string]any{"value": "Ada"})
	if err != nil {
		t.Fatalf("fill: %v", err)
	}
	return w
}

// refused checks that err is a *schema.Error of code want.
func refused(t *testing.T, what string, err, want error) {
	t.Helper()
	var typed *schema.Error
	if !errors.As(err, &typed) || !errors.Is(err, want) {
		t.Errorf("%s: %v, want a *schema.Error %v", what, err, want)
	}
}

// unchanged checks that World still shows the name filled before a
// refused step.
func unchanged(t *testing.T, ctx context.Context, d replay.Dispatcher, what string) {
	t.Helper()
	if now, err := d.World(ctx); err != nil || !shows(now, "Ada") || strings.Contains(now.Text, "Thanks") {
		t.Errorf("%s changed the world (%v): %q", what, err, now.Text)
	}
}

// declaredFeatures holds the declaration to the dispatcher's type.
func (s *suite) declaredFeatures(t *testing.T, _ context.Context) {
	f := s.be.Features
	if f.UnknownTool == nil {
		t.Error("Features.UnknownTool is not set: the suite cannot tell what an unknown tool should give")
	}
	d := s.open(t)
	_, writer := d.(replay.Writer)
	_, looker := d.(replay.Looker)
	_, actor := d.(replay.Actor)
	_, resolver := d.(replay.Resolver)
	for _, c := range []struct {
		iface          string
		declared, isIt bool
	}{
		{"replay.Writer", f.Writes, writer},
		{"replay.Looker", f.Looks, looker},
		{"replay.Actor", f.Acts, actor},
	} {
		if c.declared != c.isIt {
			t.Errorf("%T: declares %s %v, is one %v", d, c.iface, c.declared, c.isIt)
		}
	}
	if f.Resolves && !resolver {
		t.Errorf("%T declares Resolves but is no replay.Resolver", d)
	}
}

// fingerprint: valid, and the same when asked again.
func (s *suite) fingerprint(t *testing.T, ctx context.Context) {
	d := s.open(t)
	fp, err := d.Fingerprint(ctx)
	again, _ := d.Fingerprint(ctx)
	if err != nil || schema.ValidateFingerprint(fp) != nil || fp != again {
		t.Fatalf("fingerprint %q, again %q (%v)", fp, again, err)
	}
	s.fp = fp
}

// fingerprintIsTheEnvironments: another session of the same environment
// has the same fingerprint, after steps as before them: a playbook bound
// to it replays in any run.
func (s *suite) fingerprintIsTheEnvironments(t *testing.T, ctx context.Context) {
	first := s.onPage(t, ctx)
	s.fillName(t, ctx, first)
	second := s.open(t)
	a, err := first.Fingerprint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := second.Fingerprint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("two sessions of one environment: fingerprints %s and %s", a, b)
	}
}

// navigate: the page loads and its world shows it.
func (s *suite) navigate(t *testing.T, ctx context.Context) {
	s.onPage(t, ctx)
}

// fill: the step's world shows the value, and so does World.
func (s *suite) fill(t *testing.T, ctx context.Context) {
	d := s.onPage(t, ctx)
	if w := s.fillName(t, ctx, d); !shows(w, "Ada") {
		t.Errorf("the world after fill does not show the value: %+v", w)
	}
	if now, err := d.World(ctx); err != nil || !shows(now, "Ada") {
		t.Errorf("World() does not show the last state (%v)", err)
	}
}

// selectCheckHover: the other kinds of control steps take their
// arguments as the browser's actions do, and their worlds show what
// they did.
func (s *suite) selectCheckHover(t *testing.T, ctx context.Context) {
	d := s.onPage(t, ctx)
	if w, err := s.control(ctx, d, "color", "select", "combobox", "Color", map[string]any{"value": "Green"}); err != nil || !shows(w, "Green") {
		t.Errorf("select Green: %v, world %+v", err, w)
	}
	if _, err := s.control(ctx, d, "gift", "check", "checkbox", "Gift wrap", nil); err != nil {
		t.Errorf("check: %v", err)
	}
	if w, err := s.control(ctx, d, "hover", "hover", "clickable", "Hover target", nil); err != nil || !strings.Contains(w.Text, "Hovered") {
		t.Errorf("hover: %v, world text %q", err, w.Text)
	}
	_, err := s.control(ctx, d, "color", "select", "combobox", "Color", map[string]any{"value": "Purple"})
	refused(t, "select an option the control does not offer", err, schema.ErrNotFound)
}

// unknownTool: a tool the environment does not have is a typed refusal.
func (s *suite) unknownTool(t *testing.T, ctx context.Context) {
	d := s.open(t)
	_, err := d.Dispatch(ctx, "x", "teleport", map[string]any{}, nil)
	refused(t, "unknown tool", err, s.be.Features.UnknownTool)
}

// notFound: a control the page does not have is not_found, and nothing
// changed.
func (s *suite) notFound(t *testing.T, ctx context.Context) {
	d := s.onPage(t, ctx)
	s.fillName(t, ctx, d)
	_, err := s.control(ctx, d, "remove", "click", "button", "Remove", nil)
	refused(t, "a click on a missing control", err, schema.ErrNotFound)
	unchanged(t, ctx, d, "a click on a missing control")
}

// ambiguous: two controls with one role and name are never guessed
// between, and the refused step changes nothing.
func (s *suite) ambiguous(t *testing.T, ctx context.Context) {
	d := s.onPage(t, ctx)
	s.fillName(t, ctx, d)
	_, err := s.control(ctx, d, "del", "click", "button", "Delete", nil)
	if !strings.Contains(fmt.Sprint(err), "ambiguous") {
		t.Errorf("an ambiguous click is not refused as ambiguous: %v", err)
	}
	refused(t, "an ambiguous click", err, schema.ErrAmbiguous)
	unchanged(t, ctx, d, "a refused step")
}

// obscured: a control something covers is not clicked through, which
// the executor answers by clearing the way.
func (s *suite) obscured(t *testing.T, ctx context.Context) {
	d := s.onPage(t, ctx)
	s.fillName(t, ctx, d)
	if _, err := s.control(ctx, d, "cover", "click", "button", "Show overlay", nil); err != nil {
		t.Fatalf("click Show overlay: %v", err)
	}
	_, err := s.control(ctx, d, "order", "click", "button", "Place order", nil)
	refused(t, "a click on a covered control", err, schema.ErrObscured)
	unchanged(t, ctx, d, "a click on a covered control")
}

// offOrigin: a navigation off the run's origins is refused before it is
// sent. A replay.URLConfiner is confined to the page's origin as the
// executor confines it; any other dispatcher was confined there when it
// was opened.
func (s *suite) offOrigin(t *testing.T, ctx context.Context) {
	d := s.onPage(t, ctx)
	s.fillName(t, ctx, d)
	if c, ok := d.(replay.URLConfiner); ok {
		u, err := url.Parse(s.url)
		if err != nil {
			t.Fatal(err)
		}
		c.ConfineURLs([]string{schema.Origin(u)})
	}
	tool, args, target := s.be.Navigate("http://elsewhere.invalid/")
	_, err := d.Dispatch(ctx, "away", tool, args, target)
	refused(t, "a navigation off the origin", err, schema.ErrOutOfOrigin)
	unchanged(t, ctx, d, "a navigation refused")
}

// afterClose: a step on a closed dispatcher fails, typed, rather than
// acting or hanging.
func (s *suite) afterClose(t *testing.T, ctx context.Context) {
	s.runs++
	d := s.be.Open(t, fmt.Sprintf("conformance-%s-%d", s.be.Name, s.runs))
	if err := d.Close(ctx); err != nil {
		t.Errorf("close: %v", err)
	}
	tool, args, target := s.be.Navigate(s.url)
	_, err := d.Dispatch(ctx, "late", tool, args, target)
	var typed *schema.Error
	if !errors.As(err, &typed) {
		t.Errorf("a step after Close: %v, want a *schema.Error", err)
	}
}

// worldIsThePage: a page's world is the page, and World looks at it
// whole.
func (s *suite) worldIsThePage(t *testing.T, ctx context.Context) {
	d := s.open(t)
	tool, args, target := s.be.Navigate(s.url)
	w, err := d.Dispatch(ctx, "open", tool, args, target)
	if err != nil || !w.Page || w.URL != s.url {
		t.Fatalf("navigate: %v, a page %v at %q, want %q", err, w.Page, w.URL, s.url)
	}
	w = s.fillName(t, ctx, d)
	if !slices.ContainsFunc(w.Nodes, func(n schema.WorldNode) bool { return n.Role == "textbox" && n.Name == "Name" && n.Value == "Ada" }) {
		t.Errorf("the fill's world has no node textbox \"Name\" = \"Ada\": %+v", w.Nodes)
	}
	now, err := d.World(ctx)
	if err != nil || !now.Page || now.Render == "" || !shows(now, "Ada") || !strings.Contains(now.Text, "Order") {
		t.Errorf("World() is not the whole page as it is (%v): page %v, render %q, text %q", err, now.Page, now.Render, now.Text)
	}
}

// writes: a refused step wrote nothing, so it may be tried again; a
// click that changed the page says so, so it is not.
func (s *suite) writes(t *testing.T, ctx context.Context) {
	d := s.onPage(t, ctx)
	wr := as[replay.Writer](t, d)
	_, err := s.control(ctx, d, "del", "click", "button", "Delete", nil)
	if err == nil {
		t.Fatal("an ambiguous click was done")
	}
	if did := wr.Wrote(); len(did) > 0 {
		t.Errorf("a refused click wrote %q", did)
	}
	if _, err := s.control(ctx, d, "cover", "click", "button", "Show overlay", nil); err != nil {
		t.Fatalf("click Show overlay: %v", err)
	}
	if did := wr.Wrote(); len(did) == 0 {
		t.Error("a click that changed the page wrote nothing: a retry would do it again")
	}
}

// resolves: an action names the control it acted on, with the contract
// read from the page; a refused one names none.
func (s *suite) resolves(t *testing.T, ctx context.Context) {
	d := s.onPage(t, ctx)
	r := as[replay.Resolver](t, d)
	s.fillName(t, ctx, d)
	got := r.Resolved()
	if got == nil || got.Role != "textbox" || got.Name != "Name" || got.Contract == nil || got.Contract.Tag != "input" {
		t.Errorf("after a fill of textbox \"Name\", Resolved() is %+v", got)
	}
	if _, err := s.control(ctx, d, "del", "click", "button", "Delete", nil); err == nil {
		t.Fatal("an ambiguous click was done")
	}
	if got := r.Resolved(); got != nil {
		t.Errorf("after a refused click, Resolved() is %+v, want none", got)
	}
}

// looks: a look for a step, whole, is the page as it is.
func (s *suite) looks(t *testing.T, ctx context.Context) {
	d := s.onPage(t, ctx)
	s.fillName(t, ctx, d)
	w, err := as[replay.Looker](t, d).Look(ctx, "look", true)
	if err != nil || !shows(w, "Ada") || !strings.Contains(w.Text, "Order") {
		t.Errorf("a whole look (%v) does not show the page: %q", err, w.Text)
	}
}

// acts: a step acted without a look does its work, an extract's reads
// what it read, and a refusal is as typed as Dispatch's.
func (s *suite) acts(t *testing.T, ctx context.Context) {
	d := s.onPage(t, ctx)
	a := as[replay.Actor](t, d)
	tool, args, target := s.be.Control("fill", "textbox", "Message", map[string]any{"value": "Happy birthday"})
	if _, err := a.Act(ctx, "msg", tool, args, target); err != nil {
		t.Fatalf("act fill: %v", err)
	}
	tool, args, target = s.be.Control("extract", "textbox", "Message", nil)
	if read, err := a.Act(ctx, "read", tool, args, target); err != nil || read != "Happy birthday" {
		t.Errorf("act extract read %q (%v), want the value filled", read, err)
	}
	tool, args, target = s.be.Control("click", "button", "Delete", nil)
	_, err := a.Act(ctx, "del", tool, args, target)
	refused(t, "an ambiguous click acted", err, schema.ErrAmbiguous)
}

// as is d as the interface I a feature says it is.
func as[I any](t *testing.T, d replay.Dispatcher) I {
	t.Helper()
	i, ok := d.(I)
	if !ok {
		t.Fatalf("%T declares the feature but is no %s", d, reflect.TypeFor[I]())
	}
	return i
}

// shows reports whether a value is visible in a world: as a node's value
// on a page, or in a tool result's text.
func shows(w schema.World, value string) bool {
	return strings.Contains(w.Text, value) || slices.ContainsFunc(w.Nodes, func(n schema.WorldNode) bool { return n.Value == value })
}
