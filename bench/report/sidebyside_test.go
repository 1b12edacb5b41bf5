package report

import (
	"strings"
	"testing"
)

// TestSideBySideJudgesTheSlowestTask: the gate is the largest ratio of
// Rote's median to the hand-written program's median with its page open,
// it fails above 1.5x, and the report sets the cold agent beside both.
func TestSideBySideJudgesTheSlowestTask(t *testing.T) {
	s := &SideBySide{Reps: 3, Model: "test model", Tasks: []SideTask{
		{Task: "B1", ScriptSteps: []float64{400, 500, 450}, Script: []float64{600, 700, 650}, Rote: []float64{500, 560, 540},
			Cold: []float64{900, 1000, 950}, ColdModel: []float64{10, 12, 11}, Phases: map[string][]float64{"settle": {50, 60, 55}}},
		{Task: "B2", ScriptSteps: []float64{800, 900, 1000}, Script: []float64{1000, 1100, 1200}, Rote: []float64{1300, 1200, 1250},
			Cold: []float64{1800, 1900, 2000}, ColdModel: []float64{40, 50, 60}, Phases: map[string][]float64{}},
	}}
	s.Judge()
	if !s.Gate.Pass || s.Gate.Value != 1250.0/900 || !strings.Contains(s.Gate.Detail, "(B2)") {
		t.Fatalf("gate %+v: want B2's 1250/900, passing", s.Gate)
	}
	s.Tasks[1].Rote = []float64{1400, 1400, 1400}
	s.Judge()
	if s.Gate.Pass || s.Gate.Value != 1400.0/900 {
		t.Fatalf("gate %+v: want B2's 1400/900, failing", s.Gate)
	}
	md := s.Markdown("rote bench --suite speed")
	for _, want := range []string{
		"| B1 (", "450 (400-500)", "540 (500-560)", "1.20x", // Rote over the script's steps
		"with test model", "| B1 | 950 (900-1000) | 11 (10-12) | 1.76x | 2.11x |",
		"| B2 | 1900 (1800-2000) | 50 (40-60) | 1.36x | 2.11x |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
}
