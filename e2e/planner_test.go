package e2e

import (
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/bench/scripted"
	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/portal"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/actuator"
	"github.com/rote-agent/rote/services/planner"
)

// offlineModel serves the scripted model with oracle over real HTTP and
// returns a go-openai client for it that records on b.
func offlineModel(t testing.TB, b *bus.Bus, oracle scripted.Oracle) (*planner.LLM, *scripted.Server) {
	t.Helper()
	srv := scripted.NewServer(oracle)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return planner.NewLLM(planner.LLMConfig{BaseURL: hs.URL + "/v1", APIKey: "offline", Model: scripted.ModelName, Backoff: 10 * time.Millisecond}, b), srv
}

// plannerService runs the planner's endpoints on b with llm.
func plannerService(t testing.TB, b *bus.Bus, llm *planner.LLM) {
	t.Helper()
	svc := planner.NewService(b, llm)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); svc.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-svc.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("planner did not start")
	}
}

// runLog reads a run back and returns its model calls and how it ended.
func runLog(t testing.TB, b *bus.Bus, runID string) ([]*schema.LLMCall, *schema.RunFinished) {
	t.Helper()
	envs, err := b.ReadRun(testContext(t), runID)
	if err != nil {
		t.Fatal(err)
	}
	var calls []*schema.LLMCall
	var fin *schema.RunFinished
	for _, env := range envs {
		switch e := env.Event.(type) {
		case *schema.LLMCall:
			calls = append(calls, e)
		case *schema.RunFinished:
			fin = e
		}
	}
	return calls, fin
}

// TestTriageReplayAsksThePlanner replays the triage playbook with the
// planner running: the deterministic steps call no model, the judgment
// step makes exactly one bounded call (source judgment) that reads the
// message off the page, and the portal files the message where its text
// says, for every seeded message.
func TestTriageReplayAsksThePlanner(t *testing.T) {
	b := planes(t)
	llm, _ := offlineModel(t, b, suite.Oracle())
	plannerService(t, b, llm)
	p := examplePlaybook(t, "triage-message")
	for _, m := range portal.Messages()[:4] {
		t.Run(m.ID, func(t *testing.T) {
			base, site := portalSite(t, "")
			res := browserReplay(t, b, p, base, login(map[string]string{"subject": m.Subject}))
			if res.Outcome != schema.OutcomeSuccess {
				t.Fatalf("outcome %s at %s: %v", res.Outcome, res.FailedStep, res.Reason)
			}
			if got := site.State().Triage; len(got) != 1 || got[m.ID] != m.Category {
				t.Fatalf("portal filed %v, want %s as %s", got, m.ID, m.Category)
			}
			for _, s := range res.Steps {
				if (s.StepID == "classify") != (s.Tokens.Logical() > 0) {
					t.Errorf("step %s used %d tokens", s.StepID, s.Tokens.Logical())
				}
			}
			if len(res.Usage) != 1 || res.Usage[0].Source != schema.SourceJudgment || res.Usage[0].Calls != 1 {
				t.Fatalf("usage %+v, want one judgment call", res.Usage)
			}
			calls, _ := runLog(t, b, res.RunID)
			if len(calls) != 1 || calls[0].Source != schema.SourceJudgment || !calls[0].Offline || calls[0].Usage.Uncached == 0 || calls[0].Usage.Output == 0 {
				t.Fatalf("recorded model calls %+v, want one offline judgment call with its usage", calls)
			}
		})
	}
}

// TestJudgmentOutOfSetFails: a model that answers outside the declared
// options fails the replay outright (no fallback, no improvised branch),
// before anything is filed.
func TestJudgmentOutOfSetFails(t *testing.T) {
	b := planes(t)
	llm, _ := offlineModel(t, b, scripted.OracleFunc(func(scripted.Request) (scripted.Answer, error) {
		return scripted.Answer{Content: "Urgent"}, nil
	}))
	plannerService(t, b, llm)
	base, site := portalSite(t, "")
	res := browserReplay(t, b, examplePlaybook(t, "triage-message"), base, login(map[string]string{"subject": "Nightly export crashed"}))
	if res.Outcome != schema.OutcomeFailed || res.FailedStep != "classify" || !errors.Is(res.Reason, schema.ErrOutOfSet) {
		t.Fatalf("outcome %s at %s: %v", res.Outcome, res.FailedStep, res.Reason)
	}
	if st := site.State(); len(st.Triage) != 0 {
		t.Fatalf("filed on an out-of-set judgment: %v", st.Triage)
	}
}

// TestColdSuiteRuns runs every suite task cold: the agent plans each step
// with the offline model in real Chromium, the verify gate passes, the
// portal's own state agrees, and every model call is recorded with its
// source and usage.
func TestColdSuiteRuns(t *testing.T) {
	b := planes(t)
	llm, _ := offlineModel(t, b, suite.Oracle())
	agent := planner.NewAgent(b, llm, []byte("test-key"))
	for _, task := range suite.Tasks() {
		t.Run(task.ID, func(t *testing.T) {
			base, site := portalSite(t, task.Variant)
			params := task.Params(1)
			res, err := agent.Run(testContext(t), planner.Task{Suite: task.ID, Name: task.Name, Text: task.Render(params), Params: params,
				Secrets: task.Secrets, Verify: task.VerifyExpects(params), StartURL: base}, planner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var steps []string
			for _, s := range res.Steps {
				steps = append(steps, string(s.Action.Kind)+" "+s.Result)
			}
			if res.Outcome != schema.OutcomeSuccess {
				t.Fatalf("outcome %s: %v after %s", res.Outcome, res.Reason, strings.Join(steps, "; "))
			}
			if err := task.Check(site.State(), params, res.Answer); err != nil {
				t.Fatalf("the portal disagrees: %v (steps: %s)", err, strings.Join(steps, "; "))
			}
			if !res.Offline {
				t.Error("the run does not say the offline model answered")
			}
			calls, fin := runLog(t, b, res.RunID)
			if fin == nil || fin.Outcome != schema.OutcomeSuccess || fin.Mode != schema.ModeAgent {
				t.Fatalf("run log ends %+v", fin)
			}
			if len(calls) != len(res.Steps)-1 || len(calls) < 3 {
				t.Fatalf("%d model calls recorded for %d steps", len(calls), len(res.Steps))
			}
			for _, c := range calls {
				if c.Source != schema.SourcePlanner || c.Usage.Logical() == 0 || c.CacheKey == "" {
					t.Fatalf("model call %+v", c)
				}
			}
			if slices.ContainsFunc(res.Steps[1:], func(s planner.StepLog) bool { return s.Tokens.Logical() == 0 }) {
				t.Fatal("a decided step has no tokens")
			}
			t.Logf("%s: %d steps, %d model calls, first call %d tokens, total %d", task.ID, len(res.Steps), len(calls), calls[0].Usage.Logical(), res.Usage[0].Tokens.Logical())
		})
	}
}


// suiteTask is the planner task of a suite task on the portal at base.
func suiteTask(task *suite.Task, rep int, base string) planner.Task {
	params := task.Params(rep)
	return planner.Task{Suite: task.ID, Name: task.Name, Text: task.Render(params), Params: params,
		Secrets: task.Secrets, Verify: task.VerifyExpects(params), StartURL: base}
}

// controller is the control loop over the planes of b, with the offline
// model answering agent steps, judgments and repairs.
func controller(t testing.TB, b *bus.Bus) *planner.Controller {
	t.Helper()
	llm, _ := offlineModel(t, b, suite.Oracle())
	plannerService(t, b, llm)
	ex := actuator.NewExecutor(actuator.ExecutorConfig{SecretKey: []byte("test-key")}, b)
	return planner.NewController(b, planner.NewAgent(b, llm, []byte("test-key")), func(ctx context.Context, r planner.PlaybookReplay) (*schema.ReplayResult, error) {
		return ex.Replay(ctx, actuator.Replay{Playbook: r.Playbook, Version: r.Version, Params: r.Params, RunID: r.Session.RunID, AllowUnbound: true,
			Progress: r.Progress, Open: func(context.Context, string) (actuator.Dispatcher, error) { return actuator.BrowserDispatcherOn(r.Session, r.Base) }})
	})
}

// TestScopedRepairSavesANewVersion: B5 (the vendor form with "Company
// name" renamed) replays version 1 of the vendor playbook; the renamed
// field is repaired by one scoped model call, the replacement's expect
// holds, the replay verifies, and the repair is saved as version 2, which
// then replays with zero model calls.
func TestScopedRepairSavesANewVersion(t *testing.T) {
	b := planes(t)
	c := controller(t, b)
	task, err := suite.Lookup("B5")
	if err != nil {
		t.Fatal(err)
	}
	base, site := portalSite(t, task.Variant)
	p := examplePlaybook(t, "register-vendor")
	if p.Fingerprint, err = schema.Fingerprint(schema.BrowserEnvironment(base)); err != nil {
		t.Fatal(err)
	}
	v1, err := b.PutPlaybook(testContext(t), p, "import", "")
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Run(testContext(t), suiteTask(task, 0, base), &planner.Chosen{Playbook: p, Version: v1.Stored.Version}, planner.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := out.Replay
	if out.Outcome != schema.OutcomeSuccess || out.Agent != nil || rep.Patched == nil || rep.Patched.Version != 2 {
		t.Fatalf("outcome %s (%v), agent %v, patched %+v %s", out.Outcome, out.Reason, out.Agent != nil, rep.Patched, rep.PatchNote)
	}
	if err := task.Check(site.State(), task.Params(0), ""); err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Steps {
		if (s.StepID == "company") != s.Repaired || (s.StepID == "company") != (s.Tokens.Logical() > 0) {
			t.Errorf("step %s: repaired %v, %d tokens", s.StepID, s.Repaired, s.Tokens.Logical())
		}
	}
	if len(rep.Usage) != 1 || rep.Usage[0].Source != schema.SourceRepair || rep.Usage[0].Calls != 1 {
		t.Fatalf("usage %+v, want one repair call", rep.Usage)
	}
	v2, err := b.GetPlaybook(testContext(t), p.Fingerprint, p.Name, 2)
	if err != nil {
		t.Fatal(err)
	}
	if v2.Stored.Origin != "patch" || !strings.Contains(string(v2.Stored.Document), "Legal entity name") {
		t.Fatalf("version 2: %s\n%s", v2.Stored.Origin, v2.Stored.Document)
	}
	patched, err := v2.Decode()
	if err != nil {
		t.Fatal(err)
	}
	site.Reset()
	out, err = c.Run(testContext(t), suiteTask(task, 1, base), &planner.Chosen{Playbook: patched, Version: 2}, planner.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Outcome != schema.OutcomeSuccess || len(out.Usage) != 0 || out.Replay.Patched != nil {
		t.Fatalf("version 2 replay: %s (%v), usage %+v", out.Outcome, out.Reason, out.Usage)
	}
	if err := task.Check(site.State(), task.Params(1), ""); err != nil {
		t.Fatal(err)
	}
}

// TestUnrepairableDriftFallsBack: with a dialog covering the form
// (interstitial), the company step is obscured, which no one-step repair
// may paper over; the replay falls back, reporting the steps that ran,
// and the agent carries on in the same browser from the page as it is,
// completes the form and verifies, registering the vendor exactly once.
func TestUnrepairableDriftFallsBack(t *testing.T) {
	b := planes(t)
	c := controller(t, b)
	task, err := suite.Lookup("B2")
	if err != nil {
		t.Fatal(err)
	}
	base, site := portalSite(t, "interstitial")
	out, err := c.Run(testContext(t), suiteTask(task, 2, base), &planner.Chosen{Playbook: examplePlaybook(t, "register-vendor")}, planner.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := out.Replay
	if rep.Outcome != schema.OutcomeFallback || rep.FailedStep != "company" || !errors.Is(rep.Reason, schema.ErrObscured) {
		t.Fatalf("replay %s at %s: %v", rep.Outcome, rep.FailedStep, rep.Reason)
	}
	if !slices.Equal(rep.Completed, []string{"open-login", "username", "password", "sign-in", "open-form"}) {
		t.Fatalf("completed %v", rep.Completed)
	}
	if out.Agent == nil || out.Outcome != schema.OutcomeSuccess {
		t.Fatalf("fallback: %+v", out)
	}
	if err := task.Check(site.State(), task.Params(2), ""); err != nil {
		t.Fatal(err)
	}
	if site.State().Logins != 1 {
		t.Fatalf("the agent signed in again (%d logins): it did not carry on in the replay's session", site.State().Logins)
	}
	_, fin := runLog(t, b, out.Agent.RunID)
	if fin == nil || fin.Parent != rep.RunID || fin.Mode != schema.ModeAgent {
		t.Fatalf("the fallback run does not continue the replay: %+v", fin)
	}
}
