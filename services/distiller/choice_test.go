package distiller

import (
	"errors"
	"strings"
	"testing"

	"github.com/rote-agent/rote/schema"
)

// reports are three report rows, newest first, as the actuator records
// what a click on one of their Download links was made among.
func reports() *schema.RecordSet {
	return &schema.RecordSet{Pattern: "Download *", Rows: true, Within: "main › Reports", Header: []string{"Report", "Period", "Published", "File"},
		Records: []schema.Record{
			{Name: "Download Operations report November 2026", Key: "Operations report November 2026", Cells: []string{"Operations report November 2026", "November 2026", "2026-12-01", "Download"}},
			{Name: "Download Operations report October 2026", Key: "Operations report October 2026", Cells: []string{"Operations report October 2026", "October 2026", "2026-11-01", "Download"}},
			{Name: "Download Operations report September 2026", Key: "Operations report September 2026", Cells: []string{"Operations report September 2026", "September 2026", "2026-10-01", "Download"}},
		}}
}

func chose(k int) schema.BrowserAction {
	a := act(schema.ActClick, "link", reports().Records[k].Name, "")
	a.Among, a.Chosen = reports(), k
	return a
}

func withTask(r *schema.RunFold, text string, params map[string]string) *schema.RunFold {
	r.Spec.Task.Text, r.Spec.Task.Params = text, params
	r.Verify.Checks = []schema.Check{{Expect: schema.Expect{Op: schema.OpURLContains, Arg: "/reports"}, Passed: true}}
	return r
}

// TestDistillChoiceAmongRecords: a click on one of several records
// becomes a pick, never the record clicked once: bound to the parameter
// that names it, or by the rule the task states and the data obeyed,
// or else by a judgment among the records at replay; a choice the task
// names with no parameter, or among records a judgment could not tell
// apart, is refused.
func TestDistillChoiceAmongRecords(t *testing.T) {
	latest := withTask(runOf(chose(0)), "Download the latest operations report.", nil)
	c, err := Distill(latest, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tg := c.Playbook.Steps[0].Target
	if tg.ID != "" || tg.Name != "" || tg.Pick == nil || tg.Pick.String() != "newest by Period, newest by Published" || tg.Pick.Name != "Download *" {
		t.Fatalf("target %+v pick %v", tg, tg.Pick)
	}
	doc, _ := schema.EncodePlaybook(c.Playbook)
	if !strings.Contains(string(doc), "order: newest") || strings.Contains(string(doc), "November") {
		t.Errorf("the playbook should hold the rule and not the record it chose once:\n%s", doc)
	}

	first := withTask(runOf(chose(0)), "Download the first report in the list.", nil)
	if c, err := Distill(first, Options{}); err != nil || c.Playbook.Steps[0].Target.Pick.String() != "first" {
		t.Errorf("first: %v %v", err, c)
	}

	named := withTask(runOf(chose(1)), "Download the operations report for October 2026.", map[string]string{"period": "October 2026"})
	c, err = Distill(named, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Playbook.Steps[0].Target.Pick; p == nil || p.String() != `is "Operations report {{period}}"` {
		t.Errorf("a record named by a parameter: %+v", p)
	}

	// The newest, but nothing in the task asks for the newest: chance. A
	// choice no rule explains is a judgment among the records read at
	// replay, never the record chosen once.
	for name, run := range map[string]*schema.RunFold{
		"an unstated rule": withTask(runOf(chose(0)), "Download the operations report.", nil),
		"no rule at all":   withTask(runOf(chose(1)), "Download the latest operations report.", nil),
	} {
		c, err := Distill(run, Options{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		steps := c.Playbook.Steps
		if len(steps) != 2 || !steps[0].ChoosesRecords() || len(steps[0].Options) != 0 || steps[0].Target.Pick.Name != "Download *" ||
			steps[1].Target.Pick.String() != `is "{{steps.`+steps[0].ID+`}}"` {
			doc, _ := schema.EncodePlaybook(c.Playbook)
			t.Errorf("%s: want a judgment among the records, then a pick of its answer:\n%s", name, doc)
		}
	}
	twins := reports()
	twins.Records[2].Key = twins.Records[1].Key
	same := chose(0)
	same.Among = twins
	for name, tc := range map[string]struct {
		run  *schema.RunFold
		want string
	}{
		"named, no param": {withTask(runOf(chose(1)), "Download Operations report October 2026.", nil), "the task names it but no parameter does"},
		// Two records a judgment's answer could not tell apart.
		"keys repeat": {withTask(runOf(same), "Download the operations report.", nil), "no rule the task states picks"},
	} {
		if _, err := Distill(tc.run, Options{}); !errors.Is(err, schema.ErrUnbound) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}

// TestDistillChoiceSkipsAFieldEveryRecordHolds: the author column holds
// the username parameter in every row; the record is named by its title,
// the field that tells it from its siblings.
func TestDistillChoiceSkipsAFieldEveryRecordHolds(t *testing.T) {
	posts := &schema.RecordSet{Pattern: "Trash", Rows: true, Within: "main › Posts", Header: []string{"Title", "Author"}, Records: []schema.Record{
		{Name: "Trash", Key: "Harbor log", Cells: []string{"Harbor log", "admin"}},
		{Name: "Trash", Key: "Glacier memo 99 — Draft", Cells: []string{"Glacier memo 99 — Draft", "admin"}},
	}}
	a := act(schema.ActClick, "link", "Trash", "")
	a.Among, a.Chosen = posts, 1
	r := withTask(runOf(a), "Sign in as admin and trash the post Glacier memo 99", map[string]string{"username": "admin", "title": "Glacier memo 99"})
	r.Actions = append([]*schema.BrowserAction{{Seq: 0, Action: schema.Action{Kind: schema.ActFill, Target: &schema.Target{Role: "textbox", Name: "Username"}, Value: "admin"}}}, r.Actions...)
	c, err := Distill(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Playbook.Steps[1].Target.Pick; p == nil || p.String() != `is "{{title}} — Draft"` {
		t.Fatalf("pick %+v", p)
	}
}

// TestPickedControlKeepsNoAddress: the form a picked record's button
// sends names the record it was (/memos/b/delete, no digit in it); the
// pick's contract keeps the control's kind and method and leaves the
// address out, or every replay that picks another record would stop
// contract_changed.
func TestPickedControlKeepsNoAddress(t *testing.T) {
	a := chose(0)
	a.Action.Target.Contract = &schema.Contract{Tag: "button", InputType: "submit", FormAction: "/reports/nov/archive", FormMethod: "post"}
	c, err := Distill(withTask(runOf(a), "Download the latest operations report.", nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := c.Playbook.Steps[0].Target.Contract
	if got == nil || got.FormAction != "" || got.Tag != "button" || got.FormMethod != "post" {
		t.Errorf("the pick's contract %+v: want its kind and method, no address", got)
	}
}

// TestOrderWordsMustStateAnOrder: an order word counts only as an order
// of the records: not after a word that describes a record's content
// ("the memo about the latest outage"), and not in a task that negates or
// excepts ("every memo except the newest"); such a choice becomes a
// judgment at replay instead of a rule the task never asked for.
func TestOrderWordsMustStateAnOrder(t *testing.T) {
	for text, want := range map[string]string{
		"Download the latest operations report.":                    "newest by Period, newest by Published",
		"Download the most recent operations report.":               "newest by Period, newest by Published",
		"Download the report about the latest outage.":              "",
		"Download every report except the newest.":                  "",
		"Do not download the latest report, download the one asked": "",
		"Download the report titled Latest figures.":                "",
	} {
		c, err := Distill(withTask(runOf(chose(0)), text, nil), Options{})
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		steps := c.Playbook.Steps
		got := steps[len(steps)-1].Target.Pick.String()
		if want == "" && !steps[0].ChoosesRecords() {
			t.Errorf("%q: picked %q, want a judgment among the records", text, got)
		}
		if want != "" && got != want {
			t.Errorf("%q: picked %q, want %q", text, got, want)
		}
	}
}

// TestDistillChoiceByPlace: "the second report" binds the place among
// the records the run chose from (nth 2), which a replay takes among
// the records then, and refuses when there are fewer; a place the task
// names that the run did not choose, two places, or a negated one are
// no rule.
func TestDistillChoiceByPlace(t *testing.T) {
	for _, task := range []string{"Download the second report in the list.", "Download the 2nd report."} {
		c, err := Distill(withTask(runOf(chose(1)), task, nil), Options{})
		if err != nil || c.Playbook.Steps[0].Target.Pick.String() != "nth 2" {
			t.Fatalf("%s: %v %+v", task, err, c)
		}
		set := reports()
		if got, err := c.Playbook.Steps[0].Target.Pick.Rules[0].Apply(*set); err != nil || got != 1 {
			t.Errorf("nth 2 on three records: %d, %v", got, err)
		}
		set.Records = set.Records[:1]
		if _, err := c.Playbook.Steps[0].Target.Pick.Rules[0].Apply(*set); !errors.Is(err, schema.ErrNotFound) {
			t.Errorf("nth 2 on one record: %v, want not found", err)
		}
	}
	for _, task := range []string{"Download the third report.", "Download the second or the third report.", "Download any report but the second."} {
		if c, err := Distill(withTask(runOf(chose(1)), task, nil), Options{}); err == nil && c.Playbook.Steps[0].Target.Pick.String() == "nth 2" {
			t.Errorf("%s: bound the second", task)
		}
	}
}

// TestDistillChoiceByAPlaceParameter: a place the task gives as a
// parameter ("second") becomes nth {{place|ordinal}}, read anew at
// replay; a place the click did not take is no place rule; a place two
// choices could both take is refused.
func TestDistillChoiceByAPlaceParameter(t *testing.T) {
	c, err := Distill(withTask(runOf(chose(1)), "Download the second report", map[string]string{"place": "second"}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	pick := c.Playbook.Steps[0].Target.Pick
	if pick == nil || pick.String() != "nth {{place|ordinal}}" {
		t.Fatalf("pick %v", pick)
	}
	v, err := schema.ConvOrdinal.Apply("3rd")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := (schema.PickRule{Order: schema.OrderNth, Value: v}).Apply(*reports()); err != nil || got != 2 {
		t.Errorf("the 3rd at replay: %d %v", got, err)
	}
	if c, err := Distill(withTask(runOf(chose(2)), "Download the second report", map[string]string{"place": "second"}), Options{}); err == nil && strings.HasPrefix(c.Playbook.Steps[0].Target.Pick.String(), "nth") {
		t.Errorf("a place the click did not take became %s", c.Playbook.Steps[0].Target.Pick)
	}
	if _, err := Distill(withTask(runOf(chose(1), chose(1)), "Download the second report", map[string]string{"place": "second"}), Options{}); !errors.Is(err, schema.ErrAmbiguous) {
		t.Errorf("a place two choices take: %v, want ambiguous", err)
	}
}
