package e2e

import (
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/rote-agent/rote/bench/scripted"
	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/portal"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/planner"
)

// TestRequestedReportIsJudged learns "download the report the auditor
// asks for" from an agent run that chose a report no parameter names and
// no stated order picks; the distilled playbook asks a judgment among the
// reports on the page at replay, so replays download whichever report
// the page then asks for (frozen, the step would download the one chosen
// once), and stop when the page names none of the reports.
func TestRequestedReportIsJudged(t *testing.T) {
	t.Parallel()
	base, site := portalSite(t, "")
	site.RequestReport("Operations report October 2026")
	var mu sync.Mutex
	turn := 0
	calls := []scripted.Call{
		{Name: "navigate", Arguments: `{"url":"/login"}`},
		{Name: "fill", Arguments: `{"role":"textbox","name":"Username","value":"admin"}`},
		{Name: "fill", Arguments: `{"role":"textbox","name":"Password","value":"` + portal.Password + `"}`},
		{Name: "click", Arguments: `{"role":"button","name":"Sign in"}`},
		{Name: "navigate", Arguments: `{"url":"/reports"}`},
		{Name: "click", Arguments: `{"role":"link","name":"Download Operations report October 2026"}`},
		{Name: "done", Arguments: `{"reason":"downloaded the report the auditor asks for"}`},
	}
	judge := suite.Oracle()
	cfg := node.Config{Roles: []string{node.Perception, node.Actuator, node.Planner}, Browser: sharedBrowser}
	n := startWith(t, bustest.Start(t), cfg, scripted.OracleFunc(func(r scripted.Request) (scripted.Answer, error) {
		if len(r.Tools) == 0 { // a judgment: the suite's model reads the page
			return judge.Answer(r)
		}
		mu.Lock()
		defer mu.Unlock()
		call := calls[min(turn, len(calls)-1)]
		turn++
		return scripted.Answer{Call: &call}, nil
	}))
	params := map[string]string{"username": portal.Username, "password": portal.Password}
	cold, err := n.Agent().Run(testContext(t), planner.Task{Name: "download-requested-report", Text: "Sign in as admin and download the report the auditor asks for",
		StartURL: base, Params: params, Secrets: []string{"password"}, Verify: []schema.Expect{{Op: schema.OpURLContains, Arg: "/reports"}}}, planner.Options{})
	if err != nil || cold.Outcome != schema.OutcomeSuccess {
		t.Fatalf("cold run: %v %+v", err, cold)
	}
	cand, doc := distillRun(t, n.Bus(), cold.RunID)
	judged := slices.IndexFunc(cand.Playbook.Steps, func(s schema.Step) bool { return s.ChoosesRecords() })
	if judged < 0 || slices.ContainsFunc(cand.Playbook.Steps, func(s schema.Step) bool {
		return s.Target != nil && s.Target.Name == "Download Operations report October 2026"
	}) {
		t.Fatalf("want a judgment among the reports and no frozen link:\n%s", doc)
	}
	for _, c := range []struct {
		requested, want string
	}{
		{"Operations report August 2026", "RPT-2026-08"},
		{"Operations report November 2026", "RPT-2026-11"},
	} {
		site.Reset()
		site.RequestReport(c.requested)
		res := browserReplay(t, n, cand.Playbook, base, params)
		if res.Outcome != schema.OutcomeSuccess {
			t.Fatalf("replay for %s: outcome %s at %s: %v\n%s", c.requested, res.Outcome, res.FailedStep, res.Reason, doc)
		}
		if got := site.State().Downloads; !slices.Equal(got, []string{c.want}) {
			t.Fatalf("asked for %s, the replay downloaded %v", c.requested, got)
		}
		if len(res.Usage) != 1 || res.Usage[0].Source != schema.SourceJudgment || res.Usage[0].Calls != 1 {
			u, _ := json.Marshal(res.Usage)
			t.Errorf("usage %s, want one judgment call", u)
		}
	}
	// A page that asks for no listed report: the judgment cannot choose,
	// and nothing is downloaded.
	site.Reset()
	site.RequestReport("Operations report May 2020")
	res := browserReplay(t, n, cand.Playbook, base, params)
	if res.Outcome == schema.OutcomeSuccess || len(site.State().Downloads) != 0 {
		t.Fatalf("asked for an unlisted report: outcome %s, downloads %v", res.Outcome, site.State().Downloads)
	}
}
