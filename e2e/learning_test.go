package e2e

import (
	"strings"
	"testing"

	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/actuator/replay"
	"github.com/rote-agent/rote/services/distiller"
	"github.com/rote-agent/rote/services/planner"
)

// TestLearnFromColdRuns: for five suite tasks, a cold agent run is
// distilled with no edit, shadow-replayed and promoted to version 1, and
// the stored playbook then replays the same task class with new
// parameter values and verifies, with the portal's state agreeing. The
// deterministic replays call no model; the triage playbook's judgment,
// which the distiller made of the agent's choice, makes exactly one call.
func TestLearnFromColdRuns(t *testing.T) {
	n := start(t, nil, node.Perception, node.Actuator, node.Planner)
	b, agent := n.Bus(), n.Agent()
	for _, id := range []string{"B1", "B2", "B3", "B4", "B6"} {
		t.Run(id, func(t *testing.T) {
			task, err := suite.Lookup(id)
			if err != nil {
				t.Fatal(err)
			}
			base, site := portalSite(t, task.Variant)
			cold, err := agent.Run(testContext(t), suiteTask(task, 0, base), planner.Options{})
			if err != nil || cold.Outcome != schema.OutcomeSuccess {
				t.Fatalf("cold run: %v %+v", err, cold)
			}
			run, err := b.Runs().Fold(testContext(t), cold.RunID)
			if err != nil {
				t.Fatal(err)
			}
			cand, err := distiller.Distill(run, distiller.Options{})
			if err != nil {
				t.Fatal(err)
			}
			doc, _ := schema.EncodePlaybook(cand.Playbook)
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
