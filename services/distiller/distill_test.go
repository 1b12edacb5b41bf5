package distiller

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/schema"
)

const origin = "http://127.0.0.1:8080"

var fp = strings.Repeat("ab", 32)

// runOf builds a verified browser run of actions: the task names a
// vendor, and the run signed in and filled a form.
func runOf(actions ...schema.BrowserAction) *schema.RunFold {
	r := &schema.RunFold{
		Spec: schema.RunSpec{RunID: "run-1", Mode: schema.ModeAgent, Fingerprint: fp, Task: schema.TaskSpec{
			Name: "register-vendor", Target: origin, Text: "Register the vendor Initech in Berlin",
			Params: map[string]string{"company": "Initech", "city": "Berlin", "password": "secret:0123456789abcdef0123456789abcdef"}}},
		Finished: &schema.RunFinished{Manifest: schema.Manifest{Outcome: schema.OutcomeSuccess}},
		Verify:   &schema.VerifyChecked{Passed: true, Checks: []schema.Check{{Expect: schema.Expect{Op: schema.OpTextVisible, Arg: "Vendor Initech registered"}, Passed: true}}},
	}
	for i := range actions {
		a := actions[i]
		a.Seq = uint64(2*i + 1)
		r.Actions = append(r.Actions, &a)
		r.Observations = append(r.Observations, &schema.BrowserObserved{Seq: uint64(2*i + 2), URL: origin + "/vendors/new", Kind: schema.ObservationDiff})
	}
	return r
}

func act(kind schema.ActionKind, role, name, value string) schema.BrowserAction {
	a := schema.BrowserAction{Meta: schema.Meta{Time: time.Now()}, Action: schema.Action{Kind: kind, Value: value}}
	if role != "" {
		a.Action.Target = &schema.Target{ID: "x" + strings.ToLower(strings.ReplaceAll(name, " ", "")), Role: role, Name: name}
	}
	return a
}

func nav(u string) schema.BrowserAction {
	return schema.BrowserAction{Action: schema.Action{Kind: schema.ActNavigate, URL: u}}
}

// TestDistillTemplatesAndPrunes: parameter values become {{name}}, a
// secret stays {{password}}, the run's origin is dropped from URLs, and
// every step left out carries its reason.
func TestDistillTemplatesAndPrunes(t *testing.T) {
	failed := act(schema.ActClick, "button", "Save", "")
	failed.Error = &schema.Error{Code: schema.CodeNotFound, Message: "no such button"}
	r := runOf(
		nav(origin+"/records"),
		nav(origin+"/vendors/new"),
		act(schema.ActFill, "textbox", "Company name", "Init"),
		act(schema.ActFill, "textbox", "Password", "{{password}}"),
		failed,
		act(schema.ActFill, "textbox", "Company name", "Initech"),
		act(schema.ActFill, "textbox", "City", "Berlin"),
		act(schema.ActFill, "textbox", "Notes", "via the portal"),
		act(schema.ActClick, "button", "Register vendor", ""),
	)
	c, err := Distill(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := schema.EncodePlaybook(c.Playbook)
	for _, want := range []string{"url: /vendors/new", `value: "{{company}}"`, `value: "{{password}}"`, `value: "{{city}}"`, "value: via the portal",
		"intent: Register the vendor {{company}} in {{city}}", "text_visible: Vendor {{company}} registered", "type: secret"} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("want %q in\n%s", want, doc)
		}
	}
	reasons := map[string]string{}
	for _, p := range c.Pruned {
		reasons[p.Step] = p.Reason
	}
	for step, reason := range map[string]string{
		"#1 navigate " + origin + "/records": "abandoned exploration",
		`#5 fill textbox "Company name"`:     "superseded write",
		`#9 click button "Save"`:             "pre-dispatch failure: not_found",
	} {
		if !strings.HasPrefix(reasons[step], reason) {
			t.Errorf("%s: pruned as %q, want %q (all: %v)", step, reasons[step], reason, reasons)
		}
	}
	if len(c.Playbook.Steps) != 6 || len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "constant") {
		t.Fatalf("%d steps, notes %v", len(c.Playbook.Steps), c.Notes)
	}
}

// TestDistillRefuses: a run that is not a verified success, a typed value
// that comes from the task but is no parameter, and a choice the
// distiller could only freeze are refused, typed.
func TestDistillRefuses(t *testing.T) {
	unverified := runOf(act(schema.ActClick, "button", "Go", ""))
	unverified.Verify = nil
	failedVerify := runOf(act(schema.ActClick, "button", "Go", ""))
	failedVerify.Verify.Passed = false
	recorded := runOf(act(schema.ActClick, "button", "Go", ""))
	recorded.Finished.Outcome = schema.OutcomeFailed
	selectNoOptions := act(schema.ActSelect, "combobox", "Tier", "Gold")
	for name, c := range map[string]struct {
		run  *schema.RunFold
		code error
		want string
	}{
		"no verify":        {unverified, schema.ErrUnverified, "no verify checks"},
		"failed verify":    {failedVerify, schema.ErrUnverified, "failed its verify"},
		"failed run":       {recorded, schema.ErrUnverified, "ended failed"},
		"undeclared value": {runOf(act(schema.ActFill, "textbox", "Vendor", "the vendor")), schema.ErrUnbound, "comes from the task but is no parameter"},
		"frozen radio":     {runOf(act(schema.ActCheck, "radio", "Reseller", "")), schema.ErrUnbound, "no parameter names"},
		"frozen select":    {runOf(selectNoOptions), schema.ErrUnbound, "were not recorded"},
		"unused parameter": {runOf(act(schema.ActFill, "textbox", "Company", "Initech"), act(schema.ActFill, "password", "Password", "{{password}}")), schema.ErrUnbound, "parameter city is declared but no step uses it"},
	} {
		_, err := Distill(c.run, Options{})
		if !errors.Is(err, c.code) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %v with %q", name, err, c.code, c.want)
		}
	}
}

// TestDistillMakesAJudgment: a select whose value no parameter or task
// text gives, chosen among recorded options, becomes a judgment step with
// those options, and the select and the verify use its answer.
func TestDistillMakesAJudgment(t *testing.T) {
	choose := act(schema.ActSelect, "combobox", "Category", "Account")
	choose.Options = []string{"Billing", "Technical", "Account", "Spam"}
	r := runOf(choose, act(schema.ActClick, "button", "File message", ""))
	r.Spec.Task.Params = nil // the task's values are no step's here
	r.Verify.Checks = append(r.Verify.Checks, schema.Check{Expect: schema.Expect{Op: schema.OpTextVisible, Arg: "Filed as Account"}, Passed: true})
	c, err := Distill(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	j := c.Playbook.Steps[0]
	if j.Kind != schema.StepJudgment || strings.Join(j.Options, ",") != "Billing,Technical,Account,Spam" {
		t.Fatalf("first step %+v", j)
	}
	doc, _ := schema.EncodePlaybook(c.Playbook)
	for _, want := range []string{`value: "{{steps.choose-category}}"`, "text_visible: Filed as {{steps.choose-category}}"} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("want %q in\n%s", want, doc)
		}
	}
}

// TestDistillKeepsTheQuestionsAStepMet: a confirm the learning run's
// click met (and the actuator dismissed) is the step's, so that its
// replay goes on through the same question and stops at any other; an
// alert only informs.
func TestDistillKeepsTheQuestionsAStepMet(t *testing.T) {
	click := act(schema.ActClick, "button", "Register", "")
	click.Dialogs = []string{`alert "Checking…" dismissed`, `confirm "Register Initech?" dismissed`}
	c, err := Distill(runOf(nav(origin+"/vendors/new"), act(schema.ActFill, "textbox", "Company name", "Initech"), act(schema.ActFill, "textbox", "City", "Berlin"),
		act(schema.ActFill, "textbox", "Password", "{{password}}"), click), Options{})
	if err != nil {
		t.Fatal(err)
	}
	last := c.Playbook.Steps[len(c.Playbook.Steps)-1]
	if last.Tool != "click" || !slices.Equal(last.Dialogs, []string{"confirm"}) {
		t.Fatalf("step %s: dialogs %v", last.ID, last.Dialogs)
	}
	for _, s := range c.Playbook.Steps[:len(c.Playbook.Steps)-1] {
		if len(s.Dialogs) != 0 {
			t.Errorf("step %s: dialogs %v", s.ID, s.Dialogs)
		}
	}
}

// TestDistillBindsAValueInTheControlsForm: a task's date typed into a
// date input in its ISO form binds the parameter through the one
// conversion that explains it; a date that reads alike month first and
// day first leaves the task's form unknown and is refused; a value no
// conversion explains stays what it was.
func TestDistillBindsAValueInTheControlsForm(t *testing.T) {
	run := func(date, typed string) *schema.RunFold {
		r := runOf(act(schema.ActSetValue, "date-picker", "Start date", typed), act(schema.ActClick, "button", "Save", ""))
		r.Spec.Task.Text = "Enter " + date + " as the start date"
		r.Spec.Task.Params = map[string]string{"date": date}
		return r
	}
	c, err := Distill(run("09/10/2012", "2012-09-10"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := c.Playbook.Steps[0].Args["value"]; v != "{{date|date_mdy}}" {
		t.Errorf("set_value %v, want {{date|date_mdy}}", v)
	}
	got, err := schema.RenderValue(c.Playbook.Steps[0].Args["value"], schema.Bindings{Params: map[string]any{"date": "03/04/2013"}})
	if err != nil || got != "2013-03-04" {
		t.Errorf("replayed with 03/04/2013: %v, %v", got, err)
	}
	if c, err := Distill(run("10/09/2012", "2012-09-10"), Options{}); err != nil || c.Playbook.Steps[0].Args["value"] != "{{date|date_dmy}}" {
		t.Errorf("day first: %v", err)
	}
	if _, err := Distill(run("10/10/2012", "2012-10-10"), Options{}); !errors.Is(err, schema.ErrAmbiguous) {
		t.Errorf("10/10/2012: %v, want ambiguous", err)
	}
	if _, err := Distill(run("September 10, 2012", "2012-09-10"), Options{}); err != nil {
		t.Errorf("a named month: %v", err)
	}
	if _, err := Distill(run("09/10/2012", "2012-09-11"), Options{}); !errors.Is(err, schema.ErrUnbound) {
		t.Errorf("another date typed: %v, want the parameter unbound", err)
	}
}
