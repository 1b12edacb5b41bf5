package perception

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/schema"
)

const formPage = `<!doctype html><html><head><title>Vendors</title></head><body>
<header><a href="/">Home</a></header>
<nav aria-label="Main"><a href="/records">Records</a> <a href="/vendors">Vendors</a></nav>
<main>
  <h1>Register a vendor</h1>
  <p>Fill in the company details. All fields are required.</p>
  <div role="status">Draft saved</div>
  <form action="/vendors" method="post">
    <label for="co">Company name</label> <input id="co" name="company" value="Acme">
    <label for="pw">Password</label> <input id="pw" type="password" value="hunter22">
    <label for="notes">Notes</label> <textarea id="notes">hello</textarea>
    <fieldset><legend>Billing address</legend><label for="b1">Street</label><input id="b1"></fieldset>
    <fieldset><legend>Shipping address</legend><label for="s1">Street</label><input id="s1"></fieldset>
    <label for="ct">Country</label><select id="ct"><option>Germany</option><option selected>France</option></select>
    <input type="checkbox" id="tos" checked><label for="tos">I agree</label>
    <div contenteditable="true" aria-label="Rich notes">edit me</div>
    <div tabindex="0" role="none" aria-label="Custom toggle" onclick="1">toggle</div>
    <button>Register</button>
  </form>
  <table>
    <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
    <tbody>
      <tr><td>Northwind</td><td>Active</td><td><a href="/e/1">Edit</a></td></tr>
      <tr><td>Contoso</td><td>Closed</td><td><a href="/e/2">Edit</a></td></tr>
    </tbody>
  </table>
  <iframe src="/frame" title="Embedded form"></iframe>
  <div id="host"></div>
  <button style="display:none">Hidden by display</button>
  <button style="visibility:hidden">Hidden by visibility</button>
  <div aria-hidden="true"><button>Hidden from AT</button></div>
  <button style="width:0;height:0;padding:0;border:0;overflow:hidden">Zero size</button>
  <div style="opacity:0"><button>Transparent parent</button></div>
  <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="">
</main>
<footer>© 2026</footer>
<script>
  document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<button>Shadow button</button>';
</script>
</body></html>`

const framePage = `<!doctype html><html><body><label for="q">Frame field</label><input id="q"><button>Frame submit</button></body></html>`

func find(nodes []schema.ObservedNode, role, name string) *schema.ObservedNode {
	for i := range nodes {
		if nodes[i].Role == role && nodes[i].Name == name {
			return &nodes[i]
		}
	}
	return nil
}

func TestCondenseKeepsControlsAndMeaning(t *testing.T) {
	base := serve(t, map[string]string{"/": formPage, "/frame": framePage})
	p := openPage(t, base+"/")
	nodes := observeNow(t, p)
	render := renderNodes("u", "t", nodes, func(schema.ObservedNode) bool { return true })

	for _, want := range []struct{ role, name string }{
		{"link", "Home"}, {"link", "Records"}, {"heading", "Register a vendor"},
		{"text", "Fill in the company details. All fields are required."}, {"status", "Draft saved"},
		{"textbox", "Company name"}, {"textbox", "Password"}, {"textbox", "Notes"}, {"combobox", "Country"},
		{"checkbox", "I agree"}, {"button", "Register"}, {"textbox", "Rich notes"}, {"clickable", "Custom toggle"},
		{"row", "Name | Status | Actions"}, {"row", "Northwind | Active | Edit"},
		{"textbox", "Frame field"}, {"button", "Frame submit"}, // same-origin iframe
		{"button", "Shadow button"}, // open shadow root
	} {
		if find(nodes, want.role, want.name) == nil {
			t.Errorf("missing %s %q in:\n%s", want.role, want.name, render)
		}
	}
	for _, hidden := range []string{"Hidden by display", "Hidden by visibility", "Hidden from AT", "Zero size", "Transparent parent"} {
		if strings.Contains(render, hidden) {
			t.Errorf("invisible control %q was kept:\n%s", hidden, render)
		}
	}
	if strings.Contains(render, "© 2026") {
		t.Errorf("footer text is not content:\n%s", render)
	}

	co := find(nodes, "textbox", "Company name")
	if co.Value != "Acme" || !co.Actionable || co.Contract == nil || co.Contract.Tag != "input" || co.Contract.InputType != "text" {
		t.Errorf("company field: %+v %+v", co, co.Contract)
	}
	if pw := find(nodes, "textbox", "Password"); strings.Contains(pw.Value, "hunter22") || pw.Value == "" {
		t.Errorf("password value not masked: %q", pw.Value)
	}
	if ct := find(nodes, "combobox", "Country"); ct.Value != "France" {
		t.Errorf("select value %q", ct.Value)
	}
	if tos := find(nodes, "checkbox", "I agree"); len(tos.States) == 0 || tos.States[0] != "checked" {
		t.Errorf("checkbox states %v", tos.States)
	}
	if co.Contract.FormAction != "/vendors" || co.Contract.FormMethod != "post" {
		t.Errorf("a field sends its form on Enter, its contract must say where: %+v", co.Contract)
	}
	if notes := find(nodes, "textbox", "Notes"); notes.Contract.FormAction != "" {
		t.Errorf("Enter in a textarea does not send the form: %+v", notes.Contract)
	}
	reg := find(nodes, "button", "Register")
	if reg.Contract.FormAction != "/vendors" || reg.Contract.FormMethod != "post" || reg.Contract.InputType != "submit" {
		t.Errorf("submit contract %+v", reg.Contract)
	}
	if edit := find(nodes, "link", "Edit"); edit == nil || edit.Contract.Href != "/e/1" || !strings.Contains(edit.Context, "Northwind") {
		t.Errorf("row link %+v", edit)
	}
	// The two Street fields differ by their group, not by ordinal.
	var streets []string
	for _, n := range nodes {
		if n.Name == "Street" {
			streets = append(streets, n.ID)
		}
	}
	if len(streets) != 2 || streets[0] == streets[1] || strings.Contains(streets[1], "~") {
		t.Errorf("Street fields ids %v: the fieldset legend should tell them apart", streets)
	}
}

// ids maps "role name context" to id for every node.
func ids(nodes []schema.ObservedNode) map[string]string {
	m := map[string]string{}
	for _, n := range nodes {
		m[n.Role+" "+n.Name] = n.ID
	}
	return m
}

func TestIDsSurviveChurnAndTellControlsApart(t *testing.T) {
	base := serve(t, map[string]string{"/": formPage, "/frame": framePage})
	p := openPage(t, base+"/")
	before := ids(observeNow(t, p))

	p.navigate(t, base+"/")
	if after := ids(observeNow(t, p)); !sameIDs(before, after) {
		t.Errorf("reload changed ids:\n%v\n%v", before, after)
	}

	// Class and id churn, new wrappers, a full re-render of main, and an
	// unrelated new banner: no id changes.
	p.run(t, `
		for (const el of document.querySelectorAll('*')) { el.className = 'x' + Math.random(); }
		const main = document.querySelector('main');
		const wrap = document.createElement('div'); wrap.className = 'wrapper';
		wrap.innerHTML = main.innerHTML; main.innerHTML = ''; main.appendChild(wrap);
		const banner = document.createElement('aside'); banner.setAttribute('aria-label', 'Promo');
		banner.innerHTML = '<a href="/sale">Big sale</a>'; document.body.prepend(banner);`)
	// The re-render reloads the iframe; wait for its document.
	after := ids(observeNow(t, p))
	for deadline := time.Now().Add(5 * time.Second); after["textbox Frame field"] == "" && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		after = ids(observeNow(t, p))
	}
	for k, id := range before {
		if strings.HasPrefix(k, "button Shadow") {
			continue // the shadow root is not copied by innerHTML
		}
		if after[k] != id {
			t.Errorf("%s: id %s became %s after churn", k, id, after[k])
		}
	}
	if after["link Big sale"] == "" {
		t.Error("the new banner link was not observed")
	}

	// A genuinely different control: the label changed.
	p.run(t, `document.querySelector('label[for=co]').textContent = 'Legal entity name'`)
	renamed := ids(observeNow(t, p))
	if renamed["textbox Legal entity name"] == "" || renamed["textbox Legal entity name"] == before["textbox Company name"] {
		t.Errorf("renamed field kept its id: %v", renamed)
	}
	if renamed["button Register"] != before["button Register"] {
		t.Error("renaming one label changed another control's id")
	}
}

func sameIDs(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestDuplicatesGetOrdinals(t *testing.T) {
	base := serve(t, map[string]string{"/": `<main><h1>List</h1><button>Delete</button><button>Delete</button><button>Delete</button></main>`})
	nodes := observeNow(t, openPage(t, base+"/"))
	var got []string
	for _, n := range nodes {
		if n.Name == "Delete" {
			got = append(got, n.ID)
		}
	}
	if len(got) != 3 || got[1] != got[0]+"~2" || got[2] != got[0]+"~3" {
		t.Fatalf("duplicate ids %v", got)
	}
}

// A field sends its form as the form's default button (its first submit
// button) would: with that button's formaction and formmethod.
func TestFieldContractNamesWhereEnterSends(t *testing.T) {
	const page = `<!doctype html><html><body><form action="/vendors" method="post">
<label for="n">Name</label><input id="n" name="name">
<button type="button">Preview</button>
<button formaction="/vendors/purge" formmethod="POST">Save</button>
<button>Register</button>
</form>
<form action="/search"><label for="q">Query</label><input id="q" type="search"></form>
<label for="lone">Lone</label><input id="lone"></body></html>`
	base := serve(t, map[string]string{"/": page})
	nodes := observeNow(t, openPage(t, base+"/"))
	for _, c := range []struct {
		role, name, action, method string
	}{
		{"textbox", "Name", "/vendors/purge", "post"},
		{"button", "Save", "/vendors/purge", "post"},
		{"button", "Register", "/vendors", "post"},
		{"button", "Preview", "", ""},
		{"searchbox", "Query", "/search", "get"},
		{"textbox", "Lone", "", ""},
	} {
		n := find(nodes, c.role, c.name)
		if n == nil || n.Contract == nil {
			t.Fatalf("no %s %q with a contract", c.role, c.name)
		}
		if n.Contract.FormAction != c.action || n.Contract.FormMethod != c.method {
			t.Errorf("%s %q contract %+v, want action %q method %q", c.role, c.name, n.Contract, c.action, c.method)
		}
	}
}

// A <base href> on another origin moves every relative action and href
// there: the contract says so, with the scheme and host, though the
// attributes still read /vendors and /help.
func TestContractFollowsBaseHref(t *testing.T) {
	const page = `<!doctype html><html><head><base href="http://elsewhere.example:9/x/"></head><body>
<form action="/vendors" method="post"><label for="n">Name</label><input id="n" name="name"><button>Register</button></form>
<a href="help">Help</a></body></html>`
	base := serve(t, map[string]string{"/": page})
	nodes := observeNow(t, openPage(t, base+"/"))
	if n := find(nodes, "button", "Register"); n == nil || n.Contract.FormAction != "http://elsewhere.example:9/vendors" {
		t.Fatalf("register contract %+v, want the base's origin", n)
	}
	if n := find(nodes, "link", "Help"); n == nil || n.Contract.Href != "http://elsewhere.example:9/x/help" {
		t.Fatalf("help contract %+v, want the base's origin and path", n)
	}
}

// A field the page gives no accessible name is named by the text a
// person reads as its label, whatever markup carries it; where the
// layout does not say which text is whose (a heading above two fields, a
// row of labels above a row of fields, a run that reads both ways), or
// only prose stands beside it, it stays unnamed rather than take a
// neighbour's label.
func TestFieldsNamedByTheirVisibleLabel(t *testing.T) {
	const page = `<!doctype html><html><body><main><form>
  <div><label>Username</label><input name="u"><label>Password</label><input name="p" type="password"><button>Sign in</button></div>
  <div><input name="x"> Street<br><input name="y"> City<br></div>
  <div><span>Start date</span></div><div><input type="date"></div>
  <table><tr><td>Quantity</td><td><input type="number"></td></tr></table>
  <div><input type="checkbox"> Remember me</div>
  <div><input type="radio" name="s"> <span>Small</span> <input type="radio" name="s"> <span>Large</span></div>
  <div><input placeholder="Search the catalog"></div>
  <div><label>Name</label><input name="n" placeholder="Email"><br><label>Email</label><input name="em" placeholder="you@example.com"></div>
  <div><h3>Shipping</h3><input name="s1"><input name="s2"></div>
  <div><span>First</span><span>Last</span><input name="f"><input name="l"></div>
  <div><label>Email</label><br><small>We never share it.</small><br><input name="e"></div>
  <div><p>This paragraph explains at length what the next field is for, and it is far too long to be a label.</p><input name="long"></div>
  <div>Subscribe <input type="checkbox" name="sub"><br>I agree <input type="checkbox" name="agree"><br><small>Read the terms first.</small></div>
</form></main></body></html>`
	base := serve(t, map[string]string{"/": page})
	nodes := observeNow(t, openPage(t, base+"/"))
	render := renderNodes("", "", nodes, func(schema.ObservedNode) bool { return true })
	for _, c := range []struct{ role, name string }{
		{"textbox", "Username"}, {"textbox", "Password"}, {"textbox", "Street"}, {"textbox", "City"}, {"date-picker", "Start date"},
		{"spinbutton", "Quantity"}, {"checkbox", "Remember me"}, {"radio", "Small"}, {"radio", "Large"}, {"textbox", "Search the catalog"},
		{"textbox", "Email"}, {"textbox", "Name"},
	} {
		if find(nodes, c.role, c.name) == nil {
			t.Errorf("no %s %q in\n%s", c.role, c.name, render)
		}
	}
	var unnamed []string
	for _, n := range nodes {
		if n.Actionable && n.Name == "" {
			unnamed = append(unnamed, n.Role)
		}
	}
	// The two under a heading, the two under a row of labels, the one
	// after a paragraph, and the two boxes of a run that reads both ways.
	if len(unnamed) != 7 {
		t.Errorf("want 7 fields left unnamed, got %v in\n%s", unnamed, render)
	}
	// A placeholder that says another field's label does not name it.
	if n := find(nodes, "textbox", "you@example.com"); n != nil {
		t.Errorf("a field named by its placeholder beside its label:\n%s", render)
	}
	if u, p := find(nodes, "textbox", "Username"), find(nodes, "textbox", "Password"); u != nil && p != nil && u.ID == p.ID {
		t.Errorf("username and password share id %s", u.ID)
	}
}

// TestListItemsArePlaces: a node inside a list knows which list and
// which item it is in, so that "the third result" counts the list's
// items: an ad and a "Next page" link outside the list are not counted,
// a "cached" link beside a result's own is not counted twice, and a
// form's boxes are counted where they stand, never across two forms.
// None of it is in an id.
func TestListItemsArePlaces(t *testing.T) {
	const page = `<!doctype html><html><body><main>
  <a href="/ad">Sponsored: cheap flights</a>
  <ol><li><a href="/d/1">Invoice 4821 Birch Ltd</a> <a href="/c/1">cached</a></li>
      <li><a href="/d/2">Receipt 1200 Cedar GmbH</a></li>
      <li><a href="/d/3">Quote 7700 Delta SA</a> <a href="/c/3">cached</a></li></ol>
  <a href="/next">Next page</a>
  <form><label><input type="checkbox" name="b" value="Basil"> Basil</label><br>
  <label><input type="checkbox" name="b" value="Olives"> Olives</label><br>
  <label><input type="checkbox" name="b" value="Tuna"> Tuna</label><button>Submit</button></form>
  <h2>Plan</h2><form id="plan"><label><input type="radio" name="plan" value="basic" checked> Basic</label>
  <label><input type="radio" name="plan" value="pro"> Pro</label><label><input type="radio" name="plan" value="team"> Team</label>
  <label><input type="radio" name="bill" value="m" checked> Monthly</label><label><input type="radio" name="bill" value="y"> Yearly</label>
  <label><input type="checkbox" name="x" value="Sports"> Sports</label><label><input type="checkbox" name="x" value="Music"> Music</label></form>
  <label><input type="checkbox" name="x" value="Food" form="plan"> Food</label>
  <section><h2>Search</h2><form action="/search"><label><input type="checkbox" name="x"> Exact</label></form>
  <form action="/filter"><label><input type="checkbox" name="y"> Recent</label></form></section>
</main></body></html>`
	base := serve(t, map[string]string{"/": page})
	nodes := observeNow(t, openPage(t, base+"/"))
	render := renderNodes("", "", nodes, func(schema.ObservedNode) bool { return true })
	at := func(role, name string) int {
		for i, n := range nodes {
			if n.Role == role && n.Name == name {
				return i
			}
		}
		t.Fatalf("no %s %q in\n%s", role, name, render)
		return -1
	}
	for name, want := range map[string]int{"Invoice 4821 Birch Ltd": 1, "Receipt 1200 Cedar GmbH": 2, "Quote 7700 Delta SA": 3} {
		c, place, ok := schema.PlaceOf(nodes, at("link", name))
		if !ok || c.Among != schema.AmongItems || place != want {
			t.Errorf("%q: among %q place %d (%v), want items %d", name, c.Among, place, ok, want)
		}
	}
	for _, name := range []string{"Sponsored: cheap flights", "Next page"} {
		if _, _, ok := schema.PlaceOf(nodes, at("link", name)); ok {
			t.Errorf("%q, outside the list, has a place", name)
		}
	}
	if _, _, ok := schema.PlaceOf(nodes, slices.IndexFunc(nodes, func(n schema.ObservedNode) bool { return n.Name == "cached" })); ok {
		t.Errorf("a result's second link has a place of its own")
	}
	c, place, ok := schema.PlaceOf(nodes, at("checkbox", "Olives"))
	if !ok || c.Among != schema.AmongControls || place != 2 {
		t.Errorf("Olives: among %q place %d (%v), want controls 2", c.Among, place, ok)
	}
	// The plan's radios apart from the billing period's, in one form; a
	// box outside the form that names it (form=) is the form's.
	c, place, ok = schema.PlaceOf(nodes, at("radio", "Team"))
	if !ok || place != 3 || c.Field != "plan" {
		t.Errorf("Team: %+v place %d (%v), want the plan's third", c, place, ok)
	}
	if c, place, ok := schema.PlaceOf(nodes, at("checkbox", "Food")); !ok || place != 3 {
		t.Errorf("Food, in the form by its form attribute: %+v place %d (%v), want 3", c, place, ok)
	}
	// Two forms under one heading: which one a place counts in is unknown.
	if _, _, ok := schema.PlaceOf(nodes, at("checkbox", "Recent")); ok {
		t.Errorf("a box counted across two forms")
	}
	third, err := schema.Placed(nodes, schema.Count{Role: "link", Among: schema.AmongItems, Within: nodes[at("link", "Quote 7700 Delta SA")].Context})
	if err != nil || len(third) != 3 || nodes[third[2]].Name != "Quote 7700 Delta SA" {
		t.Errorf("the list's items: %v %v", third, err)
	}
}
