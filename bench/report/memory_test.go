package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMemoryGates: the site memory suite's gates read both arms over
// every task: savings of calls and tokens against the bound, a success
// the learned store lost, and a wrong outcome in an arm or a drift run
// each fail theirs; the report carries every task and the drift table.
func TestMemoryGates(t *testing.T) {
	run := func(task string, arm Arm, calls int, tokens int64, ok bool) Result {
		r := result(task, 1, arm, tokens, 1000, ok)
		r.Usage[0].Calls = calls
		r.Totals()
		return r
	}
	good := []Result{run("M1", Fresh, 7, 14000, true), run("M1", Learned, 4, 9000, true), run("M2", Fresh, 7, 14000, true), run("M2", Learned, 5, 9500, true)}
	drifts := []MemoryDrift{{Task: "M1", Variant: "landing-moved", Memory: "routine sign-in stopped", Outcome: "agent", Success: true, Calls: 5}}
	s := SummarizeMemory(good, drifts, []string{"B1"}, 1, "test")
	if !s.Pass() {
		t.Fatalf("gates failed on good results: %v", s.Gates)
	}
	if got := s.Total.CallSaving(); got < 0.35 || got > 0.36 { // 1 - 4.5/7
		t.Errorf("call saving %.3f, want 0.357", got)
	}
	for name, rs := range map[string][]Result{
		"call_saving":    {run("M1", Fresh, 7, 14000, true), run("M1", Learned, 6, 9000, true)},
		"token_saving":   {run("M1", Fresh, 7, 14000, true), run("M1", Learned, 4, 12000, true)},
		"success_parity": {run("M1", Fresh, 7, 14000, true), run("M1", Learned, 4, 9000, false)},
	} {
		if s := SummarizeMemory(rs, nil, nil, 1, "test"); s.Gates[name].Pass || s.Pass() {
			t.Errorf("%s passed: %v", name, s.Gates[name])
		}
	}
	wrong := run("M1", Learned, 4, 9000, false)
	wrong.Verified = true // it said done; the portal disagrees
	if s := SummarizeMemory([]Result{run("M1", Fresh, 7, 14000, true), wrong}, nil, nil, 1, "test"); s.Gates["wrong_outcomes"].Pass {
		t.Error("a wrong outcome passed")
	}
	if s := SummarizeMemory(good, []MemoryDrift{{Task: "M2", Wrong: true}}, nil, 1, "test"); s.Gates["wrong_outcomes"].Pass {
		t.Error("a wrong drift run passed")
	}
	dir := t.TempDir()
	if err := WriteMemory(dir, good, s, "rote bench --suite memory"); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| M1 | 7.00 | 4.00 | 43% | 14000 | 9000 | 36% |", "| M2 |", "| **all** |", "| M1 | landing-moved | routine sign-in stopped | agent | true | false | 5 |", "labelled offline model"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	for _, f := range []string{"summary.json", "results.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
