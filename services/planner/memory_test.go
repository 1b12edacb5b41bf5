package planner

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
)

// TestAFactIsCheckedWhereTheAgentFollowsIt: a click on the control a fact
// names, on the page it starts from, is held to where the fact says it
// leads: a page elsewhere records the fact as not holding (and it leaves
// the brief); the same click where it leads as said records it held;
// a click on another control follows no fact.
func TestAFactIsCheckedWhereTheAgentFollowsIt(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	fp := strings.Repeat("a", 64)
	fact := schema.Fact{Fingerprint: fp, Name: "dashboard-link-reports", From: "/dashboard", Via: `link "Reports"`, To: "/reports", Evidence: []string{"R1"}}
	click := func(role, name string) *schema.BrowserAction {
		return &schema.BrowserAction{Action: schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: role, Name: name}}}
	}
	run := func(id string) *agentRun {
		return &agentRun{a: &Agent{runs: b.Runs(), log: slog.Default()}, res: &Result{RunID: id}, mem: &bus.SiteMemory{Fingerprint: fp, Facts: []schema.Fact{fact}}}
	}
	r := run("RUN1")
	r.followsFact("s3", "http://site/dashboard", click("link", "Reports"))
	r.checkFact(ctx, "http://site/archive?page=1")
	r.followsFact("s4", "http://site/dashboard", click("link", "Inbox"))
	r.checkFact(ctx, "http://site/inbox")
	// A click that stays on its page (a form refusing what was typed)
	// says nothing of where it leads: no check.
	r.followsFact("s5", "http://site/dashboard", click("link", "Reports"))
	r.checkFact(ctx, "http://site/dashboard?error=1")
	if r.mem.Facts[0].Suspect == nil || len(schema.RenderBrief(fp, nil, r.mem.Facts, r.mem.Facts[0].Learned).Facts) != 0 {
		t.Errorf("a contradicted fact stays trusted: %+v", r.mem.Facts[0])
	}
	ok := run("RUN2")
	ok.followsFact("s2", "http://site/dashboard", click("link", "Reports"))
	ok.checkFact(ctx, "http://site/reports")
	checks, err := b.Runs().MemoryChecks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range checks {
		got = append(got, c.RunID+" "+c.StepID+" "+c.Name+" "+map[bool]string{true: "held", false: "not: " + c.Why}[c.Held])
	}
	want := []string{"RUN1 s3 dashboard-link-reports not: it led to /archive, not /reports", "RUN2 s2 dashboard-link-reports held"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("checks\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The next run reads the failure: the fact is suspect from the start.
	m := &bus.SiteMemory{Fingerprint: fp, Facts: []schema.Fact{fact}}
	m.Distrust(checks)
	if m.Facts[0].Suspect == nil || m.Facts[0].Suspect.RunID != "RUN1" {
		t.Errorf("the trust gate: %+v", m.Facts[0])
	}
}

// TestTheModelRunsAnOfferedRoutine: a site's trusted routines are offered
// as one tool; a call runs only a trusted routine, on its first page,
// with values for all it takes (a secret's always the task's, whatever
// the model sends), its steps classed grounded-routine and the choosing
// call counted on the step; anything else is refused with the reason in
// the ledger, and nothing runs.
func TestTheModelRunsAnOfferedRoutine(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	fp := strings.Repeat("a", 64)
	frag := &schema.Playbook{Name: "sign-in", Fingerprint: fp, Intent: `fill textbox "Username", fill textbox "Password", click button "Sign in"`,
		Params: map[string]schema.Param{"username": {Type: schema.ParamString, Required: true}, "password": {Type: schema.ParamString, Required: true, Secret: true}},
		Steps: []schema.Step{
			{ID: "fill", Kind: schema.StepDeterministic, Tool: "fill", Target: &schema.Target{Role: "textbox", Name: "Username"}, Args: map[string]any{"value": "{{username}}"}},
			{ID: "pass", Kind: schema.StepDeterministic, Tool: "fill", Target: &schema.Target{Role: "textbox", Name: "Password"}, Args: map[string]any{"value": "{{password}}"}, Needs: []string{"fill"}},
		},
		Verify: []schema.Expect{{Op: schema.OpURLContains, Arg: "/dashboard"}}}
	doc, err := schema.EncodePlaybook(frag)
	if err != nil {
		t.Fatal(err)
	}
	routine := schema.Routine{Fingerprint: fp, Name: "sign-in", Document: doc, Pre: []schema.Expect{{Op: schema.OpURLContains, Arg: "/login"}}, Evidence: []string{"R1", "R2"}}
	var ran []RoutineRun
	runner := func(_ context.Context, rr RoutineRun) (*schema.ReplayResult, error) {
		ran = append(ran, rr)
		return &schema.ReplayResult{Outcome: schema.OutcomeSuccess, Steps: []schema.StepReport{{StepID: rr.Prefix + "fill", Class: rr.Class}}}, nil
	}
	newRun := func(suspect bool) *agentRun {
		m := &bus.SiteMemory{Fingerprint: fp, Routines: []schema.Routine{routine}}
		if suspect {
			m.Routines[0].Suspect = &schema.Suspicion{RunID: "R0", Why: "stopped"}
		}
		r := &agentRun{a: &Agent{runs: b.Runs(), log: slog.Default(), cfg: AgentConfig{Routines: runner}}, res: &Result{RunID: "RUN"}, mem: m, ran: map[string]bool{},
			t: Task{Params: map[string]string{"username": "admin", "password": "s3cret"}, Secrets: []string{"password"}}, step: 2}
		r.prompt = NewPrompt(TaskPrompt{Text: "Log in as admin"}, r.tools())
		return r
	}
	login := schema.World{Page: true, URL: "http://site/login"}
	if r := newRun(true); len(r.offered()) != 0 || len(r.tools()) != len(agentTools()) {
		t.Errorf("a suspect routine is offered: %v", r.offered())
	}
	for name, c := range map[string]struct {
		call tools.RoutineCall
		w    schema.World
		why  string
	}{
		"unknown":         {tools.RoutineCall{Name: "purge"}, login, `no routine "purge" is trusted`},
		"not its param":   {tools.RoutineCall{Name: "sign-in", Params: map[string]string{"role": "admin"}}, login, `takes no parameter "role"`},
		"not on its page": {tools.RoutineCall{Name: "sign-in"}, schema.World{Page: true, URL: "http://site/dashboard"}, `first page is not showing: url_contains "/login"`},
		"another user":    {tools.RoutineCall{Name: "sign-in", Params: map[string]string{"username": "bob"}}, login, `the task gives username: the routine runs with the task's value, not "bob"`},
	} {
		r := newRun(false)
		r.runCalled(ctx, "s3", c.call, c.w, schema.TokenUsage{Uncached: 100}, time.Now())
		if len(ran) != 0 || len(r.res.Steps) != 1 || !strings.Contains(r.res.Steps[0].Result, c.why) || r.steps[0].Class != schema.ClassFrontier {
			t.Errorf("%s: ran %d, steps %+v", name, len(ran), r.res.Steps)
		}
	}
	r := newRun(false)
	r.calls = []*schema.LLMCall{{StepID: "s3"}}
	r.runCalled(ctx, "s3", tools.RoutineCall{Name: "sign-in", Params: map[string]string{"password": "the model's guess"}}, login, schema.TokenUsage{Uncached: 100}, time.Now())
	if len(ran) != 1 || ran[0].Params["password"] != "s3cret" || ran[0].Params["username"] != "admin" || ran[0].Class != schema.ClassGroundedRoutine || ran[0].Prefix != "s3-" {
		t.Fatalf("ran %+v", ran)
	}
	// A routine that types a secret takes its other values from the task
	// alone: the model never chooses whom the secret is sent as.
	alone := newRun(false)
	delete(alone.t.Params, "username")
	alone.runCalled(ctx, "s3", tools.RoutineCall{Name: "sign-in", Params: map[string]string{"username": "bob"}}, login, schema.TokenUsage{}, time.Now())
	if len(ran) != 1 || !strings.Contains(alone.res.Steps[0].Result, "a routine that types a secret runs with the task's values alone") {
		t.Errorf("a secret sent as the model's user: ran %d, %+v", len(ran), alone.res.Steps)
	}
	classes := schema.TallyClasses(r.steps)
	if len(classes) != 1 || classes[0].Class != schema.ClassGroundedRoutine || classes[0].Steps != 2 || classes[0].Calls != 1 {
		t.Errorf("steps by class %+v", classes)
	}
	if !strings.HasPrefix(r.res.Steps[0].Result, "ok: ran whole") || r.res.Steps[0].Tokens.Uncached != 100 || !r.whole {
		t.Errorf("step log %+v", r.res.Steps)
	}
}

// TestSpeculationLeavesNegatedWordsToTheModel: the routine runs with no
// model where the task opens by saying it as its tasks did, negating
// nothing in that clause; anywhere else ("do not sign in as", "skip the
// step") the model decides.
func TestSpeculationLeavesNegatedWordsToTheModel(t *testing.T) {
	b := bustest.Start(t)
	fp := strings.Repeat("a", 64)
	frag := &schema.Playbook{Name: "sign-in", Fingerprint: fp, Intent: `fill textbox "Username"`,
		Params: map[string]schema.Param{"username": {Type: schema.ParamString, Required: true}},
		Steps:  []schema.Step{{ID: "fill", Kind: schema.StepDeterministic, Tool: "fill", Target: &schema.Target{Role: "textbox", Name: "Username"}, Args: map[string]any{"value": "{{username}}"}}},
		Verify: []schema.Expect{{Op: schema.OpURLContains, Arg: "/dashboard"}}}
	doc, err := schema.EncodePlaybook(frag)
	if err != nil {
		t.Fatal(err)
	}
	routine := schema.Routine{Fingerprint: fp, Name: "sign-in", Document: doc, Said: "Sign in as {{username}}", Pre: []schema.Expect{{Op: schema.OpURLContains, Arg: "/login"}}}
	ran := 0
	runner := func(_ context.Context, rr RoutineRun) (*schema.ReplayResult, error) {
		ran++
		return &schema.ReplayResult{Outcome: schema.OutcomeSuccess}, nil
	}
	for text, want := range map[string]int{
		"Sign in as admin and turn the digest on":                        1,
		"Without signing in (do not Sign in as admin), read the heading": 0,
		"Sign in as admin and do not change the title":                   1,
		"Please sign in as admin, then read the digest":                  1,
		`Skip the step "Sign in as admin" and open the catalog`:          0,
		"Avoid: Sign in as admin. Open the catalog.":                     0,
		"Sign in as admin not as bob and open the catalog":               0,
		"Go to the portal and sign in as admin":                          0,
	} {
		ran = 0
		r := &agentRun{a: &Agent{runs: b.Runs(), log: slog.Default(), cfg: AgentConfig{Routines: runner}}, res: &Result{RunID: "RUN"}, ran: map[string]bool{},
			mem: &bus.SiteMemory{Fingerprint: fp, Routines: []schema.Routine{routine}}, t: Task{Text: text, Params: map[string]string{"username": "admin"}}}
		r.prompt = NewPrompt(TaskPrompt{Text: text}, r.tools())
		r.speculate(context.Background(), "s1", schema.World{Page: true, URL: "http://site/login"}, time.Now())
		if ran != want {
			t.Errorf("%q: the routine ran %d times, want %d", text, ran, want)
		}
	}
}

// TestARoutinesClickIsHeldToItsFact: the fact the sign-in's last click
// goes by (on /login, button "Sign in" leads to /dashboard) is checked
// against where the routine's run landed, as the model's own click
// would be: landing on /start says it no longer holds.
func TestARoutinesClickIsHeldToItsFact(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	fp := strings.Repeat("a", 64)
	frag := &schema.Playbook{Name: "sign-in", Fingerprint: fp, Intent: `fill textbox "Username", click button "Sign in"`,
		Params: map[string]schema.Param{"username": {Type: schema.ParamString, Required: true}},
		Steps: []schema.Step{
			{ID: "user", Kind: schema.StepDeterministic, Tool: "fill", Target: &schema.Target{Role: "textbox", Name: "Username"}, Args: map[string]any{"value": "{{username}}"}},
			{ID: "go", Kind: schema.StepDeterministic, Tool: "click", Target: &schema.Target{Role: "button", Name: "Sign in"}, Needs: []string{"user"}},
		},
		Verify: []schema.Expect{{Op: schema.OpURLContains, Arg: "/start"}}}
	doc, err := schema.EncodePlaybook(frag)
	if err != nil {
		t.Fatal(err)
	}
	fact := schema.Fact{Fingerprint: fp, Name: "login-button-sign-in", From: "/login", Via: `button "Sign in"`, To: "/dashboard", Evidence: []string{"R1"}}
	runner := func(_ context.Context, rr RoutineRun) (*schema.ReplayResult, error) {
		return &schema.ReplayResult{Outcome: schema.OutcomeSuccess, Completed: []string{rr.Prefix + "user", rr.Prefix + "go"}}, nil
	}
	r := &agentRun{a: &Agent{runs: b.Runs(), log: slog.Default(), cfg: AgentConfig{Routines: runner}}, res: &Result{RunID: "RUN"}, ran: map[string]bool{},
		mem: &bus.SiteMemory{Fingerprint: fp, Routines: []schema.Routine{{Fingerprint: fp, Name: "sign-in", Document: doc, Pre: []schema.Expect{{Op: schema.OpURLContains, Arg: "/login"}}}},
			Facts: []schema.Fact{fact}},
		t: Task{Params: map[string]string{"username": "admin"}}}
	r.prompt = NewPrompt(TaskPrompt{Text: "Log in as admin"}, r.tools())
	r.runCalled(ctx, "s1", tools.RoutineCall{Name: "sign-in"}, schema.World{Page: true, URL: "http://site/login"}, schema.TokenUsage{}, time.Now())
	if r.followed == nil || r.followed.Name != fact.Name {
		t.Fatalf("the routine's click follows %+v", r.followed)
	}
	r.checkFact(ctx, "http://site/start")
	if r.mem.Facts[0].Suspect == nil {
		t.Error("a fact the routine's landing contradicts stays trusted")
	}
}
