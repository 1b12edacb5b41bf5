package distiller

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/schema"
)

// sitePlaybook is a portal task class: open a page, sign in with the
// credentials named user and pass, then the class's own steps.
func sitePlaybook(t *testing.T, name, start, user, pass, rest string, evidence ...string) SitePlaybook {
	t.Helper()
	params := user + ": {type: string}, " + pass + ": {type: secret}"
	for _, m := range regexp.MustCompile(`\{\{([a-z_]+)\}\}`).FindAllStringSubmatch(rest, -1) {
		if !strings.Contains(params, m[1]+":") {
			params += ", " + m[1] + ": {type: string}" // a value the class's own steps take
		}
	}
	doc := "name: " + name + "\nintent: Sign in as {{" + user + "}} and " + name + "\nfingerprint: " + strings.Repeat("f", 64) + "\n" +
		"params: {" + params + "}\nsteps:\n" +
		"  - {id: open, kind: deterministic, tool: navigate, args: {url: '" + start + "'}, expect: [{url_contains: /login}]}\n" +
		"  - {id: user, kind: deterministic, needs: [open], tool: fill, target: {role: textbox, name: Username, contract: {tag: input, input_type: text, form_action: /login, form_method: post}}, args: {value: '{{" + user + "}}'}}\n" +
		"  - {id: pass, kind: deterministic, needs: [user], tool: fill, target: {role: textbox, name: Password}, args: {value: '{{" + pass + "}}'}}\n" +
		"  - {id: in, kind: deterministic, needs: [pass], tool: click, target: {role: button, name: Sign in}, expect: [{url_contains: /dashboard}], on_fail: repair}\n" +
		rest + "verify: [{url_contains: /}]\n"
	p, err := schema.DecodePlaybook([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return SitePlaybook{Playbook: p, Evidence: evidence}
}

func TestRoutinesAreWhatTaskClassesShare(t *testing.T) {
	fp := strings.Repeat("f", 64)
	reports := "  - {id: reports, kind: deterministic, needs: [in], tool: click, target: {role: link, name: Reports}, expect: [{selector_visible: 'heading \"Reports\"'}]}\n"
	inbox := "  - {id: inbox, kind: deterministic, needs: [in], tool: click, target: {role: link, name: Inbox}, expect: [{selector_visible: 'heading \"Inbox\"'}]}\n"
	books := []SitePlaybook{
		sitePlaybook(t, "download-report", "/", "username", "password", reports, "R1", "S1"),
		sitePlaybook(t, "triage", "/login", "username", "password", inbox, "R2", "S2"),
		// Another class's run of the same steps, its values named
		// otherwise: not the same routine.
		sitePlaybook(t, "catalog", "/", "user", "password", reports, "R3", "S3"),
		// The same class again adds nothing.
		sitePlaybook(t, "download-report", "/", "username", "password", reports, "R4", "S4"),
	}
	got := Routines(fp, books, time.Unix(0, 0))
	if len(got) != 1 {
		t.Fatalf("%d routines, want the sign-in alone: %+v", len(got), got)
	}
	r := got[0]
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	p, _ := r.Fragment()
	if r.Name != "sign-in" || !slices.Equal(r.Classes, []string{"download-report", "triage"}) || !slices.Equal(r.Evidence, []string{"R1", "S1", "R2", "S2", "R4", "S4"}) {
		t.Errorf("routine %s of %v, evidence %v", r.Name, r.Classes, r.Evidence)
	}
	var pre []string
	for _, e := range r.Pre {
		pre = append(pre, e.Arg)
	}
	if !slices.Equal(pre, []string{"/login", `textbox "Username"`, `textbox "Password"`, `button "Sign in"`}) || r.Said != "Sign in as {{username}}" {
		t.Errorf("precondition %v, said %q", pre, r.Said)
	}
	if len(p.Steps) != 3 || len(p.Verify) != 1 || p.Verify[0].Arg != "/dashboard" || len(p.Steps[2].Expect) != 0 || p.Steps[2].OnFail.Policy != "" || len(p.Steps[0].Needs) != 0 || len(p.Params) != 2 {
		t.Errorf("fragment: %d steps, verify %v, on_fail %q, needs %v, params %v", len(p.Steps), p.Verify, p.Steps[2].OnFail.Policy, p.Steps[0].Needs, p.Params)
	}
	if !p.Params["password"].IsSecret() {
		t.Error("the password parameter lost its secrecy")
	}
	brief := schema.RenderBrief(fp, got, nil, time.Unix(0, 0))
	if !strings.Contains(brief.Text, "- sign-in(password, username): fill textbox \"Username\", fill textbox \"Password\", click button \"Sign in\"") {
		t.Errorf("brief:\n%s", brief.Text)
	}
}

// A routine is learned only with the page it starts on (what the
// navigations before it checked, alike in both) and words of the tasks
// that ask for it: controls alone could stand on a look-alike page, and
// a value alone could mean another thing.
func TestNoRoutineWithoutItsPageOrItsWords(t *testing.T) {
	fp := strings.Repeat("f", 64)
	books := []SitePlaybook{
		sitePlaybook(t, "a", "/", "username", "password", "", "R1", "S1"),
		sitePlaybook(t, "b", "/", "username", "password", "", "R2", "S2"),
	}
	books[1].Playbook.Steps[0].Expect = []schema.Expect{{Op: schema.OpURLContains, Arg: "/signin"}}
	if got := Routines(fp, books, time.Unix(0, 0)); len(got) != 0 {
		t.Fatalf("a routine of two pages: %+v", got)
	}
	books[1] = sitePlaybook(t, "b", "/", "username", "password", "", "R2", "S2")
	books[1].Playbook.Intent = "Create the user {{username}} with the password {{password}}"
	if got := Routines(fp, books, time.Unix(0, 0)); len(got) != 0 {
		t.Fatalf("a routine no task words ask for alike: %+v", got)
	}
}

// A playbook learned where signing in lands elsewhere shares no routine
// with one that landed on the dashboard, nor adds its runs to one: the
// postcondition would hold for neither both.
func TestNoRoutineFromPostconditionsThatDiffer(t *testing.T) {
	fp := strings.Repeat("f", 64)
	books := []SitePlaybook{
		sitePlaybook(t, "a", "/", "username", "password", "", "R1", "S1"),
		sitePlaybook(t, "b", "/", "username", "password", "", "R2", "S2"),
		sitePlaybook(t, "c", "/", "username", "password", "", "R3", "S3"),
	}
	books[2].Playbook.Steps[3].Expect = []schema.Expect{{Op: schema.OpURLContains, Arg: "/start"}}
	got := Routines(fp, books, time.Unix(0, 0))
	if len(got) != 1 || slices.Contains(got[0].Evidence, "R3") || slices.Contains(got[0].Classes, "c") {
		t.Fatalf("routines %+v", got)
	}
}

func TestNoRoutineWithoutAPostcondition(t *testing.T) {
	fp := strings.Repeat("f", 64)
	books := []SitePlaybook{
		sitePlaybook(t, "a", "/", "username", "password", "", "R1", "S1"),
		sitePlaybook(t, "b", "/", "username", "password", "", "R2", "S2"),
	}
	for i := range books {
		books[i].Playbook.Steps[3].Expect = nil
	}
	if got := Routines(fp, books, time.Unix(0, 0)); len(got) != 0 {
		t.Fatalf("a routine nothing checks after: %+v", got)
	}
	// A choice among records is no routine's either: it may differ.
	books = []SitePlaybook{
		sitePlaybook(t, "a", "/", "username", "password", "", "R1", "S1"),
		sitePlaybook(t, "b", "/", "username", "password", "", "R2", "S2"),
	}
	for i := range books {
		books[i].Playbook.Steps[1].Target.Pick = &schema.Pick{Name: "Username*"}
	}
	if got := Routines(fp, books, time.Unix(0, 0)); len(got) != 0 {
		t.Fatalf("a routine of a pick: %+v", got)
	}
}

func TestTransitionsAreWhereControlsLed(t *testing.T) {
	fp := strings.Repeat("f", 64)
	run := func(id string, to string) *schema.RunFold {
		obs := func(seq uint64, u string) *schema.BrowserObserved {
			return &schema.BrowserObserved{RunID: id, Seq: seq, URL: u}
		}
		click := func(seq uint64, role, name string) *schema.BrowserAction {
			return &schema.BrowserAction{RunID: id, Seq: seq, Action: schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: role, Name: name}}}
		}
		return &schema.RunFold{RunID: id,
			Observations: []*schema.BrowserObserved{obs(1, "http://p/login"), obs(3, "http://p/dashboard"), obs(5, "http://p"+to), obs(7, "http://p/vendors/V-0042")},
			Actions:      []*schema.BrowserAction{click(2, "button", "Sign in"), click(4, "link", "Reports"), click(6, "button", "Register")}}
	}
	got := Transitions(fp, []*schema.RunFold{run("R1", "/reports"), run("R2", "/reports")}, time.Unix(0, 0))
	var texts []string
	for _, f := range got {
		if err := f.Validate(); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, f.Text()+" "+strings.Join(f.Evidence, ","))
	}
	want := []string{`on /dashboard, link "Reports" leads to /reports R1,R2`, `on /login, button "Sign in" leads to /dashboard R1,R2`}
	if !slices.Equal(texts, want) {
		t.Fatalf("transitions\n%q\nwant\n%q", texts, want)
	}
	// Runs that disagree where a control leads teach nothing about it.
	got = Transitions(fp, []*schema.RunFold{run("R1", "/reports"), run("R2", "/archive")}, time.Unix(0, 0))
	if len(got) != 1 || got[0].Via != `button "Sign in"` {
		t.Fatalf("contradicted transitions kept: %+v", got)
	}
}
