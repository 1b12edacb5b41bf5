package suite

import (
	"fmt"
	"strings"

	"github.com/rote-agent/rote/schema/tools"
)

// downloadLatest (B1): sign in, open Reports, download the report with the
// latest publication date.
func downloadLatest(t *turn) action { return downloadBy(t, true) }

// downloadOldest (V4, B1's near miss): the same, the earliest date.
func downloadOldest(t *turn) action { return downloadBy(t, false) }

// downloadBy downloads the report published latest (or earliest).
func downloadBy(t *turn, latest bool) action {
	if a, ok := t.chrome(); ok {
		return a
	}
	if a, ok := t.navTo("/reports", "Reports"); ok {
		return a
	}
	chosen, date := "", ""
	for _, n := range t.page().Nodes {
		cells := strings.Split(n.Name, " | ")
		if n.Role == "row" && len(cells) == 4 && cells[3] == "Download" && (date == "" || (cells[2] > date) == latest) {
			chosen, date = cells[0], cells[2]
		}
	}
	if chosen == "" {
		return fail("the reports page lists no downloadable report")
	}
	if t.did("click", "Download "+chosen) > 0 {
		return done("downloaded " + chosen + " (published " + date + ")")
	}
	link, ok := t.page().Find("link", "Download "+chosen)
	if !ok {
		return fail("no download link for " + chosen)
	}
	return click(link)
}

// vendorFields are the vendor form's fields: the labels a field may go by
// and the parameter it takes.
var vendorFields = []struct {
	role   string
	labels []string
	param  string
}{
	{"textbox", []string{"Company name", "Legal entity name"}, "company"},
	{"textbox", []string{"Tax ID"}, "tax_id"},
	{"textbox", []string{"Contact email"}, "email"},
	{"textbox", []string{"Phone"}, "phone"},
	{"textbox", []string{"Street address"}, "street"},
	{"textbox", []string{"City"}, "city"},
	{"combobox", []string{"Country"}, "country"},
}

// vendorForm (B2, B5, B6): sign in, open the vendor form, fill its eight
// fields over two pages, and submit with the button named submit, but
// only on a form whose heading says it does what the task asks (verb).
func vendorForm(verb, submit string) func(*turn) action {
	return func(t *turn) action {
		if a, ok := t.chrome(); ok {
			return a
		}
		p := t.page()
		company := t.value("company")
		done1 := fmt.Sprintf("Vendor %s %sed", company, strings.TrimSuffix(verb, "e"))
		if p.Text(done1) {
			return done(done1)
		}
		// The portal answered, but not with what the task asked for.
		for _, n := range p.Nodes {
			if strings.HasPrefix(n.Name, "Vendor "+company+" ") && n.Role != "link" {
				return fail(fmt.Sprintf("the portal says %q, but the task is to %s the vendor", n.Name, verb))
			}
		}
		if a, ok := t.navTo("/vendors/new", "Register vendor"); ok {
			return a
		}
		if h, ok := p.FindPrefix("heading", ""); ok && !strings.HasPrefix(strings.ToLower(h.Name), verb) {
			return fail(fmt.Sprintf("the form says %q, but the task is to %s a vendor", h.Name, verb))
		}
		for _, f := range vendorFields {
			for _, label := range f.labels {
				n, ok := p.Find(f.role, label)
				if !ok || n.Value == t.value(f.param) {
					continue
				}
				if f.role == "combobox" {
					return choose(n, t.value(f.param))
				}
				return fill(n, t.value(f.param))
			}
		}
		if r, ok := p.Find("radio", t.value("category")); ok && !r.Has("checked") {
			return check(r)
		}
		if t.did("click", "Next") > 4 {
			return fail("the form keeps asking for its details")
		}
		if b, ok := p.Find("button", "Next"); ok {
			return click(b)
		}
		if b, ok := p.Find("button", submit); ok {
			return click(b)
		}
		return fail("the review page has no " + submit + " button")
	}
}

// catalogTop (B3): sign in, search the catalog, read the results and
// report the top n by name.
func catalogTop(t *turn) action {
	if a, ok := t.chrome(); ok {
		return a
	}
	if a, ok := t.navTo("/catalog", "Catalog"); ok {
		return a
	}
	p := t.page()
	q := t.value("query")
	box, ok := p.Find("searchbox", "Search catalog")
	if !ok {
		return fail("the catalog has no search box")
	}
	if box.Value != q {
		return fill(box, q)
	}
	status, ok := p.FindPrefix("status", "")
	if !ok || !strings.HasSuffix(status.Name, "for “"+q+"”") {
		b, _ := p.Find("button", "Search")
		return click(b)
	}
	if t.did("extract", "") == 0 {
		return extract()
	}
	var names []string
	n := 0
	fmt.Sscan(t.value("n"), &n)
	seen := false
	for _, node := range p.Nodes {
		seen = seen || node.ID == status.ID
		if seen && node.Role == "heading" && len(names) < n {
			names = append(names, node.Name)
		}
	}
	return done(fmt.Sprintf("top %d for %s: %s", len(names), q, strings.Join(names, "; ")))
}

// triage (B4): sign in, open the message, classify its text, file it.
func triage(t *turn) action {
	if a, ok := t.chrome(); ok {
		return a
	}
	p := t.page()
	subject := t.value("subject")
	if p.Text("Filed " + subject + " as") {
		return done("filed " + subject)
	}
	if _, ok := p.Find("heading", subject); !ok {
		if l, ok := p.Find("link", subject); ok {
			return click(l)
		}
		// A routine of the site's memory that opens the message from the
		// inbox does both clicks in one call.
		if name, ok := t.r.routine(`click link "Inbox", click link picked by {{subject}}`); ok && !t.triedRoutine(name) {
			return call(tools.RunRoutine, map[string]any{"name": name, "params": map[string]string{"subject": subject}})
		}
		if a, ok := t.navTo("/inbox", "Inbox"); ok {
			return a
		}
		return fail("the inbox has no message " + subject)
	}
	category, ok := classify(p)
	if !ok {
		return fail("the message fits no category")
	}
	box, ok := p.Find("combobox", "Category")
	if !ok {
		return fail("the message has no Category field")
	}
	if box.Value != category {
		return choose(box, category)
	}
	b, _ := p.Find("button", "File message")
	return click(b)
}
