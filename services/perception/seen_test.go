package perception

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/records"
)

// settingsPage has one control of each kind under an h1, a frame with a
// heading of its own before more controls, and two Save buttons told
// apart only by the headings they sit under.
const settingsPage = `<!doctype html><html><head><title>Settings</title></head><body>
<main>
  <h1 id="title">Account settings</h1>
  <label for="n">Display name</label><input id="n">
  <label for="c">Country</label><select id="c"><option value="">Choose…</option><option>Germany</option><option selected>France</option><option>Italy</option></select>
  <iframe src="/frame" title="Help"></iframe>
  <label for="e">Email</label><input id="e" type="email">
  <input type="checkbox" id="news"><label for="news">Newsletter</label>
  <a href="/privacy">Privacy policy</a>
  <section aria-label="Security">
    <h2>Profile</h2><button>Save</button>
    <h2>Password</h2><button>Save</button>
  </section>
  <button>Delete account</button>
</main>
</body></html>`

const helpFrame = `<!doctype html><html><body><h1>Frequently asked</h1><a href="/faq">All questions</a></body></html>`

// A page that loses its h1, renames it, or whose frame shows another
// heading keeps every control's id: ids come from what scopes a control
// (landmark, frame, group, row), not from the heading above it. Twins
// that only their headings tell apart still get ids of their own.
func TestIDsSurviveALostHeading(t *testing.T) {
	base := serve(t, map[string]string{"/": settingsPage, "/frame": helpFrame})
	p := openPage(t, base+"/")
	before := observeNow(t, p)
	want := map[string]string{}
	for _, n := range before {
		if n.Actionable {
			want[n.Role+" "+n.Name] += n.ID + " "
		}
	}
	if len(want) < 8 {
		t.Fatalf("only %d controls observed: %v", len(want), want)
	}
	saves := strings.Fields(want["button Save"])
	if len(saves) != 2 || saves[0] == saves[1] || strings.Contains(saves[1], "~") {
		t.Errorf("the two Save buttons %v: their headings should tell them apart", saves)
	}
	same := func(label string) {
		t.Helper()
		got := map[string]string{}
		for _, n := range observeNow(t, p) {
			if n.Actionable {
				got[n.Role+" "+n.Name] += n.ID + " "
			}
		}
		kept := 0
		for k, ids := range want {
			if got[k] == ids {
				kept++
			} else {
				t.Errorf("%s: %s had ids %q, now %q", label, k, ids, got[k])
			}
		}
		t.Logf("%s: %d of %d controls kept their ids", label, kept, len(want))
	}
	p.run(t, `document.getElementById('title').textContent = 'Your account'`)
	same("renamed h1")
	p.run(t, `document.getElementById('title').remove()`)
	same("lost h1")
	p.run(t, `document.querySelector('iframe').contentDocument.querySelector('h1').textContent = 'Something else'`)
	same("another heading in the frame")
}

// A select's line carries its options (all of them when few, the first
// few and a count when many), and the chosen one as its value.
func TestSelectOptionsRendered(t *testing.T) {
	var many strings.Builder
	for i := 1; i <= 40; i++ {
		many.WriteString("<option>Region " + string(rune('A'+i%26)) + string(rune('a'+i/26)) + "</option>")
	}
	page := `<!doctype html><html><body><main>
<label for="c">Category</label><select id="c"><option value="">Pick one</option><option>Hardware</option><option selected>Software</option><optgroup label="Other"><option>Services</option></optgroup></select>
<label for="r">Region</label><select id="r">` + many.String() + `</select>
<label for="m">Tags</label><select id="m" multiple><option selected>urgent</option><option>billing</option><option selected>vip</option></select>
</main></body></html>`
	base := serve(t, map[string]string{"/": page})
	nodes := observeNow(t, openPage(t, base+"/"))
	render := renderNodes("u", "t", nodes, func(schema.ObservedNode) bool { return true })
	for _, want := range []string{
		`combobox "Category" = "Software" options: Pick one | Hardware | Software | Services`,
		`combobox "Region" = "Region Ba" options: Region Ba | Region Ca | Region Da | Region Ea | Region Fa | Region Ga | Region Ha | Region Ia | … 32 more`,
		`"Tags" = "urgent, vip" options: urgent | billing | vip`,
	} {
		if !strings.Contains(render, want) {
			t.Errorf("render lacks %s:\n%s", want, render)
		}
	}
	if strings.Contains(render, `option "Hardware"`) {
		t.Errorf("a select's options are its own line, not nodes of their own:\n%s", render)
	}
}

// Status lines, toasts and instructions are read wherever they are: a
// live region without a role, a role=status outside main, text outside
// every landmark; chrome (the footer) is still left out, and so is text
// that only repeats a control (a field's label, a paragraph holding
// nothing but a link).
func TestLiveAndLooseTextAnywhere(t *testing.T) {
	page := `<!doctype html><html><body>
<p id="query">Click the button labelled “Orange”, then press Enter.</p>
<form><p><label for="user">Username or Email Address</label><input id="user"></p></form>
<p><a href="/lost">Lost your password?</a></p><p>Read the <a href="/terms">terms</a> first.</p>
<header><p>Acme Operations</p></header>
<main><h1>Orders</h1><button onclick="toast()">Save</button></main>
<div role="status" id="st"></div>
<div class="toast" aria-live="polite" id="toast"></div>
<footer>© 2026 Acme</footer>
<script>function toast() { document.getElementById('toast').textContent = 'Order saved'; document.getElementById('st').textContent = '3 orders pending'; }</script>
</body></html>`
	base := serve(t, map[string]string{"/": page})
	p := openPage(t, base+"/")
	before := observeNow(t, p)
	render := renderNodes("u", "t", before, func(schema.ObservedNode) bool { return true })
	if find(before, "text", "Click the button labelled “Orange”, then press Enter.") == nil {
		t.Errorf("the instruction outside every landmark is missing:\n%s", render)
	}
	if find(before, "text", "Read the terms first.") == nil {
		t.Errorf("a sentence around a link is missing:\n%s", render)
	}
	for _, chrome := range []string{"Acme Operations", "© 2026", `text "Username`, `text "Lost`} {
		if strings.Contains(render, chrome) {
			t.Errorf("chrome text %q was kept:\n%s", chrome, render)
		}
	}
	p.run(t, `toast()`)
	after := observeNow(t, p)
	grounded := &schema.Observation{URL: "u", Title: "t", Nodes: before}
	diff := renderDiff(grounded, "u", "t", after)
	for _, want := range []string{`status "Order saved"`, `status "3 orders pending"`} {
		if !strings.Contains(diff, "+ ") || !strings.Contains(diff, want) {
			t.Errorf("the diff after the action lacks %s:\n%s", want, diff)
		}
	}
}

// Controls that look alike are rendered with what tells them apart: the
// part of their context the others do not share, or their place when
// nothing does.
func TestTwinsRenderWhatTellsThemApart(t *testing.T) {
	page := `<!doctype html><html><body><main><h1>Invoices</h1>
<table><thead><tr><th>Vendor</th><th>Total</th><th></th></tr></thead><tbody>
<tr><td>Northwind</td><td>120</td><td><button>Approve invoice</button></td></tr>
<tr><td>Contoso</td><td>80</td><td><button>Approve invoice</button></td></tr>
</tbody></table>
<section aria-label="Danger zone"><div id="host"></div></section>
<button>Refresh</button><button>Refresh</button>
</main>
<script>document.getElementById('host').attachShadow({mode: 'closed'}).innerHTML = '<h2>Bulk actions</h2><button>Approve invoice</button>';</script>
</body></html>`
	base := serve(t, map[string]string{"/": page})
	nodes := observeNow(t, openPage(t, base+"/"))
	render := renderNodes("u", "t", nodes, func(schema.ObservedNode) bool { return true })
	for _, want := range []string{
		`button "Approve invoice" (in main › Invoices › Northwind)`,
		`button "Approve invoice" (in main › Invoices › Contoso)`,
		`button "Approve invoice" (in region Danger zone › Bulk actions)`,
		`button "Refresh" (1 of 2)`, `button "Refresh" (2 of 2)`,
	} {
		if !strings.Contains(render, want) {
			t.Errorf("render lacks %s:\n%s", want, render)
		}
	}
	if strings.Contains(render, `heading "Invoices" (`) {
		t.Errorf("a heading is no control with twins:\n%s", render)
	}
}

// Elements with no widget role that still act are controls to a person:
// a span with a click handler, a div whose listener was added by script,
// a pointer cursor, an unnamed focusable trigger (named by its nearest
// text), drag sources and a drop target. A container whose listener
// catches its buttons' clicks is no control of its own.
func TestHomemadeControlsAreSeen(t *testing.T) {
	page := `<!doctype html><html><head><title>Release board</title></head><body><main><h1>Board</h1>
<span onclick="1">Orange</span>
<div id="scripted">Archive all</div>
<div style="cursor: pointer"><span>Open the report</span></div>
<div class="menu"><span>Reports</span><div tabindex="0" class="trigger" style="width:12px;height:12px"></div></div>
<div id="hovered">Account</div>
<ul><li draggable="true">Write the brief</li><li draggable="true">Review the draft</li></ul>
<div id="drop" aria-label="Done column" style="min-height:20px"><p>Drop here</p></div>
<div id="wrapper"><button>Inner button</button></div>
<div id="canvas"><p>Type / to choose a block</p><button>Publish</button></div>
</main>
<script>
document.getElementById('scripted').addEventListener('click', () => {});
document.getElementById('hovered').addEventListener('mouseenter', () => {});
document.getElementById('drop').addEventListener('drop', () => {});
document.getElementById('wrapper').addEventListener('click', () => {});
['drop', 'dragover', 'mouseover'].forEach(t => document.getElementById('canvas').addEventListener(t, () => {}));
['drop', 'dragover'].forEach(t => document.addEventListener(t, () => {}));
</script></body></html>`
	base := serve(t, map[string]string{"/": page})
	nodes := observeNow(t, openPage(t, base+"/"))
	render := renderNodes("u", "t", nodes, func(schema.ObservedNode) bool { return true })
	for _, want := range []struct {
		role, name, state string
	}{
		{"clickable", "Orange", ""}, {"clickable", "Archive all", ""}, {"clickable", "Open the report", ""},
		{"clickable", "Reports", ""}, {"clickable", "Account", "hover"},
		{"listitem", "Write the brief", "draggable"}, {"listitem", "Review the draft", "draggable"},
		{"dropzone", "Done column", "drop-target"},
	} {
		n := find(nodes, want.role, want.name)
		if n == nil || !n.Actionable || (want.state != "" && !slices.Contains(n.States, want.state)) {
			t.Errorf("no actionable %s %q [%s] in:\n%s", want.role, want.name, want.state, render)
		}
	}
	if strings.Contains(render, "RootWebArea") || find(nodes, "text", "Type / to choose a block") == nil {
		t.Errorf("a page that takes drops anywhere is no drop target; its text is still read:\n%s", render)
	}
	if strings.Contains(render, "Type / to choose a block Publish") {
		t.Errorf("an unnamed editor canvas that takes drops and hovers is no control of its own:\n%s", render)
	}
	if strings.Contains(render, `clickable "Inner button"`) || find(nodes, "button", "Inner button") == nil {
		t.Errorf("a container that catches its button's clicks is no control; the button is:\n%s", render)
	}
}

// A cross-site iframe runs in a renderer of its own; its controls are
// read there and joined under the iframe, in a section of their own,
// marked with the frame they act in, and its text joins the page's.
func TestCrossOriginFrameIsSeen(t *testing.T) {
	pages := map[string]string{
		"/frame": `<!doctype html><main><h1>Help desk</h1><label for="q">Question</label><input id="q"><button>Send question</button><p>We answer within a day.</p></main>`,
	}
	base := serve(t, pages) // pages are read per request: the page can name the port
	pages["/"] = `<!doctype html><main><h1>Board</h1><iframe src="http://localhost:` + base[strings.LastIndex(base, ":")+1:] +
		`/frame" title="Help desk"></iframe><iframe src="/frame" name="faq"></iframe><button>After the frame</button></main>`
	p := openPage(t, base+"/")
	var nodes []schema.ObservedNode
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if nodes = observeNow(t, p); find(nodes, "button", "Send question") != nil {
			break
		}
	}
	send := find(nodes, "button", "Send question")
	if send == nil || send.Frame == "" || !strings.Contains(send.Context, "frame Help desk") {
		t.Fatalf("the frame's button %+v:\n%s", send, renderNodes("u", "t", nodes, func(schema.ObservedNode) bool { return true }))
	}
	if q := find(nodes, "textbox", "Question"); q == nil || q.Frame != send.Frame {
		t.Errorf("the frame's field %+v", q)
	}
	// A frame with no title is known by its name.
	if !slices.ContainsFunc(nodes, func(n schema.ObservedNode) bool {
		return n.Name == "Send question" && strings.HasPrefix(n.Context, "frame faq")
	}) {
		t.Errorf("no Send question in the frame named faq:\n%s", renderNodes("u", "t", nodes, func(schema.ObservedNode) bool { return true }))
	}
	if after := find(nodes, "button", "After the frame"); after == nil || after.Frame != "" || strings.Contains(after.Context, "Help desk") {
		t.Errorf("the page's button after the frame %+v", after)
	}
}

// Rows keep each cell in its place: an empty cell does not move the
// cells after it under another header, and a cell that holds " | "
// stays one cell. A pick by a column reads the column it names (a
// trial's replay deleted the memo whose Reviewed date was newest while
// the rule said Created, and reported success).
func TestEmptyCellsKeepTheirColumns(t *testing.T) {
	page := `<!doctype html><main><h1>Memos</h1><table>
<thead><tr><th>Title</th><th>Created</th><th>Reviewed</th><th>Owner</th><th></th></tr></thead><tbody>
<tr><td>Memo B</td><td>2026-11-05</td><td>2026-11-06</td><td>bob</td><td><button>Delete</button></td></tr>
<tr><td>Memo C</td><td></td><td>2026-12-25</td><td></td><td><button>Delete</button></td></tr>
<tr><td>Budget | Q4</td><td>2026-12-01</td><td></td><td>carol</td><td><button>Delete</button></td></tr>
</tbody></table></main>`
	base := serve(t, map[string]string{"/": page})
	nodes := observeNow(t, openPage(t, base+"/"))
	render := renderNodes("u", "t", nodes, func(schema.ObservedNode) bool { return true })
	if !strings.Contains(render, `row "Memo C |  | 2026-12-25"`) {
		t.Errorf("the row's empty cell lost its place:\n%s", render)
	}
	pick := func(rule schema.PickRule) (string, error) {
		p := &schema.Pick{Name: "Delete", Rows: true, Within: "main › Memos", Rules: []schema.PickRule{rule}}
		i, _, err := records.Choose(p, "button", nodes)
		if err != nil {
			return "", err
		}
		return nodes[i].Context, nil
	}
	if _, err := pick(schema.PickRule{Order: schema.OrderNewest, By: "Created"}); !errors.Is(err, schema.ErrNotFound) {
		t.Errorf("newest by Created over a row with no Created date: %v, want not_found", err)
	}
	if got, err := pick(schema.PickRule{Order: schema.OrderIs, By: "Owner", Value: "carol"}); err != nil || !strings.HasSuffix(got, "Budget | Q4") {
		t.Errorf("the memo owned by carol: %q, %v", got, err)
	}
	if got, err := pick(schema.PickRule{Order: schema.OrderIs, Value: "Budget | Q4"}); err != nil || !strings.HasSuffix(got, "Budget | Q4") {
		t.Errorf("the memo keyed Budget | Q4: %q, %v", got, err)
	}
	if _, err := pick(schema.PickRule{Order: schema.OrderIs, By: "Owner", Value: "dave"}); !errors.Is(err, schema.ErrNotFound) {
		t.Errorf("no memo is owned by dave: %v", err)
	}
}

// A twin's id is its place among its twins: a twin inserted before the
// others moves every id after it onto another element, and the diff says
// so for each with its place, rather than reporting a new last twin as
// if the others had stayed where they were.
func TestDiffSaysTwinsMoved(t *testing.T) {
	page := `<!doctype html><html><body><main><h1>List</h1>
<ul id="l"><li><span>Item</span> <button>Remove</button></li><li><span>Item</span> <button>Remove</button></li></ul>
</main><script>function addTop() { const li = document.createElement('li'); li.innerHTML = '<span>Item</span> <button>Remove</button>'; document.getElementById('l').prepend(li); }</script></body></html>`
	base := serve(t, map[string]string{"/": page})
	p := openPage(t, base+"/")
	before := observeNow(t, p)
	first := find(before, "button", "Remove")
	if first == nil {
		t.Fatal("no Remove button")
	}
	p.run(t, `addTop()`)
	after := observeNow(t, p)
	diff := renderDiff(&schema.Observation{URL: "u", Title: "t", Nodes: before}, "u", "t", after)
	for _, want := range []string{
		"~ " + first.ID + ` button "Remove" (1 of 3)`, "~ " + first.ID + `~2 button "Remove" (2 of 3)`, "+ " + first.ID + `~3 button "Remove" (3 of 3)`,
	} {
		if !strings.Contains(diff, want) {
			t.Errorf("the diff lacks %s:\n%s", want, diff)
		}
	}
}
