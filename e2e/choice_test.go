package e2e

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rote-agent/rote/portal"
)

// TestLatestReportFollowsNewData learns "download the latest report" on
// the portal, publishes a newer report, and replays: the playbook picks
// the newest report by the rule the task states, read from the page as
// it is now, and downloads it (a playbook frozen to the link it clicked
// once downloaded the old report and still reported success).
func TestLatestReportFollowsNewData(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base, site := portalSite(t, "")
	coldRun := coldSuiteRun(t, dir, "B1", base)
	code, out := rote(t, dir, "distill", coldRun)
	if code != 0 || !strings.Contains(out, "order: newest") || strings.Contains(out, "name: Download Operations report November 2026") {
		t.Fatalf("distill: exit %d, want a newest rule and no frozen report\n%s", code, out)
	}
	code, out = rote(t, dir, "promote", coldRun, "--param", "password="+portal.Password)
	if code != 0 || !strings.Contains(out, "promoted download-latest-report v1") {
		t.Fatalf("promote: exit %d\n%s", code, out)
	}
	site.Reset()
	newest := site.PublishReport()
	code, out = rote(t, dir, "run", "--suite-task", "B1", "--url", base, "--json")
	var warm struct {
		Outcome string
		Replay  struct {
			RunID string `json:"run_id"`
		}
		Agent *struct{}
	}
	if err := json.Unmarshal([]byte(out), &warm); code != 0 || err != nil || warm.Outcome != "success" || warm.Replay.RunID == "" || warm.Agent != nil {
		t.Fatalf("warm run: exit %d (%v), want a replay with no agent\n%s", code, err, out)
	}
	if got := site.State().Downloads; !slices.Equal(got, []string{newest}) {
		t.Fatalf("the warm run downloaded %v, want the newest report %s", got, newest)
	}
	code, out = rote(t, dir, "runs", "show", warm.Replay.RunID)
	if want := "picked newest by Period, newest by Published among 7 link records: Download Operations report December 2026"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("runs show: exit %d, want %q in\n%s", code, want, out)
	}
	// Why the steps ran: the warm run's as learned with no model call,
	// the cold run's chosen by the model, each with its calls.
	if !regexp.MustCompile(`(?m)^ +replay +[1-9][0-9]* +0 +0 +[0-9]+ms *$`).MatchString(out) || strings.Contains(out, "frontier") {
		t.Errorf("runs show of the warm run: want only replay steps, with no model call\n%s", out)
	}
	code, out = rote(t, dir, "audit", coldRun)
	if code != 0 || !regexp.MustCompile(`(?m)^ +frontier +[1-9][0-9]* +[1-9][0-9]* +[1-9][0-9]* +[0-9]+ms *$`).MatchString(out) || !strings.Contains(out, "agrees with its manifest") {
		t.Errorf("audit of the cold run: exit %d, want frontier steps with their model calls\n%s", code, out)
	}
}

// coldSuiteRun runs suite task id cold with rote run against the site at
// base and returns the agent's run id; the run must succeed.
func coldSuiteRun(t *testing.T, dir, id, base string) string {
	t.Helper()
	code, out := rote(t, dir, "run", "--suite-task", id, "--url", base, "--json")
	var cold struct {
		Outcome string
		Agent   struct {
			RunID string `json:"run_id"`
		}
	}
	if err := json.Unmarshal([]byte(out), &cold); code != 0 || err != nil || cold.Outcome != "success" {
		t.Fatalf("cold run of %s: exit %d (%v)\n%s", id, code, err, out)
	}
	return cold.Agent.RunID
}
