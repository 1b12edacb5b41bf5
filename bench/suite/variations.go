package suite

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rote-agent/rote/portal"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/prompt"
)

// SuiteVariation is the portal suite's variations: what a learned
// playbook meets when the user's next input differs from the one it was
// learned on. The data changes under it (a newer report), the values come
// only as text, the task is said in other words or asks for something
// near but different (which must miss), the instruction of a drill page
// changes with every seed, learned from a run with detours, and a vendor
// is registered in a category added after learning.
const SuiteVariation = "variation"

// NewerReport is the site variant of V1: the portal as seeded, with one
// report published after the playbook was learned.
const NewerReport = "newer-report"

// NewCategory is the site variant of V6: the portal as seeded, with a
// vendor category added after the playbook was learned.
const NewCategory = "new-category"

// AddedCategory is the category NewCategory adds.
const AddedCategory = "Logistics partner"

// newestReport is the report NewerReport publishes.
const newestReport = "RPT-2026-12"

func downloaded(want string) func(portal.State, map[string]string, string) error {
	return func(st portal.State, _ map[string]string, _ string) error {
		if !slices.Equal(st.Downloads, []string{want}) {
			return fmt.Errorf("downloads %v, want [%s]", st.Downloads, want)
		}
		return nil
	}
}

const drillText = "Sign in as {{username}}, open drill {{seed}}, press “{{button}}”, set the date to {{date}} and the quantity to {{quantity}}, pick {{item}} and submit."

func drillParams(rep int) map[string]string {
	d := portal.DrillFor(300 + rep)
	p := credentials()
	p["seed"], p["button"], p["date"], p["quantity"], p["item"] = strconv.Itoa(d.Seed), d.Button, d.Date, d.Quantity, d.Item
	return p
}

var variationTasks = []*Task{
	{
		Suite: SuiteVariation, ID: "V1", Name: "download-latest-report", Text: tasks[0].Text,
		Params: func(int) map[string]string { return credentials() }, Secrets: []string{"password"},
		Verify: tasks[0].Verify, Check: downloaded(newestReport), policy: downloadLatest,
		NearMisses: []string{
			"Sign in as {{username}} and delete the latest operations report.",
			"Sign in as {{username}} and download the latest operations report, then email it to finance.",
		},
	},
	{
		Suite: SuiteVariation, ID: "V2", Name: "register-vendor", Text: tasks[1].Text, FreeText: true,
		Params: vendorParams, Secrets: []string{"password"}, Verify: tasks[1].Verify, Check: tasks[1].Check, policy: tasks[1].policy,
		NearMisses: []string{
			fmt.Sprintf(vendorText, "suspend"),
			strings.TrimSuffix(fmt.Sprintf(vendorText, "register"), ".") + " and delete the vendor Globex.",
		},
	},
	{
		Suite: SuiteVariation, ID: "V3", Name: "download-latest-report", Text: "Log in as {{username}} and fetch the newest operations report.",
		Params: func(int) map[string]string { return credentials() }, Secrets: []string{"password"},
		Verify: tasks[0].Verify, Check: downloaded("RPT-2026-11"), policy: downloadLatest,
	},
	{
		Suite: SuiteVariation, ID: "V4", Name: "download-oldest-report", Text: "Sign in as {{username}} and download the oldest operations report.",
		Params: func(int) map[string]string { return credentials() }, Secrets: []string{"password"},
		Verify: tasks[0].Verify, Check: downloaded("RPT-2026-06"), policy: downloadOldest,
	},
	{
		Suite: SuiteVariation, ID: "V5", Name: "drill", Text: drillText, Params: drillParams, Secrets: []string{"password"},
		NearMisses: []string{
			strings.TrimSuffix(drillText, " and submit.") + ", but do not submit.",
			"Sign in as {{username}}, open drill {{seed}} and reset it.",
		},
		Verify: []schema.Expect{{Op: schema.OpTextVisible, Arg: "Drill {{seed}} submitted"}},
		Check: func(st portal.State, p map[string]string, _ string) error {
			if len(st.Drills) != 1 || strconv.Itoa(st.Drills[0].Seed) != p["seed"] || !st.Drills[0].Right() {
				return fmt.Errorf("drills submitted %+v, want drill %s done right", st.Drills, p["seed"])
			}
			return nil
		},
		policy: drill,
	},
	{
		Suite: SuiteVariation, ID: "V6", Name: "register-vendor", Text: tasks[1].Text, Variant: NewCategory,
		Params: func(rep int) map[string]string {
			p := vendorParams(rep)
			p["category"] = AddedCategory
			return p
		},
		Secrets: []string{"password"}, Verify: tasks[1].Verify, Check: tasks[1].Check, policy: tasks[1].policy,
	},
}

// detourTarget is an id no page has: the drill's agent clicks it once,
// a failed action the distiller must prune.
const detourTarget = "zz0000"

// drill (V5): sign in, take a wrong page first, open the drill, press its
// button after one failed click, fill the form, submit.
func drill(t *turn) action {
	if a, ok := t.chrome(); ok {
		return a
	}
	want := "/drills/" + t.value("seed")
	p := t.page()
	switch {
	case !t.went("/records"):
		return call("navigate", map[string]any{"url": "/records"}) // a wrong page: an agent looks around
	case !strings.Contains(t.url(), want):
		return call("navigate", map[string]any{"url": want})
	}
	if status, ok := p.FindPrefix("status", "Drill "); ok && strings.HasSuffix(status.Name, "submitted") {
		return done(status.Name)
	}
	date, onForm := p.Find("textbox", "Date (YYYY-MM-DD)")
	if !onForm {
		if !t.tried(detourTarget) {
			return call("click", map[string]any{"target": detourTarget})
		}
		b, ok := p.Find("button", t.value("button"))
		if !ok {
			return fail("the drill offers no button " + t.value("button"))
		}
		return click(b)
	}
	qty, _ := p.Find("spinbutton", "Quantity")
	item, _ := p.Find("combobox", "Item")
	switch {
	case date.Value != t.value("date"):
		return fill(date, t.value("date"))
	case qty.Value != t.value("quantity"):
		return fill(qty, t.value("quantity"))
	case item.Value != t.value("item"):
		return choose(item, t.value("item"))
	}
	submit, _ := p.Find("button", "Submit")
	return click(submit)
}

// went reports whether the ledger holds a navigation to an address
// ending in path.
func (t *turn) went(path string) bool {
	return slices.ContainsFunc(t.r.ledger, func(e prompt.LedgerEntry) bool { return e.Action == "navigate" && strings.HasSuffix(e.URL, path) })
}

// tried reports whether the ledger holds an action on target, whatever
// came of it.
func (t *turn) tried(target string) bool {
	return slices.ContainsFunc(t.r.ledger, func(e prompt.LedgerEntry) bool { return e.Target == target })
}
