package planner

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
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
