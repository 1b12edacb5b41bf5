package e2e

import (
	"slices"
	"strings"
	"testing"

	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/portal"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/distiller"
	"github.com/rote-agent/rote/services/planner"
	"github.com/rote-agent/rote/services/replay"
)

// TestLearnFromColdRuns: for every suite task, a cold agent run plans
// each step with the offline model in real Chromium and verifies, with the
// portal's own state agreeing and every model call recorded with its
// source and usage; the run is distilled with no edit, shadow-replayed
// and promoted to version 1, and the stored playbook then replays the
// same task class with new parameter values and verifies. The
// deterministic replays call no model; the triage playbook's judgment,
// which the distiller made of the agent's choice, makes exactly one call.
func TestLearnFromColdRuns(t *testing.T) {
	long(t, "learning B1-B6 from cold runs")
	t.Parallel()
	n := start(t, nil, node.Perception, node.Actuator, node.Planner)
	b, agent := n.Bus(), n.Agent()
	for _, task := range suite.Tasks() {
		id := task.ID
		t.Run(id, func(t *testing.T) {
			base, site := portalSite(t, task.Variant)
			cold, err := agent.Run(testContext(t), suiteTask(task, 0, base), planner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkColdRun(t, b, task, cold, site)
			cand, doc := distillRun(t, b, cold.RunID)
			if strings.Contains(string(doc), task.Params(0)["password"]) {
				t.Fatalf("the playbook holds the password:\n%s", doc)
			}
			site.Reset()
			promo, err := n.Promote(testContext(t), cand, task.Params(0), n.BrowserOpener(base), nil)
			if err != nil {
				t.Fatalf("promote: %v\n%s", err, doc)
			}
			if promo.Entry.Stored.Version != 1 || promo.Entry.Stored.Origin != "promote" || promo.Shadow.Outcome != schema.OutcomeSuccess {
				t.Fatalf("promotion %+v", promo.Entry.Stored)
			}
			site.Reset()
			stored, err := b.Playbooks().Get(testContext(t), cand.Playbook.Fingerprint, cand.Playbook.Name, 0)
			if err != nil {
				t.Fatal(err)
			}
			p, err := stored.Decode()
			if err != nil {
				t.Fatal(err)
			}
			params := task.Params(1)
			warm, err := n.Executor().Replay(testContext(t), replay.Request{Playbook: p, Version: stored.Stored.Version, Params: params, Open: n.BrowserOpener(base)})
			if err != nil {
				t.Fatal(err)
			}
			if warm.Outcome != schema.OutcomeSuccess {
				t.Fatalf("warm replay %s at %s: %v\n%s", warm.Outcome, warm.FailedStep, warm.Reason, doc)
			}
			if err := task.Check(site.State(), params, warm.Answer); err != nil {
				t.Fatalf("the portal disagrees with the warm replay: %v\n%s", err, doc)
			}
			wantCalls := 0
			if id == "B4" {
				wantCalls = 1
			}
			calls := 0
			for _, u := range warm.Usage {
				calls += u.Calls
				if u.Source != schema.SourceJudgment {
					t.Errorf("warm replay called the model for %s", u.Source)
				}
			}
			if calls != wantCalls {
				t.Fatalf("warm replay made %d model calls, want %d", calls, wantCalls)
			}
			t.Logf("%s: cold %d model calls, %d tokens; warm %d call(s); %d steps, %d pruned", id, cold.Usage[0].Calls, cold.Usage[0].Tokens.Logical(), calls, len(p.Steps), len(cand.Pruned))
		})
	}
}

// checkColdRun: a cold agent run verified, the portal agrees, it says the
// offline model answered, no secret is in its log, and each of its model
// calls is recorded, tagged planner, with usage and a cache key.
func checkColdRun(t *testing.T, b *bus.Bus, task *suite.Task, res *planner.Result, site *portal.Portal) {
	t.Helper()
	var steps []string
	for _, s := range res.Steps {
		steps = append(steps, string(s.Action.Kind)+" "+s.Result)
	}
	if res.Outcome != schema.OutcomeSuccess {
		t.Fatalf("cold run %s: %v after %s", res.Outcome, res.Reason, strings.Join(steps, "; "))
	}
	if err := task.Check(site.State(), task.Params(0), res.Answer); err != nil {
		t.Fatalf("the portal disagrees with the cold run: %v (steps: %s)", err, strings.Join(steps, "; "))
	}
	if !res.Offline {
		t.Error("the run does not say the offline model answered")
	}
	noSecretRecorded(t, b, res.RunID, portal.Password)
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
}

// distillRun distills run runID of the log on b, and returns the
// candidate and its playbook as YAML.
func distillRun(t *testing.T, b *bus.Bus, runID string) (*distiller.Candidate, []byte) {
	t.Helper()
	run, err := b.Runs().Fold(testContext(t), runID)
	if err != nil {
		t.Fatal(err)
	}
	cand, err := distiller.Distill(run, distiller.Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := schema.EncodePlaybook(cand.Playbook)
	return cand, doc
}
