package compare

import (
	"slices"
	"testing"
)

// TestSnapshotControls reads the controls of an aria snapshot: those of
// a control's role, and nodes marked as taking the pointer that are no
// control's own part.
func TestSnapshotControls(t *testing.T) {
	snap := "### Page\n```yaml\n- main [ref=e1]:\n  - heading \"Board\" [level=1] [ref=e2]\n" +
		"  - link \"Reports\" [ref=e3] [cursor=pointer]:\n    - /url: /reports\n    - generic [ref=e4] [cursor=pointer]: Reports\n" +
		"  - generic [ref=e5] [cursor=pointer]: Archive\n  - textbox \"Question\" [ref=e6]\n  - button \"Send \\\"now\\\"\" [ref=e7]\n" +
		"  - paragraph [ref=e8]: Just text\n  - generic [ref=e10] [cursor=pointer]: \"City:\"\n  - combobox \"Country\" [ref=e9]:\n    - option \"Germany\" [selected]\n```\n"
	got := snapshotControls(snap)
	want := []string{"Reports", "Archive", "Question", `Send "now"`, "City:", "Country"}
	if !slices.Equal(got, want) {
		t.Errorf("controls %q, want %q", got, want)
	}
}

// TestMissing compares controls by name as a person reads them.
func TestMissing(t *testing.T) {
	inRote, inPW := missing([]string{"Save", "Sign  in", "Board actions", "Change date: Immediately", "Template"},
		[]string{"save", "Sign in", "Select template", "", "Change date", "Template: Single"})
	if !slices.Equal(inRote, []string{"Select template"}) || !slices.Equal(inPW, []string{"Board actions"}) {
		t.Errorf("missing in Rote %q, in the snapshot %q", inRote, inPW)
	}
}

// TestSummarizeTimes: the time ratio is Rote's navigate plus observe over
// @playwright/mcp's navigate plus snapshot, its median over pages, and
// the slowest page named.
func TestSummarizeTimes(t *testing.T) {
	rows := []Row{
		{Site: "s", Page: "a", RoteNavigateMS: 40, RoteObserveMS: 40, PlaywrightNavigateMS: 90, PlaywrightSnapshotMS: 10},
		{Site: "s", Page: "b", RoteNavigateMS: 100, RoteObserveMS: 200, PlaywrightNavigateMS: 150, PlaywrightSnapshotMS: 50},
		{Site: "s", Page: "c", RoteNavigateMS: 50, RoteObserveMS: 50, PlaywrightNavigateMS: 80, PlaywrightSnapshotMS: 20},
	}
	s := Summarize(rows)
	if s.MedianTimeRatio != 1 || s.SlowestTimeRatio != 1.5 || s.SlowestPage != "s b" {
		t.Fatalf("median %.2f, slowest %.2f on %q; want 1.00, 1.50 on \"s b\"", s.MedianTimeRatio, s.SlowestTimeRatio, s.SlowestPage)
	}
	if (Row{}).TimeRatio() != 0 {
		t.Fatal("a row with no @playwright/mcp time has a ratio")
	}
}
