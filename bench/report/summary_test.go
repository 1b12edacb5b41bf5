package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/schema"
)

func result(task string, rep int, arm Arm, tokens int64, wallMS float64, ok bool) Result {
	r := Result{Task: task, Rep: rep, Arm: arm, Success: ok, Verified: ok, WallMS: wallMS, Mode: "agent",
		Classes: []schema.ClassUsage{{Class: schema.ClassReplay, Steps: 5, Wall: time.Second}}}
	if tokens > 0 {
		u := schema.TokenUsage{Uncached: tokens - 10, Output: 10}
		r.Usage = []schema.SourceUsage{{Source: schema.SourcePlanner, Calls: 3, Tokens: u}}
		r.Classes = []schema.ClassUsage{{Class: schema.ClassFrontier, Steps: 3, Calls: 3, Tokens: u, Wall: 2 * time.Second}}
	}
	r.Totals()
	return r
}

// TestSummaryGatesAndStableBytes: the gates read the pairs (a lost
// success, a false match and a slow warm run each fail theirs), and the
// same results and seed write the same bytes.
func TestSummaryGatesAndStableBytes(t *testing.T) {
	var rs []Result
	for rep := 1; rep <= 4; rep++ {
		rs = append(rs, result("B1", rep, Cold, 10000+int64(rep)*100, 3000, true), result("B1", rep, Warm, 0, 300, true))
		rs = append(rs, result("B6", rep, Cold, 30000, 6000, true), result("B6", rep, Warm, 30000, 6000, true))
	}
	s := Summarize(rs, map[string]bool{"B6": true}, 7, 4, "test")
	for _, g := range GateNames {
		if !s.Gates[g].Pass {
			t.Fatalf("gate %s failed on good results: %v", g, s.Gates[g])
		}
	}
	if s.Tasks["B1"].TokenReduction.Low != 1 || s.Tasks["B6"].Misses != 4 {
		t.Fatalf("tasks %+v", s.Tasks)
	}
	bad := append([]Result(nil), rs...)
	bad[1].Success = false   // B1 rep 1 warm lost a success
	bad[3].FalseMatch = true // B6 rep 1 warm matched
	bad[5].WallMS = 3000     // B1 rep 2 warm as slow as cold
	bad[9].Success = false   // B1 rep 3 warm verified itself, but the site disagrees
	bad[12].Success = false  // B1 rep 4 cold failed where warm did it
	sb := Summarize(bad, map[string]bool{"B6": true}, 7, 4, "test")
	if sb.Gained != 1 {
		t.Errorf("parity gained %d, want 1", sb.Gained)
	}
	for _, g := range []string{"success_parity", "wrong_outcomes", "false_matches", "latency"} {
		if sb.Gates[g].Pass {
			t.Errorf("gate %s passed: %v", g, sb.Gates[g])
		}
	}
	a, b := t.TempDir(), t.TempDir()
	if err := Write(a, rs, s, "rote bench --reps 4"); err != nil {
		t.Fatal(err)
	}
	if err := Write(b, rs, Summarize(rs, map[string]bool{"B6": true}, 7, 4, "test"), "rote bench --reps 4"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"results.jsonl", "summary.json", "report.md"} {
		x, _ := os.ReadFile(filepath.Join(a, f))
		y, _ := os.ReadFile(filepath.Join(b, f))
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Fatalf("%s differs between two writes of the same results", f)
		}
	}
	md, _ := os.ReadFile(filepath.Join(a, "report.md"))
	// Eight cold runs of three frontier steps each; four warm replays of
	// five steps and four warm misses (B6) that planned three.
	if !strings.Contains(string(md), "`rote bench --reps 4`") || !strings.Contains(string(md), "B6 (must miss)") ||
		!strings.Contains(string(md), "| cold | frontier | 24 | 24 | ") || !strings.Contains(string(md), "| warm | replay | 20 | 0 | 0 | 4.0 |") ||
		!strings.Contains(string(md), "| warm | frontier | 12 | 12 | 120000 | 8.0 |") {
		t.Fatalf("report.md:\n%s", md)
	}
}
