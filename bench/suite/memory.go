package suite

import (
	"fmt"
	"strings"

	"github.com/rote-agent/rote/portal"
	"github.com/rote-agent/rote/schema"
)

// SuiteMemory is the site memory suite: kinds of task the project's other
// suites never ask, on sites it has learned other tasks of, to measure
// what site memory (tier 2) saves a new kind of task.
const SuiteMemory = "memory"

// siteTitles are the titles M1 sets, by repetition.
var siteTitles = []string{"Northwind Operations", "Globex Back Office", "Initech Admin", "Umbrella Console", "Hooli Desk"}

// defaultSettings are the portal's settings before any task.
var defaultSettings = portal.Settings{SiteTitle: "Acme Operations", Timezone: "UTC", EmailNotifications: true}

// checkSettings is an M task's verifier: the settings as want, and
// nothing else in the portal changed.
func checkSettings(want func(map[string]string) portal.Settings) func(portal.State, map[string]string, string) error {
	return func(st portal.State, p map[string]string, _ string) error {
		if w := want(p); st.Settings != w {
			return fmt.Errorf("settings %+v, want %+v", st.Settings, w)
		}
		if untouched(st) != nil {
			return fmt.Errorf("the settings task changed more of the portal: %v", untouched(st))
		}
		return nil
	}
}

var memoryTasks = []*Task{
	{
		Suite: SuiteMemory, ID: "M1", Name: "site-title", Text: "Sign in as {{username}} and change the site title to {{title}}.",
		Params: func(rep int) map[string]string {
			p := credentials()
			p["title"] = siteTitles[rep%len(siteTitles)]
			return p
		},
		Secrets: []string{"password"},
		Verify:  []schema.Expect{{Op: schema.OpTextVisible, Arg: "Settings saved"}, {Op: schema.OpURLContains, Arg: "/settings"}},
		Check: checkSettings(func(p map[string]string) portal.Settings {
			s := defaultSettings
			s.SiteTitle = p["title"]
			return s
		}),
		policy: siteTitle,
	},
	{
		Suite: SuiteMemory, ID: "M2", Name: "weekly-digest", Text: "Sign in as {{username}} and turn the weekly digest on.",
		Params: func(int) map[string]string { return credentials() }, Secrets: []string{"password"},
		Verify: []schema.Expect{{Op: schema.OpTextVisible, Arg: "Settings saved"}, {Op: schema.OpURLContains, Arg: "/settings"}},
		Check: checkSettings(func(map[string]string) portal.Settings {
			s := defaultSettings
			s.WeeklyDigest = true
			return s
		}),
		policy: weeklyDigest,
	},
	{
		Suite: SuiteMemory, ID: "M3", Name: "triage-two-messages",
		Text: "Sign in as {{username}} and file the inbox messages “{{first}}” and “{{second}}” under the categories their texts call for.",
		Params: func(rep int) map[string]string {
			p := credentials()
			msgs := portal.Messages()
			p["first"], p["second"] = msgs[rep%len(msgs)].Subject, msgs[(rep+1)%len(msgs)].Subject
			return p
		},
		Secrets: []string{"password"},
		Verify:  []schema.Expect{{Op: schema.OpTextVisible, Arg: "Filed {{second}} as"}, {Op: schema.OpURLContains, Arg: "/inbox"}},
		Check: func(st portal.State, p map[string]string, _ string) error {
			want := map[string]string{}
			for _, m := range portal.Messages() {
				if m.Subject == p["first"] || m.Subject == p["second"] {
					want[m.ID] = m.Category
				}
			}
			if len(want) != 2 || fmt.Sprint(st.Triage) != fmt.Sprint(want) {
				return fmt.Errorf("triage %v, want %v", st.Triage, want)
			}
			return nil
		},
		policy: triageTwo,
	},
	{
		Suite: SuiteMemory, ID: "M4", Name: "add-to-cart", Text: "Sign in as {{username}}, find {{product}} in the catalog and add it to the cart.",
		Params: func(rep int) map[string]string {
			p := credentials()
			items := portal.Products()
			p["product"] = items[(rep*7+3)%len(items)].Name
			return p
		},
		Secrets: []string{"password"},
		Verify:  []schema.Expect{{Op: schema.OpTextVisible, Arg: "Added {{product}} to cart"}},
		Check:   checkOnly(portal.Products(), "product", func(st *portal.State) *[]string { return &st.Cart }),
		policy:  addToCart,
	},
	{
		Suite: SuiteMemory, ID: "M5", Name: "archive-record", Text: "Sign in as {{username}} and archive the record {{record}}.",
		Params: func(rep int) map[string]string {
			p := credentials()
			p["record"] = portal.Records()[rep%10].Name
			return p
		},
		Secrets: []string{"password"},
		Verify:  []schema.Expect{{Op: schema.OpTextVisible, Arg: "Archived {{record}}"}},
		Check:   checkOnly(portal.Records(), "record", func(st *portal.State) *[]string { return &st.Archived }),
		policy:  archiveRecord,
	},
	{
		Suite: SuiteMemory, ID: "M6", Name: "timezone", Text: "Log in as {{username}} and set the timezone to {{timezone}}.",
		Params: func(rep int) map[string]string {
			p := credentials()
			p["timezone"] = []string{"Europe/Berlin", "America/New_York", "Asia/Tokyo"}[rep%3]
			return p
		},
		Secrets: []string{"password"},
		Verify:  []schema.Expect{{Op: schema.OpTextVisible, Arg: "Settings saved"}, {Op: schema.OpURLContains, Arg: "/settings"}},
		Check: checkSettings(func(p map[string]string) portal.Settings {
			s := defaultSettings
			s.Timezone = p["timezone"]
			return s
		}),
		policy: setTimezone,
	},
}

// checkOnly is the verifier of a task that puts one item of items, the
// one named by parameter param, on the portal's list (the cart, the
// archived records) and changes nothing else.
func checkOnly(items []portal.Item, param string, list func(*portal.State) *[]string) func(portal.State, map[string]string, string) error {
	return func(st portal.State, p map[string]string, _ string) error {
		want := ""
		for _, it := range items {
			if it.Name == p[param] {
				want = it.ID
			}
		}
		got := list(&st)
		if fmt.Sprint(*got) != fmt.Sprint([]string{want}) {
			return fmt.Errorf("%s: %v, want [%s]", param, *got, want)
		}
		*got = nil
		return untouched(st)
	}
}

// untouched is nil when the portal holds no vendor, triage, download,
// cart item or archived record: what a task that changes none of them
// must leave.
func untouched(st portal.State) error {
	if n := len(st.Vendors) + len(st.Triage) + len(st.Downloads) + len(st.Cart) + len(st.Archived); n != 0 {
		return fmt.Errorf("the task changed more of the portal: vendors %v, triage %v, downloads %v, cart %v, archived %v",
			st.Vendors, st.Triage, st.Downloads, st.Cart, st.Archived)
	}
	return nil
}

// settingsPage opens Settings after signing in.
func settingsPage(t *turn) (action, bool) {
	if a, ok := t.chrome(); ok {
		return a, true
	}
	return t.navTo("/settings", "Change site settings")
}

// siteTitle (M1): sign in, open Settings, set the site title, save.
func siteTitle(t *turn) action {
	if a, ok := settingsPage(t); ok {
		return a
	}
	p := t.page()
	box, ok := p.Find("textbox", "Site title")
	if !ok {
		return fail("the settings page has no Site title field")
	}
	switch title := t.value("title"); {
	case box.Value != title:
		return fill(box, title)
	case p.Text("Settings saved"):
		return done("the site title is " + title)
	}
	return saveSettings(t)
}

// weeklyDigest (M2): sign in, open Settings, tick Weekly digest, save.
func weeklyDigest(t *turn) action {
	if a, ok := settingsPage(t); ok {
		return a
	}
	p := t.page()
	box, ok := p.Find("checkbox", "Weekly digest")
	switch {
	case !ok:
		return fail("the settings page has no Weekly digest box")
	case !box.Has("checked"):
		return check(box)
	case p.Text("Settings saved"):
		return done("the weekly digest is on")
	}
	return saveSettings(t)
}

func saveSettings(t *turn) action {
	if t.did("click", "Save settings") > 1 {
		return fail("the settings page keeps refusing to save")
	}
	b, ok := t.page().Find("button", "Save settings")
	if !ok {
		return fail("the settings page has no Save settings button")
	}
	return click(b)
}

// triageTwo (M3): file two messages, one after the other, each as
// triage files one.
func triageTwo(t *turn) action {
	filed := t.did("click", "File message")
	if filed >= 2 {
		if t.page().Text("Filed " + t.value("second") + " as") {
			return done("filed " + t.value("first") + " and " + t.value("second"))
		}
		return fail("the second message was not filed")
	}
	subject := t.value("first")
	if filed == 1 {
		subject = t.value("second")
	}
	return triage(&turn{r: t.r, params: map[string]string{"subject": subject, "username": t.value("username"), "password": t.value("password")}})
}

// addToCart (M4): sign in, search the catalog for the product, open it,
// add it to the cart.
func addToCart(t *turn) action {
	if a, ok := t.chrome(); ok {
		return a
	}
	p, name := t.page(), t.value("product")
	switch {
	case p.Text("Added " + name + " to cart"):
		return done("added " + name + " to the cart")
	case t.did("click", "Add to cart") > 0:
		return fail("the cart did not take " + name)
	}
	if h, ok := p.Find("heading", name); ok && strings.Contains(t.url(), "/catalog/") {
		if b, ok := p.Find("button", "Add to cart"); ok {
			return click(b)
		}
		return fail("the page of " + h.Name + " has no Add to cart button")
	}
	if a, ok := t.navTo("/catalog", "Catalog"); ok {
		return a
	}
	if l, ok := p.Find("link", name); ok {
		return click(l)
	}
	box, ok := p.Find("searchbox", "Search catalog")
	switch {
	case !ok:
		return fail("the catalog has no search box")
	case box.Value != name:
		return fill(box, name)
	case t.did("click", "Search") > 0:
		return fail("the catalog has no " + name)
	}
	b, _ := p.Find("button", "Search")
	return click(b)
}

// archiveRecord (M5): sign in, open Records, open the record, archive it.
func archiveRecord(t *turn) action {
	if a, ok := t.chrome(); ok {
		return a
	}
	p, name := t.page(), t.value("record")
	switch {
	case p.Text("Archived " + name):
		return done("archived " + name)
	case t.did("click", "Archive") > 0:
		return fail("the record " + name + " was not archived")
	}
	if _, ok := p.Find("heading", name); ok {
		if b, ok := p.Find("button", "Archive"); ok {
			return click(b)
		}
		return fail("the record " + name + " has no Archive button")
	}
	if a, ok := t.navTo("/records", "Records"); ok {
		return a
	}
	if l, ok := p.Find("link", name); ok {
		return click(l)
	}
	return fail("the records list has no " + name)
}

// setTimezone (M6): sign in, open Settings, choose the timezone, save.
func setTimezone(t *turn) action {
	if a, ok := settingsPage(t); ok {
		return a
	}
	p := t.page()
	box, ok := p.Find("combobox", "Timezone")
	switch tz := t.value("timezone"); {
	case !ok:
		return fail("the settings page has no Timezone field")
	case box.Value != tz:
		return choose(box, tz)
	case p.Text("Settings saved"):
		return done("the timezone is " + tz)
	}
	return saveSettings(t)
}
