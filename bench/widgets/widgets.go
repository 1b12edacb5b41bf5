package widgets

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// widgetKinds hide, reveal or load what the task needs: tabs,
// collapsibles, dialogs, autocomplete, lists that load late, switches and
// wizards.
var widgetKinds = []Kind{
	{Name: "tabs", Title: "Account", draw: tabs},
	{Name: "collapsible", Title: "Checkout", draw: collapsible},
	{Name: "dialog", Title: "Ticket", draw: dialog},
	{Name: "autocomplete", Title: "Travel", Refusable: true, draw: autocomplete},
	{Name: "late-list", Title: "Shop", Refusable: true, draw: lateList},
	{Name: "switch", Title: "Alerts", draw: switches},
	{Name: "wizard", Title: "Sign up", draw: wizard},
}

// tabs: the field is on a tab not shown first.
func tabs(d *dice, _ bool) Instance {
	po := fmt.Sprintf("PO-%d", 10000+d.IntN(90000))
	panes := map[string]string{"Profile": "Display name", "Billing": "PO number", "Notes": "Note"}
	names := map[string]string{"Display name": "display", "PO number": "po", "Note": "note"}
	order := d.some([]string{"Profile", "Billing", "Notes"}, 3)
	first := slices.Index(order, "Billing")
	for first == slices.Index(order, "Billing") {
		first = d.IntN(3)
	}
	var list, body strings.Builder
	for i, t := range order {
		fmt.Fprintf(&list, `<button type="button" role="tab" id="t%d" aria-controls="p%d" aria-selected="%t">%s</button>`, i, i, i == first, t)
		hidden := ""
		if i != first {
			hidden = " hidden"
		}
		fmt.Fprintf(&body, `<div role="tabpanel" id="p%d" aria-labelledby="t%d"%s>%s</div>`, i, i, hidden, d.field(panes[t], names[panes[t]], "text", ""))
	}
	script := `<script>document.querySelectorAll('[role=tab]').forEach(t=>t.addEventListener('click',()=>document.querySelectorAll('[role=tab]').forEach(u=>{u.setAttribute('aria-selected',u===t);document.getElementById(u.getAttribute('aria-controls')).hidden=u!==t})))</script>`
	return Instance{
		Task:   "In the Billing tab, set the PO number to " + po,
		Params: []Param{{Name: "po", Value: po}},
		Page:   static(form("tabs", `<div role="tablist">`+list.String()+`</div>`+body.String(), "Save") + script),
		Want:   url.Values{"po": {po}, "display": {""}, "note": {""}},
		Steps:  []Step{open("tabs"), click("tab", "Billing"), fill("textbox", "PO number", po), click("button", "Save")},
	}
}

var notes = []string{"Leave at the back door", "Ring twice", "Call on arrival", "Hand to reception", "Use the side gate", "Deliver after noon"}

// collapsible: the field is inside a closed details element.
func collapsible(d *dice, _ bool) Instance {
	note := fmt.Sprintf("%s, unit %d", d.one(notes), 1+d.IntN(99))
	sections := []string{
		`<details><summary>Delivery instructions</summary>` + d.field("Instructions", "instructions", "text", "") + `</details>`,
		`<details><summary>Gift message</summary>` + d.field("Message", "gift", "text", "") + `</details>`,
	}
	if d.coin() {
		sections[0], sections[1] = sections[1], sections[0]
	}
	return Instance{
		Task:   "Add the delivery instruction " + note,
		Params: []Param{{Name: "note", Value: note}},
		Page:   static(form("collapsible", strings.Join(sections, "\n"), "Place order")),
		Want:   url.Values{"instructions": {note}, "gift": {""}},
		Steps:  []Step{open("collapsible"), click("", "Delivery instructions"), fill("textbox", "Instructions", note), click("button", "Place order")},
	}
}

// dialog: the field is in a modal dialog a button opens.
func dialog(d *dice, _ bool) Instance {
	note := fmt.Sprintf("Customer %d reports: %s", 100+d.IntN(900), d.one([]string{"printer jams", "login loops", "invoice missing", "slow export"}))
	return Instance{
		Task:   "Add the note " + note,
		Params: []Param{{Name: "note", Value: note}},
		Page: static(fmt.Sprintf(`<p>Ticket #%d: no notes yet.</p>
<button type="button" onclick="document.getElementById('d').showModal()">Add note</button> <button type="button">Close ticket</button>
<dialog id="d" aria-labelledby="dh"><h2 id="dh">New note</h2><form method="post" action="/w/dialog/submit">
<p><label>Note <textarea name="note"></textarea></label></p>
<button>Save note</button> <button type="button" onclick="this.closest('dialog').close()">Cancel</button></form></dialog>`, 1000+d.IntN(9000))),
		Want:  url.Values{"note": {note}},
		Steps: []Step{open("dialog"), click("button", "Add note"), fill("textbox", "Note", note), click("button", "Save note")},
	}
}

var cities = []string{"Paris", "Parma", "Porto", "Portland", "Potsdam", "Prague", "Madrid", "Malaga", "Manila", "Marseille", "Berlin", "Bergen", "Bern", "Bremen", "Lisbon", "Lille", "Lima", "Linz"}

// autocomplete: type the city, then choose it among the suggestions that
// share its first letters.
func autocomplete(d *dice, offered bool) Instance {
	known, chosen := d.offer(cities, 12, offered)
	list, _ := json.Marshal(known)
	return Instance{
		Task:   "Set the destination to " + chosen,
		Params: []Param{{Name: "city", Value: chosen}},
		Page: static(form("autocomplete", fmt.Sprintf(`<p><label for="c">Destination</label> <input id="c" role="combobox" aria-autocomplete="list" aria-controls="l" aria-expanded="false" autocomplete="off">
<input type="hidden" name="city" id="h"></p><ul id="l" role="listbox" aria-label="Suggestions"></ul>
<script>const C=%s,i=document.getElementById('c'),l=document.getElementById('l'),h=document.getElementById('h');
i.addEventListener('input',()=>{l.innerHTML='';h.value='';const v=i.value.toLowerCase().slice(0,3);i.setAttribute('aria-expanded','false');if(v.length<2)return;
C.filter(x=>x.toLowerCase().startsWith(v)).forEach(x=>{const o=document.createElement('li');o.setAttribute('role','option');o.textContent=x;o.onclick=()=>{i.value=x;h.value=x;l.innerHTML='';i.setAttribute('aria-expanded','false')};l.append(o)});i.setAttribute('aria-expanded',String(l.children.length>0))})</script>`, list), "Save")),
		Want: url.Values{"city": {chosen}},
		Steps: []Step{open("autocomplete"), fill("combobox", "Destination", chosen), {Do: "wait", Value: chosen, Role: "option"},
			click("option", chosen), click("button", "Save")},
	}
}

var goods = []string{"Walnut tray", "Cork board", "Brass hook", "Felt pad", "Wool throw", "Clay pot", "Jute rug", "Tin box"}

// lateList: the rows arrive some time after the page, each with its own
// Add button.
func lateList(d *dice, offered bool) Instance {
	shown, chosen := d.offer(goods, 5, offered)
	var rows strings.Builder
	for _, g := range shown {
		fmt.Fprintf(&rows, `<li><span>%s</span> <button name="add" value="%[1]s">Add</button></li>`, esc(g))
	}
	rowsJS, _ := json.Marshal(rows.String())
	return Instance{
		Task:   "Add the " + chosen + " to the cart",
		Params: []Param{{Name: "item", Value: chosen}},
		Page: static(fmt.Sprintf(`<form method="post" action="/w/late-list/submit"><ul id="l" aria-busy="true"><li>Loading…</li></ul></form>
<script>setTimeout(()=>{const l=document.getElementById('l');l.innerHTML=%s;l.removeAttribute('aria-busy')},%d)</script>`, rowsJS, 200+d.IntN(700))),
		Want:  url.Values{"add": {chosen}},
		Steps: []Step{open("late-list"), {Do: "wait", Value: chosen}, {Do: "click", Role: "button", Name: "Add", Near: chosen}},
	}
}

// switches: turn one switch on, whatever its state; leave the other.
func switches(d *dice, _ bool) Instance {
	emailOn, smsOn := d.IntN(3) == 0, d.coin()
	sw := func(id, label string, on bool) string {
		v := "off"
		if on {
			v = "on"
		}
		return fmt.Sprintf(`<p><button type="button" role="switch" id="%s" aria-checked="%t">%s</button><input type="hidden" name="%[1]s" value="%[4]s"></p>`, id, on, label, v)
	}
	parts := []string{sw("sms", "Text message alerts", smsOn), sw("email", "Email alerts", emailOn)}
	if d.coin() {
		parts[0], parts[1] = parts[1], parts[0]
	}
	if d.coin() {
		parts = append(parts, `<p><label><input type="checkbox" name="digest" value="weekly"> Weekly digest</label></p>`)
	}
	body := strings.Join(parts, "\n") +
		`<script>document.querySelectorAll('[role=switch]').forEach(s=>s.addEventListener('click',()=>{const on=s.getAttribute('aria-checked')!=='true';s.setAttribute('aria-checked',on);s.nextElementSibling.value=on?'on':'off'}))</script>`
	sms := "off"
	if smsOn {
		sms = "on"
	}
	steps := []Step{open("switch")}
	if !emailOn {
		steps = append(steps, click("switch", "Email alerts"))
	}
	return Instance{
		Task:  "Turn email alerts on",
		Page:  static(form("switch", body, "Save")),
		Want:  url.Values{"email": {"on"}, "sms": {sms}, "digest": {""}},
		Steps: append(steps, click("button", "Save")),
	}
}

var plans = []string{"Starter", "Team", "Business", "Enterprise", "Nonprofit", "Student"}

// wizard: a name on the first page, a plan on the second.
func wizard(d *dice, _ bool) Instance {
	name := fmt.Sprintf("%s %s", d.one([]string{"Ada", "Grace", "Alan", "Barbara", "Ken"}), d.one([]string{"Moreau", "Okafor", "Lindqvist", "Tanaka", "Silva"}))
	shown := d.some(plans, 4)
	plan := shown[d.IntN(len(shown))]
	var opts strings.Builder
	for _, p := range shown {
		fmt.Fprintf(&opts, `<option>%s</option>`, p)
	}
	return Instance{
		Task:   fmt.Sprintf("Sign up %s for the %s plan", name, plan),
		Params: []Param{{Name: "name", Value: name}, {Name: "plan", Value: plan}},
		Page:   static(`<p>Step 1 of 2</p><form method="post" action="/w/wizard/next">` + d.field("Full name", "name", "text", "") + `<button>Next</button></form>`),
		Next:   `<p>Step 2 of 2</p>` + form("wizard", `<p><label>Plan <select name="plan">`+opts.String()+`</select></label></p>`, "Confirm"),
		Want:   url.Values{"name": {name}, "plan": {plan}},
		Steps: []Step{open("wizard"), fill("textbox", "Full name", name), click("button", "Next"),
			{Do: "select", Role: "combobox", Name: "Plan", Value: plan}, click("button", "Confirm")},
	}
}
