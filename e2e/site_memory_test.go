package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/portal"
)

// suiteRun is what rote run --json says of a suite task's run.
type suiteRun struct {
	Outcome string
	Agent   struct {
		RunID  string `json:"run_id"`
		Answer string
		Steps  []struct {
			Routine string
			Result  string
		}
	}
	Usage []struct {
		Source string
		Calls  int
	}
}

// runSuiteTask runs suite task id with rote run in dir against the site
// at base.
func runSuiteTask(t *testing.T, dir, id, base string) suiteRun {
	t.Helper()
	code, out := rote(t, dir, "run", "--suite-task", id, "--url", base, "--json")
	var r suiteRun
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("run of %s: exit %d (%v)\n%s", id, code, err, out)
	}
	return r
}

func (r suiteRun) calls() int {
	n := 0
	for _, u := range r.Usage {
		n += u.Calls
	}
	return n
}

// routines are the routines of site memory the run ran, with how each
// went.
func (r suiteRun) routines() []string {
	var out []string
	for _, s := range r.Agent.Steps {
		if s.Routine != "" {
			out = append(out, s.Routine+": "+s.Result)
		}
	}
	return out
}

// TestSiteMemoryHelpsANewKindOfTask learns two task classes of the
// portal (B1, B4), which both open by signing in: the site's memory then
// holds that sign-in as a routine, the transitions the runs took, and a
// brief. A cold run of B3, a class the store has no playbook for, runs
// the routine with no model (speculated: the sign-in page, credentials
// given) and asks the model fewer times than B3 on a fresh store, with
// the same outcome on the portal's own state; the audit names the
// routine; a task in other words (M6, "Log in as") has the model run it
// by name. Where the portal now lands elsewhere after signing in, the
// routine's postcondition fails: the run still does the task from the
// page as it is, the routine is suspect, and the next run leaves it out.
func TestSiteMemoryHelpsANewKindOfTask(t *testing.T) {
	t.Parallel()
	site := newVariantSite(t)
	dir := t.TempDir()
	for _, id := range []string{"B1", "B4"} {
		site.set(t, "")
		run := coldSuiteRun(t, dir, id, site.URL)
		if code, out := rote(t, dir, "promote", run, "--param", "password="+portal.Password); code != 0 {
			t.Fatalf("promote %s: exit %d\n%s", id, code, out)
		}
	}
	code, out := rote(t, dir, "memory", "show", "--site", site.URL)
	if code != 0 || !strings.Contains(out, "sign-in(password, username)  shared by download-latest-report, triage-message") ||
		!strings.Contains(out, "to-inbox-subject(subject)  the way triage-message goes to its work") ||
		!strings.Contains(out, `on /login, button "Sign in" leads to /dashboard`) || strings.Contains(out, portal.Password) {
		t.Fatalf("memory show: exit %d\n%s", code, out)
	}

	code, out = rote(t, dir, "memory", "show", "--site", site.URL, "--json")
	if code != 0 || !strings.Contains(out, `"does": "fill textbox \"Username\", fill textbox \"Password\", click button \"Sign in\""`) ||
		!strings.Contains(out, `"post": [`) || strings.Contains(out, portal.Password) {
		t.Fatalf("memory show --json: exit %d\n%s", code, out)
	}

	task, err := suite.Lookup("B3")
	if err != nil {
		t.Fatal(err)
	}
	p := site.set(t, "")
	known := runSuiteTask(t, dir, "B3", site.URL)
	if known.Outcome != "success" || len(known.routines()) != 1 || !strings.HasPrefix(known.routines()[0], "sign-in: ok") {
		t.Fatalf("B3 on the known site: %s, routines %v", known.Outcome, known.routines())
	}
	if err := task.Check(p.State(), task.Params(0), known.Agent.Answer); err != nil {
		t.Fatalf("B3 on the known site: %v", err)
	}
	p = site.set(t, "")
	fresh := runSuiteTask(t, t.TempDir(), "B3", site.URL)
	if fresh.Outcome != "success" || len(fresh.routines()) != 0 {
		t.Fatalf("B3 on a fresh store: %s, routines %v", fresh.Outcome, fresh.routines())
	}
	if err := task.Check(p.State(), task.Params(0), fresh.Agent.Answer); err != nil {
		t.Fatalf("B3 on a fresh store: %v", err)
	}
	// The three steps of signing in are not the model's.
	if known.calls() > fresh.calls()-3 {
		t.Errorf("B3 asked the model %d times on the known site, %d on a fresh store: want 3 fewer at least", known.calls(), fresh.calls())
	}
	code, out = rote(t, dir, "audit", known.Agent.RunID)
	if code != 0 || !strings.Contains(out, "memory    routine sign-in held at s1") || !strings.Contains(out, "speculated") {
		t.Errorf("audit of the known-site run: exit %d\n%s", code, out)
	}

	// M6 says "Log in as", not the words the routine's tasks said: Rote
	// does not run it on its own, the model (offered it as a tool) does,
	// in one call, and the audit agrees on the call that chose it.
	m6, err := suite.Lookup("M6")
	if err != nil {
		t.Fatal(err)
	}
	p = site.set(t, "")
	called := runSuiteTask(t, dir, "M6", site.URL)
	if called.Outcome != "success" || len(called.routines()) != 1 || !strings.HasPrefix(called.routines()[0], "sign-in: ok") {
		t.Fatalf("M6 on the known site: %s, routines %v", called.Outcome, called.routines())
	}
	if err := m6.Check(p.State(), m6.Params(0), called.Agent.Answer); err != nil {
		t.Fatalf("M6 on the known site: %v", err)
	}
	code, out = rote(t, dir, "audit", called.Agent.RunID)
	if code != 0 || !strings.Contains(out, "grounded-routine") || !strings.Contains(out, "memory    routine sign-in held at s") {
		t.Errorf("audit of the run that called the routine: exit %d\n%s", code, out)
	}

	// M3 files two messages: the way B4 went to its message is a
	// routine the model calls for the first.
	m3, err := suite.Lookup("M3")
	if err != nil {
		t.Fatal(err)
	}
	p = site.set(t, "")
	twice := runSuiteTask(t, dir, "M3", site.URL)
	if twice.Outcome != "success" || !slices.ContainsFunc(twice.routines(), func(r string) bool { return strings.HasPrefix(r, "to-inbox-subject: ok") }) {
		t.Fatalf("M3 on the known site: %s, routines %v", twice.Outcome, twice.routines())
	}
	if err := m3.Check(p.State(), m3.Params(0), twice.Agent.Answer); err != nil {
		t.Fatalf("M3 on the known site: %v", err)
	}

	// A mistyped password: the routine stops back on the sign-in page.
	// The page refused the values, which says nothing against the
	// routine: it stays trusted.
	site.set(t, "")
	code, out = rote(t, dir, "run", "--suite-task", "M1", "--url", site.URL, "--param", "password=not-the-password", "--json")
	var mistyped suiteRun
	if err := json.NewDecoder(strings.NewReader(out)).Decode(&mistyped); err != nil || mistyped.Outcome == "success" || len(mistyped.routines()) != 1 ||
		!strings.Contains(mistyped.routines()[0], "the page refused the values it ran with") {
		t.Fatalf("M1 with a wrong password: exit %d (%v), routines %v\n%s", code, err, mistyped.routines(), out)
	}
	if code, out = rote(t, dir, "memory", "show", "--site", site.URL); code != 0 || strings.Contains(out, "SUSPECT") {
		t.Errorf("a mistyped password made the routine suspect: exit %d\n%s", code, out)
	}

	// The portal now lands on /start: the routine signs in, and its
	// postcondition (/dashboard) fails; the agent carries on.
	p = site.set(t, "landing-moved")
	drifted := runSuiteTask(t, dir, "B3", site.URL)
	if drifted.Outcome != "success" || len(drifted.routines()) != 1 || !strings.HasPrefix(drifted.routines()[0], "sign-in: stopped at post") {
		t.Fatalf("B3 where the landing moved: %s, routines %v", drifted.Outcome, drifted.routines())
	}
	if err := task.Check(p.State(), task.Params(0), drifted.Agent.Answer); err != nil {
		t.Fatalf("B3 where the landing moved: %v", err)
	}
	code, out = rote(t, dir, "audit", drifted.Agent.RunID)
	if code != 0 || !strings.Contains(out, "memory    routine sign-in did not hold") {
		t.Errorf("audit of the drifted run: exit %d\n%s", code, out)
	}
	site.set(t, "landing-moved")
	again := runSuiteTask(t, dir, "B3", site.URL)
	if again.Outcome != "success" || len(again.routines()) != 0 {
		t.Errorf("the next run ran a suspect routine: %s, routines %v", again.Outcome, again.routines())
	}
}
