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

