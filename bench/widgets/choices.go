package widgets

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// choiceKinds pick among what the page offers: by name, by place, by set
// and by row.
var choiceKinds = []Kind{
	{Name: "select", Title: "Shipping", Refusable: true, draw: selectCountry},
	{Name: "radio", Title: "Size", Refusable: true, draw: radioSize},
	{Name: "checkbox-set", Title: "Toppings", Refusable: true, draw: checkboxSet},
	{Name: "ordinal-result", Title: "Results", Refusable: true, draw: ordinalResult},
	{Name: "ordinal-checkbox", Title: "Boxes", draw: ordinalCheckbox},
	{Name: "row-action", Title: "Members", Refusable: true, draw: rowAction},
	{Name: "search", Title: "Catalog", Refusable: true, draw: search},
}

var countries = [][2]string{{"DE", "Germany"}, {"FR", "France"}, {"IT", "Italy"}, {"ES", "Spain"}, {"PT", "Portugal"}, {"NL", "Netherlands"},
	{"BE", "Belgium"}, {"AT", "Austria"}, {"CH", "Switzerland"}, {"PL", "Poland"}, {"SE", "Sweden"}, {"NO", "Norway"}, {"DK", "Denmark"}, {"FI", "Finland"}, {"IE", "Ireland"}}

// selectCountry: a select whose options come in another order.
func selectCountry(d *dice, offered bool) Instance {
	idx := d.Perm(len(countries))[:7]
	chosen := countries[idx[d.IntN(len(idx))]]
	if !offered {
		chosen = countries[d.Perm(len(countries))[0]]
		for slices.Contains(idx, slices.Index(countries, chosen)) {
			chosen = countries[d.IntN(len(countries))]
		}
	}
	var opts strings.Builder
	opts.WriteString(`<option value="">Choose…</option>`)
	for _, i := range idx {
		fmt.Fprintf(&opts, `<option value="%s">%s</option>`, countries[i][0], countries[i][1])
	}
	want := url.Values{"country": {chosen[0]}}
	body := d.decoys(want) + fmt.Sprintf(`<p><label>Country <select name="country">%s</select></label></p>`, opts.String())
	return Instance{
		Task:   "Ship the order to " + chosen[1],
		Params: []Param{{Name: "country", Value: chosen[1]}},
		Page:   static(form("select", body, "Save")),
		Want:   want,
		Steps:  []Step{open("select"), {Do: "select", Role: "combobox", Name: "Country", Value: chosen[1]}, click("button", "Save")},
	}
}

var sizes = []string{"XS", "S", "M", "L", "XL", "S4", "M2", "Petite", "Regular", "Tall", "Long", "Short"}

// radioSize: radios, names of one or two letters among them.
func radioSize(d *dice, offered bool) Instance {
	shown, chosen := d.offer(sizes, 6, offered)
	var b strings.Builder
	b.WriteString(`<fieldset><legend>Size</legend>`)
	for _, s := range shown {
		fmt.Fprintf(&b, `<label><input type="radio" name="size" value="%s"> %[1]s</label> `, s)
	}
	b.WriteString(`</fieldset>`)
	return Instance{
		Task:   "Choose the size " + chosen,
		Params: []Param{{Name: "size", Value: chosen}},
		Page:   static(form("radio", b.String(), "Save")),
		Want:   url.Values{"size": {chosen}},
		Steps:  []Step{open("radio"), click("radio", chosen), click("button", "Save")},
	}
}

var toppings = []string{"Basil", "Capers", "Olives", "Onions", "Peppers", "Pineapple", "Rocket", "Salami", "Spinach", "Mushrooms", "Tuna", "Garlic"}

// checkboxSet: tick exactly the task's set; a box ticked already that is
// not in it is unticked.
func checkboxSet(d *dice, offered bool) Instance {
	shown := d.some(toppings, 6)
	chosen := slices.Clone(d.some(shown, 2+d.IntN(2)))
	pre := shown[d.IntN(len(shown))]
	if !offered {
		for _, t := range toppings {
			if !slices.Contains(shown, t) {
				chosen[0] = t
			}
		}
	}
	var b strings.Builder
	b.WriteString(`<fieldset><legend>Toppings</legend>`)
	for _, t := range shown {
		checked := ""
		if t == pre {
			checked = " checked"
		}
		fmt.Fprintf(&b, `<label><input type="checkbox" name="topping" value="%s"%s> %[1]s</label> `, t, checked)
	}
	b.WriteString(`</fieldset>`)
	steps := []Step{open("checkbox-set")}
	for _, t := range shown {
		if slices.Contains(chosen, t) != (t == pre) {
			steps = append(steps, click("checkbox", t))
		}
	}
	return Instance{
		Task:   "Choose exactly these toppings: " + strings.Join(chosen, ", "),
		Params: []Param{{Name: "toppings", Value: strings.Join(chosen, ", ")}},
		Page:   static(form("checkbox-set", b.String(), "Order")),
		Want:   url.Values{"topping": chosen},
		Steps:  append(steps, click("button", "Order")),
	}
}

var subjects = []string{"Invoice", "Receipt", "Quote", "Contract", "Order", "Statement"}
var companies = []string{"Birch Ltd", "Cedar GmbH", "Delta SA", "Ember Inc", "Fjord AS", "Garnet BV", "Harbor LLC", "Indigo Oy"}

// ordinalResult: open the nth result of a list that changes.
func ordinalResult(d *dice, offered bool) Instance {
	n := 1 + d.IntN(4)
	count := n + 1 + d.IntN(3)
	if !offered {
		count = n - 1
	}
	titles := make([]string, count)
	var b strings.Builder
	b.WriteString(`<ol class="results">`)
	for i := range titles {
		titles[i] = fmt.Sprintf("%s %d — %s", d.one(subjects), 1000+d.IntN(9000), d.one(companies))
		fmt.Fprintf(&b, `<li><a href="/w/ordinal-result/submit?doc=%s">%s</a></li>`, url.QueryEscape(titles[i]), esc(titles[i]))
	}
	b.WriteString(`</ol>`)
	in := Instance{
		Task:   fmt.Sprintf("Open the %s result", ordinals[n-1]),
		Params: []Param{{Name: "place", Value: ordinals[n-1]}},
		Page:   static(`<p>Documents, newest first</p>` + b.String()),
		Steps:  []Step{open("ordinal-result")},
	}
	if n <= count {
		in.Want = url.Values{"doc": {titles[n-1]}}
		in.Steps = append(in.Steps, click("link", titles[n-1]))
	}
	return in
}

// ordinalCheckbox: tick the nth of boxes named each their own way.
func ordinalCheckbox(d *dice, _ bool) Instance {
	shown := d.some(toppings, 4+d.IntN(3))
	n := 1 + d.IntN(len(shown))
	var b strings.Builder
	for _, t := range shown {
		fmt.Fprintf(&b, `<label><input type="checkbox" name="box" value="%s"> %[1]s</label><br>`, t)
	}
	return Instance{
		Task:   fmt.Sprintf("Tick the %s checkbox", ordinals[n-1]),
		Params: []Param{{Name: "place", Value: ordinals[n-1]}},
		Page:   static(form("ordinal-checkbox", b.String(), "Submit")),
		Want:   url.Values{"box": {shown[n-1]}},
		Steps:  []Step{open("ordinal-checkbox"), click("checkbox", shown[n-1]), click("button", "Submit")},
	}
}

var members = []string{"Ada Byron", "Grace Hopper", "Alan Turing", "Edsger Dijkstra", "Barbara Liskov", "Donald Knuth", "Frances Allen", "Ken Thompson", "Radia Perlman", "Margaret Hamilton"}

// rowAction: press the button in the task's row of a table.
func rowAction(d *dice, offered bool) Instance {
	shown, chosen := d.offer(members, 5, offered)
	ids := map[string]string{}
	var b strings.Builder
	b.WriteString(`<table><thead><tr><th>Name</th><th>Role</th><th></th></tr></thead><tbody>`)
	for _, m := range shown {
		ids[m] = fmt.Sprintf("u%d", 1000+d.IntN(9000))
		fmt.Fprintf(&b, `<tr><td>%s</td><td>%s</td><td><button name="archive" value="%s">Archive</button></td></tr>`, esc(m), d.one([]string{"Editor", "Viewer", "Owner"}), ids[m])
	}
	b.WriteString(`</tbody></table>`)
	return Instance{
		Task:   "Archive the member " + chosen,
		Params: []Param{{Name: "member", Value: chosen}},
		Page:   static(fmt.Sprintf(`<form method="post" action="/w/row-action/submit">%s</form>`, b.String())),
		Want:   url.Values{"archive": {ids[chosen]}},
		Steps:  []Step{open("row-action"), {Do: "click", Role: "button", Name: "Archive", Near: chosen}},
	}
}

var products = []string{"Oak desk", "Oak desk lamp", "Oak desk mat", "Pine shelf", "Pine shelf bracket", "Steel chair", "Steel chair pad", "Glass table", "Glass table top", "Linen curtain", "Linen curtain rod"}

// search: search for a product and open the result named exactly so,
// among results whose names contain it.
func search(d *dice, offered bool) Instance {
	bases := []string{"Oak desk", "Pine shelf", "Steel chair", "Glass table", "Linen curtain"}
	chosen := d.one(bases)
	results := func(q url.Values) string {
		query := strings.TrimSpace(q.Get("q"))
		box := `<form method="get" action="/w/search" role="search"><input type="search" name="q" aria-label="Search products"> <button>Search</button></form>`
		if query == "" {
			return box
		}
		var hits []string
		for _, p := range products {
			if strings.Contains(strings.ToLower(p), strings.ToLower(query)) && (offered || p != chosen) {
				hits = append(hits, p)
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s<h2>Results for %s</h2><ul>", box, esc(query))
		for _, i := range d.Perm(len(hits)) {
			fmt.Fprintf(&b, `<li><a href="/w/search/submit?product=%s">%s</a></li>`, url.QueryEscape(hits[i]), esc(hits[i]))
		}
		b.WriteString("</ul>")
		return b.String()
	}
	return Instance{
		Task:   "Search the catalog for the " + chosen + " and open it",
		Params: []Param{{Name: "product", Value: chosen}},
		Page:   results,
		Want:   url.Values{"product": {chosen}},
		Steps: []Step{open("search"), {Do: "fill", Role: "searchbox", Name: "Search products", Value: chosen}, click("button", "Search"),
			click("link", chosen)},
	}
}
