package suite

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rote-agent/rote/bench/wordpress"
	"github.com/rote-agent/rote/portal"
	"github.com/rote-agent/rote/schema"
)

// The suites: the fixture portal's, and the same task classes on a real
// WordPress.
const (
	SuitePortal    = "portal"
	SuiteWordPress = "wordpress"
)

// Task is one frozen suite task.
type Task struct {
	ID      string // B1 ... B6, W1 ... W4
	Suite   string // SuitePortal or SuiteWordPress
	Name    string // the playbook name its runs learn
	Text    string // the task as a user says it; {{param}} marks parameters
	Variant string // the portal variant it runs on ("" the baseline)
	// FreeText says the task's values come only as its text: a run is
	// given none of them apart from secrets.
	FreeText bool
	Start    string // the path the run starts on ("" the site's root)
	// Params are the parameter values of repetition rep (0 is the first);
	// the same rep always gives the same values.
	Params func(rep int) map[string]string
	// Secrets name the parameters that are secret: the model never sees
	// their values.
	Secrets []string
	// Verify is the run's final gate over the page; {{param}}s in an
	// argument are bound by VerifyExpects.
	Verify []schema.Expect
	// Check is a portal task's independent verifier: the portal's
	// server-side state after the run, and the run's answer (the agent's
	// done reason).
	Check func(st portal.State, params map[string]string, answer string) error
	// CheckSQL is a WordPress task's: SQL against WordPress's database.
	CheckSQL func(ctx context.Context, s *wordpress.Site, params map[string]string, answer string) error
	// NearMisses are tasks said almost as this one is but asking for
	// something else (another verb, an extra clause, a negation): the
	// matcher must send none of them to this task's playbook.
	NearMisses []string
	policy     func(*turn) action
}

// RenderNearMisses returns the near misses with params filled in.
func (t *Task) RenderNearMisses(params map[string]string) []string {
	out := make([]string, len(t.NearMisses))
	for i, m := range t.NearMisses {
		out[i] = t.renderText(m, params)
	}
	return out
}

// Render returns the task text with params filled in.
func (t *Task) Render(params map[string]string) string { return t.renderText(t.Text, params) }

// VerifyExpects returns the verify gate with params bound.
func (t *Task) VerifyExpects(params map[string]string) []schema.Expect {
	out := make([]schema.Expect, len(t.Verify))
	for i, e := range t.Verify {
		e.Arg = t.renderText(e.Arg, params)
		out[i] = e
	}
	return out
}

func (t *Task) renderText(s string, params map[string]string) string {
	for k, v := range params {
		s = strings.ReplaceAll(s, "{{"+k+"}}", v)
	}
	return s
}

// pattern matches the task's text with any parameter values.
func (t *Task) pattern() *regexp.Regexp {
	parts := regexp.MustCompile(`\{\{[a-z_]+\}\}`).Split(t.Text, -1)
	names := regexp.MustCompile(`\{\{([a-z_]+)\}\}`).FindAllStringSubmatch(t.Text, -1)
	var b strings.Builder
	b.WriteString("^")
	for i, p := range parts {
		b.WriteString(regexp.QuoteMeta(p))
		if i < len(names) {
			b.WriteString("(?P<" + names[i][1] + ">.+?)")
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// Tasks returns the frozen portal suite in id order.
func Tasks() []*Task { return tasks }

// Suite returns the tasks of the suite called name, in id order.
func Suite(name string) ([]*Task, error) {
	switch name {
	case SuitePortal:
		return tasks, nil
	case SuiteWordPress:
		return wpTasks, nil
	case SuiteVariation:
		return variationTasks, nil
	case SuiteMemory:
		return memoryTasks, nil
	}
	return nil, schema.Errorf(schema.CodeNotFound, "suite %q: want %s, %s, %s or %s", name, SuitePortal, SuiteWordPress, SuiteVariation, SuiteMemory)
}

// allTasks are every suite's tasks.
func allTasks() []*Task {
	return append(append(append(slices.Clip(tasks), wpTasks...), variationTasks...), memoryTasks...)
}

// Lookup returns the task with id (case-insensitive), or an *schema.Error.
func Lookup(id string) (*Task, error) {
	all := allTasks()
	for _, t := range all {
		if strings.EqualFold(t.ID, id) {
			return t, nil
		}
	}
	ids := make([]string, len(all))
	for i, t := range all {
		ids[i] = t.ID
	}
	return nil, schema.Errorf(schema.CodeNotFound, "suite task %q: want one of %s", id, strings.Join(ids, ", "))
}

func credentials() map[string]string {
	return map[string]string{"username": portal.Username, "password": portal.Password}
}

var companies = []struct{ company, tax, city, country, category string }{
	{"Initech", "DE123456789", "Berlin", "Germany", "Supplier"},
	{"Globex", "FR20441987", "Paris", "France", "Contractor"},
	{"Umbrella Holdings", "NL5501234567", "Rotterdam", "Netherlands", "Reseller"},
	{"Vandelay Industries", "US77120934", "New York", "United States", "Supplier"},
	{"Hooli", "GB30918273", "London", "United Kingdom", "Contractor"},
}

func vendorParams(rep int) map[string]string {
	c := companies[rep%len(companies)]
	slug := strings.ToLower(strings.Fields(c.company)[0])
	p := credentials()
	p["company"], p["tax_id"], p["city"], p["country"], p["category"] = c.company, c.tax, c.city, c.country, c.category
	p["email"] = "ap@" + slug + ".example"
	p["phone"] = "+49 30 55" + strconv.Itoa(10000+rep)
	p["street"] = strconv.Itoa(rep+1) + " Main St"
	return p
}

var queries = []string{"desk", "chair", "lamp", "stand", "book", "office"}

const vendorText = "Sign in as {{username}} and %s the vendor {{company}} (tax ID {{tax_id}}, email {{email}}, phone {{phone}}, {{street}}, {{city}}, {{country}}) as a {{category}}."

func checkVendor(list func(portal.State) []portal.Vendor, what string) func(portal.State, map[string]string, string) error {
	return func(st portal.State, p map[string]string, _ string) error {
		got := list(st)
		want := portal.Vendor{CompanyName: p["company"], TaxID: p["tax_id"], Email: p["email"], Phone: p["phone"], Street: p["street"], City: p["city"], Country: p["country"], Category: p["category"]}
		if len(got) != 1 {
			return fmt.Errorf("%d vendors %s, want exactly 1 (%+v)", len(got), what, got)
		}
		v := got[0]
		v.ID, v.Status = "", ""
		if v != want {
			return fmt.Errorf("vendor %s as %+v, want %+v", what, v, want)
		}
		if n := len(st.Vendors) + len(st.Imports) + len(st.Offboarded); n != 1 {
			return fmt.Errorf("%d vendor records in all, want 1", n)
		}
		return nil
	}
}

var tasks = []*Task{
	{
		Suite: SuitePortal, ID: "B1", Name: "download-latest-report", Text: "Sign in as {{username}} and download the latest operations report.",
		Params: func(int) map[string]string { return credentials() }, Secrets: []string{"password"},
		Verify: []schema.Expect{{Op: schema.OpURLContains, Arg: "/reports"}},
		Check: func(st portal.State, _ map[string]string, _ string) error {
			if !slices.Equal(st.Downloads, []string{"RPT-2026-11"}) {
				return fmt.Errorf("downloads %v, want [RPT-2026-11]", st.Downloads)
			}
			return nil
		},
		policy: downloadLatest,
	},
	{
		Suite: SuitePortal, ID: "B2", Name: "register-vendor", Text: fmt.Sprintf(vendorText, "register"),
		Params: vendorParams, Secrets: []string{"password"},
		Verify: []schema.Expect{{Op: schema.OpTextVisible, Arg: "Vendor {{company}} registered"}, {Op: schema.OpURLContains, Arg: "/vendors/V-"}},
		Check:  checkVendor(func(st portal.State) []portal.Vendor { return st.Vendors }, "registered"),
		policy: vendorForm("register", "Register vendor"),
	},
	{
		Suite: SuitePortal, ID: "B3", Name: "catalog-top-results", Text: "Sign in as {{username}}, search the catalog for {{query}} and report the top {{n}} results.",
		Params: func(rep int) map[string]string {
			p := credentials()
			p["query"], p["n"] = queries[rep%len(queries)], strconv.Itoa(1+(rep+1)%3)
			return p
		},
		Secrets: []string{"password"},
		Verify:  []schema.Expect{{Op: schema.OpTextVisible, Arg: "results for “{{query}}”"}, {Op: schema.OpURLContains, Arg: "/catalog?q="}},
		// Strict: the answer names exactly the top n results, in the
		// page's own order, and no other result.
		Check: func(st portal.State, p map[string]string, answer string) error {
			n, _ := strconv.Atoi(p["n"])
			top := portal.TopResults(p["query"], n)
			at := 0
			for _, name := range top {
				i := strings.Index(answer[at:], name)
				if i < 0 {
					return fmt.Errorf("answer %q lacks top result %q, or names it out of order", answer, name)
				}
				at += i + len(name)
			}
			for _, name := range portal.TopResults(p["query"], 1<<10)[len(top):] {
				if strings.Contains(answer, name) {
					return fmt.Errorf("answer %q names %q, which is not in the top %d", answer, name, n)
				}
			}
			if len(st.Vendors)+len(st.Downloads)+len(st.Triage) != 0 {
				return fmt.Errorf("reading the catalog changed the portal: %+v", st)
			}
			return nil
		},
		policy: catalogTop,
	},
	{
		Suite: SuitePortal, ID: "B4", Name: "triage-message", Text: "Sign in as {{username}} and file the inbox message “{{subject}}” under the category its text calls for.",
		Params: func(rep int) map[string]string {
			p := credentials()
			msgs := portal.Messages()
			p["subject"] = msgs[rep%len(msgs)].Subject
			return p
		},
		Secrets: []string{"password"},
		Verify:  []schema.Expect{{Op: schema.OpTextVisible, Arg: "Filed {{subject}} as"}, {Op: schema.OpURLContains, Arg: "/inbox"}},
		Check: func(st portal.State, p map[string]string, _ string) error {
			for _, m := range portal.Messages() {
				if m.Subject == p["subject"] {
					if st.Triage[m.ID] != m.Category || len(st.Triage) != 1 {
						return fmt.Errorf("triage %v, want only %s as %s", st.Triage, m.ID, m.Category)
					}
					return nil
				}
			}
			return fmt.Errorf("no message has subject %q", p["subject"])
		},
		policy: triage,
	},
	{
		Suite: SuitePortal, ID: "B5", Name: "register-vendor", Text: fmt.Sprintf(vendorText, "register"), Variant: "label-rename",
		Params: vendorParams, Secrets: []string{"password"},
		Verify: []schema.Expect{{Op: schema.OpTextVisible, Arg: "Vendor {{company}} registered"}, {Op: schema.OpURLContains, Arg: "/vendors/V-"}},
		Check:  checkVendor(func(st portal.State) []portal.Vendor { return st.Vendors }, "registered"),
		policy: vendorForm("register", "Register vendor"),
	},
	{
		Suite: SuitePortal, ID: "B6", Name: "offboard-vendor", Text: fmt.Sprintf(vendorText, "offboard"), Variant: "offboarding",
		Params: vendorParams, Secrets: []string{"password"},
		Verify: []schema.Expect{{Op: schema.OpTextVisible, Arg: "Vendor {{company}} offboarded"}, {Op: schema.OpURLContains, Arg: "/vendors/OFF-"}},
		Check:  checkVendor(func(st portal.State) []portal.Vendor { return st.Offboarded }, "offboarded"),
		policy: vendorForm("offboard", "Offboard vendor"),
	},
}
