package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rote-agent/rote/bench/widgets"
)

// TestWidgetSuiteNeverWrong runs the widget suite (rote bench --suite
// widgets) on the kinds each class of the last fixes rests on, through
// rote mcp browser and @playwright/mcp, on two new instances each (the
// second asks, for the kinds that can, what its page does not offer):
// no replay may be wrong, and the kinds that are learned now must replay
// every doable instance right and stop on the one that cannot be done.
func TestWidgetSuiteNeverWrong(t *testing.T) {
	long(t, "the widget suite through both browser MCP servers")
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	kinds := "unlabelled-login,date-mdy,ordinal-result,checkbox-set,row-action,search,late-list"
	code, text := rote(t, dir, "bench", "--suite", "widgets", "--kinds", kinds, "--seeds", "2", "--out", out, "--playwright-mcp", playwrightCLI(t))
	raw, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatalf("exit %d, no summary: %v\n%s", code, err, text)
	}
	var s widgets.Summary
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	// The kinds learned and replayed right through each server.
	useful := map[string][]string{
		"rote mcp browser": {"unlabelled-login", "date-mdy", "ordinal-result", "checkbox-set", "row-action", "search", "late-list"},
		"@playwright/mcp":  {"unlabelled-login", "date-mdy", "ordinal-result", "row-action", "search", "late-list"},
	}
	var problems []string
	for _, k := range s.Kinds {
		for _, r := range k.Replays {
			if r.Outcome == widgets.Wrong {
				problems = append(problems, fmt.Sprintf("%s %s seed %d WRONG: %s", k.Server, k.Kind, r.Seed, r.Note))
			}
			if slices.Contains(useful[k.Server], k.Kind) && r.Outcome != widgets.Right && r.Outcome != widgets.StoppedRight {
				problems = append(problems, fmt.Sprintf("%s %s seed %d: %s (%s %s)", k.Server, k.Kind, r.Seed, r.Outcome, k.LearnNote, r.Note))
			}
		}
	}
	if len(s.Kinds) != 14 {
		problems = append(problems, fmt.Sprintf("%d kinds run through the servers, want 7 through each", len(s.Kinds)))
	}
	if len(problems) > 0 {
		t.Fatalf("%s\n\n%s", strings.Join(problems, "\n"), text)
	}
	t.Logf("%s", s.Gate)
}
